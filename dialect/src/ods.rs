//! Typed views of the ccl ops, generated from `Ccl.td` by the build script
//! (`build/views.rs`): one `Copy` view per op over a borrowed
//! `OperationRef`, with the operands, results and attributes named as in
//! the .td, and a builder taking them in the same order.
//!
//! ```ignore
//! if let Some(store) = TileStore::of(op) {
//!     let window = store.dst();
//! }
//! let fence = Fence::build(location);
//! ```

use crate::ffi::{
    attributes::{enum_keyword, flat_symbol_attr, i64_attr, set_i64_attr},
    context,
    operations::{op_name, operand, operand_count, result, result_count},
};
use melior::ir::{
    attribute::{FlatSymbolRefAttribute, IntegerAttribute},
    operation::OperationBuilder,
    r#type::IntegerType,
    Attribute, Identifier, Location, Operation, OperationRef, Type, Value,
};

include!(concat!(env!("OUT_DIR"), "/ccl_ops.rs"));

/// Whether `count` is between `min` and `max` (no upper bound if `None`).
fn count_fits(count: usize, min: usize, max: Option<usize>) -> bool {
    count >= min && max.is_none_or(|max| count <= max)
}

/// What the views' builders fill in: melior's `OperationBuilder`, with the
/// attribute forms the ccl ops use.
struct OpBuilder<'c> {
    location: Location<'c>,
    builder: Option<OperationBuilder<'c>>,
}

impl<'c> OpBuilder<'c> {
    fn new(name: &str, location: Location<'c>) -> Self {
        Self { location, builder: Some(OperationBuilder::new(name, location)) }
    }

    /// The context, looked up only by builders that make attributes.
    fn context(&self) -> &'c melior::Context {
        context::of_location(self.location)
    }

    fn map(&mut self, f: impl FnOnce(OperationBuilder<'c>) -> OperationBuilder<'c>) {
        self.builder = self.builder.take().map(f);
    }

    fn operand(&mut self, value: Value<'c, '_>) {
        self.map(|b| b.add_operands(&[value]));
    }

    fn operands(&mut self, values: &[Value<'c, '_>]) {
        self.map(|b| b.add_operands(values));
    }

    fn result(&mut self, ty: Type<'c>) {
        self.map(|b| b.add_results(&[ty]));
    }

    fn results(&mut self, types: &[Type<'c>]) {
        self.map(|b| b.add_results(types));
    }

    fn attribute(&mut self, name: &str, attribute: Attribute<'c>) {
        let identifier = Identifier::new(self.context(), name);
        self.map(|b| b.add_attributes(&[(identifier, attribute)]));
    }

    /// An attribute given in MLIR's syntax (a dialect enum attribute).
    fn parsed_attribute(&mut self, name: &str, text: &str) {
        let attribute = Attribute::parse(self.context(), text).expect("a generated attribute text parses");
        self.attribute(name, attribute);
    }

    fn i64_attribute(&mut self, name: &str, value: i64) {
        let ty = IntegerType::new(self.context(), 64).into();
        self.attribute(name, IntegerAttribute::new(ty, value).into());
    }

    fn flat_symbol_attribute(&mut self, name: &str, symbol: &str) {
        self.attribute(name, FlatSymbolRefAttribute::new(self.context(), symbol).into());
    }

    /// The op; the builders pass operands and attributes the .td asks for,
    /// so MLIR's creation cannot fail on them.
    fn build(self) -> Operation<'c> {
        self.builder.expect("builder present").build().expect("a ccl op built from its definition")
    }
}
