//! The memref view ops the lowered kernel slices its buffers with
//! (`memref.subview`, `memref.collapse_shape`), built with melior's generic
//! builder: melior's `memref` dialect module has no builder for them.

use crate::ir;
use melior::{
    ir::{
        attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute},
        operation::OperationBuilder,
        Attribute, Identifier, Location, Operation, Type, Value, ValueLike,
    },
    Context,
};

/// A static or dynamic offset or size of a view.
#[derive(Clone, Copy)]
pub enum Extent<'c, 'a> {
    Static(i64),
    Dynamic(Value<'c, 'a>),
}

fn dense_i64<'c>(context: &'c Context, values: &[i64]) -> Attribute<'c> {
    DenseI64ArrayAttribute::new(context, values).into()
}

/// A new `memref.subview` of `source` with unit strides, not yet inserted.
pub fn subview<'c>(
    location: Location<'c>,
    source: Value<'c, '_>,
    offsets: &[Extent<'c, '_>],
    sizes: &[Extent<'c, '_>],
    result: Type<'c>,
) -> Operation<'c> {
    let context = cclir_dialect::ffi::context::of_location(location);
    let (static_offsets, dynamic_offsets) = split_extents(offsets);
    let (static_sizes, dynamic_sizes) = split_extents(sizes);
    let ones = vec![1i64; offsets.len()];
    let segments =
        DenseI32ArrayAttribute::new(context, &[1, dynamic_offsets.len() as i32, dynamic_sizes.len() as i32, 0]);
    let id = |name: &str| Identifier::new(context, name);
    OperationBuilder::new("memref.subview", location)
        .add_operands(&[source])
        .add_operands(&dynamic_offsets)
        .add_operands(&dynamic_sizes)
        .add_results(&[result])
        .add_attributes(&[
            (id("operandSegmentSizes"), segments.into()),
            (id("static_offsets"), dense_i64(context, &static_offsets)),
            (id("static_sizes"), dense_i64(context, &static_sizes)),
            (id("static_strides"), dense_i64(context, &ones)),
        ])
        .build()
        .expect("a well-formed memref.subview")
}

/// The static array of `extents` (dynamic ones marked) and their dynamic
/// values, as view ops take them.
fn split_extents<'c, 'a>(extents: &[Extent<'c, 'a>]) -> (Vec<i64>, Vec<Value<'c, 'a>>) {
    let mut statics = Vec::new();
    let mut dynamics = Vec::new();
    for extent in extents {
        match *extent {
            Extent::Static(v) => statics.push(v),
            Extent::Dynamic(value) => {
                statics.push(ir::dynamic_extent());
                dynamics.push(value);
            }
        }
    }
    (statics, dynamics)
}

/// A new `memref.collapse_shape` of every dimension of `source` into one.
pub fn collapse_all<'c>(location: Location<'c>, source: Value<'c, '_>, result: Type<'c>) -> Operation<'c> {
    let context = cclir_dialect::ffi::context::of_location(location);
    let rank = ir::memref_parts(source.r#type()).map(|(shape, _, _)| shape.len()).unwrap_or(1);
    let group = format!("[[{}]]", (0..rank).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    let reassociation = Attribute::parse(context, &group).expect("an array of index arrays parses");
    OperationBuilder::new("memref.collapse_shape", location)
        .add_operands(&[source])
        .add_results(&[result])
        .add_attributes(&[(Identifier::new(context, "reassociation"), reassociation)])
        .build()
        .expect("a well-formed memref.collapse_shape")
}
