//! Small, generic IR helpers every ccl pass can share: walking blocks and
//! ops, reading function attributes (`ccl.kind`, level/role), recognising
//! window-bound memrefs, resolving `callee` symbols, and creating the two
//! marker ops (`ccl.fence`, `ccl.cacheinvalid`) with melior's
//! `OperationBuilder`.
//!
//! Nothing here knows about a particular pass. Where melior has no wrapper
//! (operation names with the context's lifetime, memory spaces of unranked
//! memrefs), a helper calls mlir-sys directly and says so.

use crate::{
    names::{self, FunctionKind, Interned, Name},
    ods::OpKind,
    strings::bytes_of,
};
use melior::ir::{
    attribute::IntegerAttribute,
    attribute::{AttributeLike, FlatSymbolRefAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    r#type::IntegerType,
    r#type::TypeLike,
    Attribute, BlockRef, Location, Operation, OperationRef, RegionLike, RegionRef, Type, Value, ValueLike,
};
use std::fmt;

// ---------------------------------------------------------------------------
// Walking
// ---------------------------------------------------------------------------

/// The name of `op` (`scf.for`), borrowed from the context.
pub fn op_name<'c>(op: OperationRef<'c, '_>) -> &'c str {
    // melior's `Identifier::as_string_ref` ties the string to the identifier
    // value; the characters are owned by the context, so read them directly.
    unsafe {
        let name = mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op.to_raw()));
        if name.data.is_null() || name.length == 0 {
            return "";
        }
        let bytes = std::slice::from_raw_parts(name.data as *const u8, name.length);
        std::str::from_utf8(bytes).unwrap_or("")
    }
}

/// The ops of `block`, first to last (the terminator included).
pub fn ops<'c, 'a>(block: BlockRef<'c, 'a>) -> impl Iterator<Item = OperationRef<'c, 'a>> {
    std::iter::successors(block.first_operation(), |op| op.next_in_block())
}

/// The blocks of `region`, in region order.
pub fn blocks<'c, 'a>(region: RegionRef<'c, 'a>) -> impl Iterator<Item = BlockRef<'c, 'a>> {
    std::iter::successors(region.first_block(), |block| block.next_in_region())
}

/// The regions of `op`, in order.
pub fn regions<'c, 'a>(op: OperationRef<'c, 'a>) -> impl Iterator<Item = RegionRef<'c, 'a>> {
    // Linked like blocks and ops, so no index (melior's `region(i)` checks
    // bounds and builds an error value on every call).
    let first = unsafe { RegionRef::from_option_raw(mlir_sys::mlirOperationGetFirstRegion(op.to_raw())) };
    std::iter::successors(first, |region| unsafe {
        RegionRef::from_option_raw(mlir_sys::mlirRegionGetNextInOperation(region.to_raw()))
    })
}

/// The programs a ccl pass run on `module` handles, each on its own
/// (docs/semantics.md, "Nested modules"): `module`, then every
/// `builtin.module` in the body of a program, recursively, in pre-order.
/// A module is a symbol table of its own: its functions call and launch
/// only each other. Only the top-level ops of each module are read.
pub fn programs<'c, 'a>(module: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut programs = vec![module];
    let mut next = 0;
    while next < programs.len() {
        let program = programs[next];
        next += 1;
        let nested: Vec<OperationRef<'c, 'a>> =
            regions(program).flat_map(blocks).flat_map(ops).filter(|op| is_module(*op)).collect();
        // Pre-order: a module's nested modules come right after it.
        programs.splice(next..next, nested);
    }
    programs
}

/// Whether `op` is a `builtin.module`.
pub fn is_module(op: OperationRef<'_, '_>) -> bool {
    op_name(op) == names::BUILTIN_MODULE
}

/// Whether a walk goes into the regions of the op it just visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    Advance,
    Skip,
}

/// Calls `visit` on every op nested in `root`'s regions (not on `root`), in
/// pre-order: an op, then the ops of its regions (unless `visit` returned
/// [`Walk::Skip`]), then the op after it. Iterative, with one stack entry
/// per nesting level, so depth cannot exhaust the stack; each op costs two
/// C API calls (next op, first region) and no allocation. `visit` must not
/// erase or move ops: collect them, then change them.
pub fn walk_nested<'c, 'a>(root: OperationRef<'c, 'a>, mut visit: impl FnMut(OperationRef<'c, 'a>) -> Walk) {
    // Room for the usual nesting, so a walk of a function allocates once.
    let mut stack: Vec<Position> = Vec::with_capacity(16);
    stack.extend(Position::first_in(root.to_raw()));
    while let Some(top) = stack.last_mut() {
        let op = top.op;
        if !top.advance() {
            stack.pop();
        }
        if visit(unsafe { OperationRef::from_raw(op) }) == Walk::Advance {
            stack.extend(Position::first_in(op));
        }
    }
}

/// A walk's place at one nesting level: the next op to visit, and the
/// block and region it is in (to go on when the block ends).
struct Position {
    op: mlir_sys::MlirOperation,
    block: mlir_sys::MlirBlock,
    region: mlir_sys::MlirRegion,
}

impl Position {
    /// The first op of `parent`'s regions, skipping empty blocks and regions.
    fn first_in(parent: mlir_sys::MlirOperation) -> Option<Self> {
        Self::first_from(unsafe { mlir_sys::mlirOperationGetFirstRegion(parent) })
    }

    /// The first op in `region` or the regions after it.
    fn first_from(mut region: mlir_sys::MlirRegion) -> Option<Self> {
        use mlir_sys::*;
        while !region.ptr.is_null() {
            let mut block = unsafe { mlirRegionGetFirstBlock(region) };
            while !block.ptr.is_null() {
                let op = unsafe { mlirBlockGetFirstOperation(block) };
                if !op.ptr.is_null() {
                    return Some(Self { op, block, region });
                }
                block = unsafe { mlirBlockGetNextInRegion(block) };
            }
            region = unsafe { mlirRegionGetNextInOperation(region) };
        }
        None
    }

    /// Moves past the current op; false when this level has no op left.
    fn advance(&mut self) -> bool {
        use mlir_sys::*;
        let next = unsafe { mlirOperationGetNextInBlock(self.op) };
        if !next.ptr.is_null() {
            self.op = next;
            return true;
        }
        let mut block = unsafe { mlirBlockGetNextInRegion(self.block) };
        while !block.ptr.is_null() {
            let op = unsafe { mlirBlockGetFirstOperation(block) };
            if !op.ptr.is_null() {
                (self.op, self.block) = (op, block);
                return true;
            }
            block = unsafe { mlirBlockGetNextInRegion(block) };
        }
        match Self::first_from(unsafe { mlirRegionGetNextInOperation(self.region) }) {
            Some(next) => {
                *self = next;
                true
            }
            None => false,
        }
    }
}

/// Whether `op` is its block's terminator as MLIR knows it (an op with the
/// terminator trait at the end of its block: `scf.forall.in_parallel`,
/// `cf.br`), whatever its name.
pub fn ends_its_block(op: OperationRef<'_, '_>) -> bool {
    match op.block().and_then(|block| block.terminator()) {
        Some(terminator) => terminator == op,
        None => false,
    }
}

/// The side-effect-free ops of docs/semantics.md (`arith`, `index`, `math`, the pure
/// ccl ops) and terminators: by name, or by ending its block as one.
pub fn is_side_effect_free(op: OperationRef<'_, '_>) -> bool {
    Name::of(op).is_side_effect_free() || ends_its_block(op)
}

/// The op defining `value`, or `None` for a block argument.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // Not melior's `OperationResult::try_from`: on a block argument it
    // prints the value into its error.
    unsafe {
        let raw = value.to_raw();
        mlir_sys::mlirValueIsAOpResult(raw).then(|| OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw)))
    }
}

/// The block `value` is defined in: its defining op's block, or the block
/// a block argument belongs to.
pub fn owner_block<'c, 'a>(value: Value<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    match defining_op(value) {
        Some(op) => op.block(),
        // A value is an op result or a block argument.
        None => unsafe { BlockRef::from_option_raw(mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())) },
    }
}

/// Moves `op` (in a block already) to right after `anchor`, or to the
/// start of `block` when there is no anchor; whether it was elsewhere.
pub fn move_to<'c, 'a>(
    op: OperationRef<'c, 'a>,
    anchor: Option<OperationRef<'c, 'a>>,
    block: BlockRef<'c, 'a>,
) -> bool {
    // melior moves ops only through a mutable reference, which a walk
    // holding shared references to the same ops cannot have; the C API
    // moves the op it is given, and both ops are alive in the same body.
    match anchor {
        Some(anchor) => {
            if anchor.next_in_block() == Some(op) {
                return false;
            }
            unsafe { mlir_sys::mlirOperationMoveAfter(op.to_raw(), anchor.to_raw()) }
        }
        None => match block.first_operation() {
            Some(first) if first == op => return false,
            Some(first) => unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), first.to_raw()) },
            None => unreachable!("a block that holds an op to move before is not empty"),
        },
    }
    true
}

/// An identity for hashing IR objects within one pass run (the objects
/// must outlive the map).
pub fn op_key(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

/// The op at an address `op_key` gave, within the same pass run (the op
/// must be alive: it is how a task on another thread gets its function).
pub fn op_at<'c, 'a>(key: usize) -> OperationRef<'c, 'a> {
    unsafe { OperationRef::from_raw(mlir_sys::MlirOperation { ptr: key as *mut std::ffi::c_void }) }
}

/// The value at an address `value_key` gave, within the same pass run.
pub fn value_at<'c, 'a>(key: usize) -> Value<'c, 'a> {
    unsafe { Value::from_raw(mlir_sys::MlirValue { ptr: key as *const std::ffi::c_void }) }
}

pub fn value_key(value: Value<'_, '_>) -> usize {
    value.to_raw().ptr as usize
}

pub fn block_key(block: BlockRef<'_, '_>) -> usize {
    block.to_raw().ptr as usize
}

/// The blocks the terminator of `block` branches to (as `block_key`s), in
/// successor order; none for a block that leaves its region (or has no
/// terminator).
pub fn successor_keys(block: BlockRef<'_, '_>) -> Vec<usize> {
    unsafe {
        let terminator = mlir_sys::mlirBlockGetTerminator(block.to_raw());
        if terminator.ptr.is_null() {
            return Vec::new();
        }
        (0..mlir_sys::mlirOperationGetNumSuccessors(terminator))
            .map(|i| mlir_sys::mlirOperationGetSuccessor(terminator, i).ptr as usize)
            .collect()
    }
}

/// The operand range of segment `index` of an op with `operandSegmentSizes`
/// (`scf.parallel`, `scf.forall`), or `None` when the op has no such
/// attribute or it is malformed.
pub fn operand_segment(op: OperationRef<'_, '_>, index: usize) -> Option<std::ops::Range<usize>> {
    let sizes = op.attribute("operandSegmentSizes").ok()?;
    // melior has no safe accessor for a DenseI32ArrayAttr of unknown origin.
    unsafe {
        let raw = sizes.to_raw();
        if !mlir_sys::mlirAttributeIsADenseI32Array(raw) {
            return None;
        }
        let count = mlir_sys::mlirDenseArrayGetNumElements(raw) as usize;
        if index >= count {
            return None;
        }
        let mut start = 0usize;
        for i in 0..index {
            start += mlir_sys::mlirDenseI32ArrayGetElement(raw, i as isize).max(0) as usize;
        }
        let len = mlir_sys::mlirDenseI32ArrayGetElement(raw, index as isize).max(0) as usize;
        let end = (start + len).min(op.operand_count());
        Some(start.min(end)..end)
    }
}

// ---------------------------------------------------------------------------
// Attributes and function kinds
// ---------------------------------------------------------------------------

/// The string value of attribute `name` on `op`, if it is a string.
pub fn string_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    // melior's `attribute` allocates the name into its error when absent.
    let raw = unsafe { mlir_sys::mlirOperationGetAttributeByName(op.to_raw(), string_ref(name)) };
    string_value(raw)
}

/// The string value of discardable attribute `name` (every `ccl.*`
/// function attribute is one), skipping the op's inherent attributes.
pub fn discardable_string_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    string_value(unsafe { mlir_sys::mlirOperationGetDiscardableAttributeByName(op.to_raw(), string_ref(name)) })
}

fn string_value<'c>(raw: mlir_sys::MlirAttribute) -> Option<&'c str> {
    let attribute: Attribute<'c> = unsafe { Attribute::from_option_raw(raw) }?;
    string_of(attribute)
}

/// The text of a string attribute, read by pointer and length: melior's
/// `StringAttribute::value` panics on an empty string (its `as_str` indexes
/// `len - 1`), and `""` is a value like any other.
pub fn string_of(attribute: Attribute<'_>) -> Option<&str> {
    unsafe {
        let raw = attribute.to_raw();
        if !mlir_sys::mlirAttributeIsAString(raw) {
            return None;
        }
        std::str::from_utf8(bytes_of(mlir_sys::mlirStringAttrGetValue(raw))).ok()
    }
}

fn string_ref(text: &str) -> mlir_sys::MlirStringRef {
    mlir_sys::MlirStringRef { data: text.as_ptr() as *const _, length: text.len() }
}

/// A `ccl.kind` that docs/semantics.md does not list (or that is not a string).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKind {
    /// The attribute as written (`"foo"`, `3 : i32`).
    pub value: String,
}

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown ccl.kind {}; accepted kinds: {}", self.value, names::KINDS.join(", "))
    }
}

/// What a function is (docs/semantics.md, "Functions"): its `ccl.kind` (default
/// `opaque`), with `ccl.level = "host"` plus `ccl.role = "orchestrator"`
/// making a non-InCore function orchestration-like. An explicit InCore kind
/// wins over level/role: a device kernel is never a scan target.
pub fn function_kind(func: OperationRef<'_, '_>) -> Result<FunctionKind, UnknownKind> {
    let raw =
        unsafe { mlir_sys::mlirOperationGetDiscardableAttributeByName(func.to_raw(), string_ref(names::ATTR_KIND)) };
    let kind = match unsafe { Attribute::from_option_raw(raw) } {
        None => FunctionKind::Other,
        Some(attribute) => string_of(attribute)
            .and_then(FunctionKind::from_kind)
            .ok_or_else(|| UnknownKind { value: attribute.to_string() })?,
    };
    if kind != FunctionKind::InCore && is_host_orchestrator(func) {
        return Ok(FunctionKind::Orchestration);
    }
    Ok(kind)
}

/// Whether `func` is a device kernel: its `ccl.kind` is an InCore kind. The
/// one attribute [`function_kind`] reads first, and all it needs to say
/// `InCore`.
pub fn is_in_core(func: OperationRef<'_, '_>) -> bool {
    discardable_string_attr(func, names::ATTR_KIND).and_then(FunctionKind::from_kind) == Some(FunctionKind::InCore)
}

/// `ccl.level = "host"` together with `ccl.role = "orchestrator"`.
pub fn is_host_orchestrator(func: OperationRef<'_, '_>) -> bool {
    discardable_string_attr(func, names::ATTR_LEVEL) == Some("host")
        && discardable_string_attr(func, names::ATTR_ROLE) == Some("orchestrator")
}

/// The symbol name of a symbol op (`sym_name`).
pub fn symbol_name<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    string_attr(op, "sym_name")
}

/// The flat symbol a call-like op (`func.call`, `ccl.submit`) names in its
/// `callee` attribute; `None` when absent or nested (`@a::@b`).
pub fn callee_symbol<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    let raw = unsafe { mlir_sys::mlirOperationGetAttributeByName(op.to_raw(), string_ref("callee")) };
    flat_symbol_of(unsafe { Attribute::from_option_raw(raw) }?)
}

/// The symbol of a flat symbol reference attribute (`@""` included).
pub fn flat_symbol_of(attribute: Attribute<'_>) -> Option<&str> {
    unsafe {
        let raw = attribute.to_raw();
        if !mlir_sys::mlirAttributeIsAFlatSymbolRef(raw) {
            return None;
        }
        std::str::from_utf8(bytes_of(mlir_sys::mlirFlatSymbolRefAttrGetValue(raw))).ok()
    }
}

/// The entry block of a function, or `None` for a declaration.
pub fn entry_block<'c, 'a>(func: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    func.region(0).ok()?.first_block()
}

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

/// The memory space of a memref type (ranked or unranked); `None` for
/// another type or the default space.
pub fn memory_space(ty: Type<'_>) -> Option<mlir_sys::MlirAttribute> {
    // melior wraps only ranked memrefs; the memory-space getters are C API.
    let space = unsafe {
        let raw = ty.to_raw();
        if mlir_sys::mlirTypeIsAMemRef(raw) {
            mlir_sys::mlirMemRefTypeGetMemorySpace(raw)
        } else if mlir_sys::mlirTypeIsAUnrankedMemRef(raw) {
            mlir_sys::mlirUnrankedMemrefGetMemorySpace(raw)
        } else {
            return None;
        }
    };
    (!space.ptr.is_null()).then_some(space)
}

/// Whether `value` is a window-bound memref (docs/semantics.md, "Buffers"),
/// against the interned `#ccl.window` (no printing).
pub fn is_window_bound(names: &Interned, value: Value<'_, '_>) -> bool {
    memory_space(value.r#type()).is_some_and(|space| names.is_window_space(space))
}

// ---------------------------------------------------------------------------
// Markers
// ---------------------------------------------------------------------------

/// A new `ccl.fence` at `location`, not yet inserted.
pub fn create_fence<'c>(location: Location<'c>) -> Operation<'c> {
    crate::ods::Fence::build(location)
}

/// A new `ccl.cacheinvalid` at `location`: the region form on `target`, or
/// the whole-GM form when `target` is `None`.
pub fn create_cache_invalid<'c>(location: Location<'c>, target: Option<Value<'c, '_>>) -> Operation<'c> {
    crate::ods::CacheInvalid::build(location, target)
}

pub fn is_fence(names: &Interned, op: OperationRef<'_, '_>) -> bool {
    names.is(Name::of(op), OpKind::Fence)
}

/// A whole-GM `ccl.cacheinvalid()` (no operand).
pub fn is_whole_cache_invalid(names: &Interned, op: OperationRef<'_, '_>) -> bool {
    names.is(Name::of(op), OpKind::CacheInvalid) && op.operand_count() == 0
}

/// A region `ccl.cacheinvalid(target)` on exactly this SSA value.
pub fn is_region_cache_invalid_of(names: &Interned, op: OperationRef<'_, '_>, target: Value<'_, '_>) -> bool {
    names.is(Name::of(op), OpKind::CacheInvalid)
        && op.operand_count() == 1
        && op.operand(0).map(|operand| value_key(operand) == value_key(target)).unwrap_or(false)
}

/// Inserts `new` right after `anchor` in `anchor`'s block and returns it.
pub fn insert_after<'c, 'a>(anchor: OperationRef<'c, 'a>, new: Operation<'c>) -> OperationRef<'c, 'a> {
    let block = anchor.block().expect("an op in a block");
    block.insert_operation_after(anchor, new)
}

/// Inserts `new_ops`, in order, at the start of `block`.
pub fn insert_at_start<'c, 'a>(block: BlockRef<'c, 'a>, new_ops: Vec<Operation<'c>>) {
    for (position, op) in new_ops.into_iter().enumerate() {
        block.insert_operation(position, op);
    }
}

// ---------------------------------------------------------------------------
// What the typed views (`ods`) are made of
// ---------------------------------------------------------------------------

/// Whether `count` is between `min` and `max` (no upper bound if `None`).
pub fn count_fits(count: usize, min: usize, max: Option<usize>) -> bool {
    count >= min && max.is_none_or(|max| count <= max)
}

pub fn operand_count(op: OperationRef<'_, '_>) -> usize {
    unsafe { mlir_sys::mlirOperationGetNumOperands(op.to_raw()) as usize }
}

pub fn result_count(op: OperationRef<'_, '_>) -> usize {
    unsafe { mlir_sys::mlirOperationGetNumResults(op.to_raw()) as usize }
}

/// Operand `index` of `op`, with the op's lifetimes (melior's `operand`
/// ties the value to a borrow of the reference). Panics past the end: the
/// views check the count when they are made.
pub fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    assert!(index < operand_count(op), "operand {index} of an op with {}", operand_count(op));
    unsafe { Value::from_raw(mlir_sys::mlirOperationGetOperand(op.to_raw(), index as isize)) }
}

/// Result `index` of `op` as a value, with the op's lifetimes.
pub fn result<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    assert!(index < result_count(op), "result {index} of an op with {}", result_count(op));
    unsafe { Value::from_raw(mlir_sys::mlirOperationGetResult(op.to_raw(), index as isize)) }
}

fn attribute_by_name<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<Attribute<'c>> {
    unsafe { Attribute::from_option_raw(mlir_sys::mlirOperationGetAttributeByName(op.to_raw(), string_ref(name))) }
}

/// The keyword of the ccl enum attribute `name` of `op` (`set` of
/// `#ccl<notify_kind set>`). The C API cannot open a dialect attribute, so
/// the keyword is read from its printed form.
pub fn enum_keyword(op: OperationRef<'_, '_>, name: &str) -> Option<String> {
    let text = attribute_by_name(op, name)?.to_string();
    let inner = text.strip_prefix("#ccl<")?.strip_suffix('>')?;
    inner.split_whitespace().nth(1).map(str::to_string)
}

/// The value of the i64 attribute `name` of `op`.
pub fn i64_attr(op: OperationRef<'_, '_>, name: &str) -> Option<i64> {
    let attribute = attribute_by_name(op, name)?;
    melior::ir::attribute::IntegerAttribute::try_from(attribute).ok().map(|int| int.value())
}

/// The flat symbol reference attribute `name` of `op`.
pub fn flat_symbol_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    flat_symbol_of(attribute_by_name(op, name)?)
}

/// What the views' builders fill in: melior's `OperationBuilder`, with the
/// attribute forms the ccl ops use.
pub struct OpBuilder<'c> {
    location: Location<'c>,
    builder: Option<OperationBuilder<'c>>,
}

impl<'c> OpBuilder<'c> {
    pub fn new(name: &str, location: Location<'c>) -> Self {
        Self { location, builder: Some(OperationBuilder::new(name, location)) }
    }

    fn map(&mut self, f: impl FnOnce(OperationBuilder<'c>) -> OperationBuilder<'c>) {
        self.builder = self.builder.take().map(f);
    }

    pub fn operand(&mut self, value: Value<'c, '_>) {
        self.map(|b| b.add_operands(&[value]));
    }

    pub fn operands(&mut self, values: &[Value<'c, '_>]) {
        self.map(|b| b.add_operands(values));
    }

    pub fn result(&mut self, ty: Type<'c>) {
        self.map(|b| b.add_results(&[ty]));
    }

    pub fn results(&mut self, types: &[Type<'c>]) {
        self.map(|b| b.add_results(types));
    }

    fn context(&self) -> &'c melior::Context {
        context_at(unsafe { mlir_sys::mlirLocationGetContext(self.location.to_raw()) })
    }

    fn attribute(&mut self, name: &str, attribute: Attribute<'c>) {
        let identifier = melior::ir::Identifier::new(self.context(), name);
        self.map(|b| b.add_attributes(&[(identifier, attribute)]));
    }

    /// An attribute given in MLIR's syntax (a dialect enum attribute).
    pub fn parsed_attribute(&mut self, name: &str, text: &str) {
        let attribute = Attribute::parse(self.context(), text).expect("a generated attribute text parses");
        self.attribute(name, attribute);
    }

    pub fn i64_attribute(&mut self, name: &str, value: i64) {
        let ty = melior::ir::r#type::IntegerType::new(self.context(), 64).into();
        self.attribute(name, melior::ir::attribute::IntegerAttribute::new(ty, value).into());
    }

    pub fn flat_symbol_attribute(&mut self, name: &str, symbol: &str) {
        self.attribute(name, FlatSymbolRefAttribute::new(self.context(), symbol).into());
    }

    /// The op; the builders pass operands and attributes the .td asks for,
    /// so MLIR's creation cannot fail on them.
    pub fn build(self) -> Operation<'c> {
        self.builder.expect("builder present").build().expect("a ccl op built from its definition")
    }
}

// ---------------------------------------------------------------------------
// Integers, constants and rewriting
// ---------------------------------------------------------------------------

/// The bit width of an integer or index type (index counts as 64), or `None`
/// for any other type.
pub fn int_width(ty: Type<'_>) -> Option<u32> {
    if ty.is_index() {
        Some(64)
    } else if ty.is_integer() {
        IntegerType::try_from(ty).ok().map(|int| int.width())
    } else {
        None
    }
}

/// The value of an integer attribute of an integer or index type, read as a
/// signed number. Widths up to 64 go through MLIR's accessor; wider ones
/// (i128) through the attribute's decimal text, which MLIR prints exactly.
pub fn int_attribute_value(attribute: Attribute<'_>) -> Option<i128> {
    if !attribute.is_integer() {
        return None;
    }
    let width = int_width(attribute.r#type())?;
    if width <= 64 {
        return IntegerAttribute::try_from(attribute).ok().map(|int| int.signed_value() as i128);
    }
    let text = attribute.to_string();
    text.split(" : ").next()?.trim().parse::<i128>().ok()
}

/// The value of `value` if an `arith.constant` of integer or index type
/// defines it.
pub fn constant_int(names: &Interned, value: Value<'_, '_>) -> Option<i128> {
    let owner = crate::ir::defining_op(value)?;
    if Name::of(owner) != names.arith_constant {
        return None;
    }
    int_width(value.r#type())?;
    int_attribute_value(owner.attribute("value").ok()?)
}

/// An integer attribute `value : ty`, for any integer width or index.
pub fn int_attribute<'c>(ty: Type<'c>, value: i128) -> Attribute<'c> {
    if let Ok(narrow) = i64::try_from(value) {
        return IntegerAttribute::new(ty, narrow).into();
    }
    let text = format!("{value} : {ty}");
    unsafe {
        Attribute::from_option_raw(mlir_sys::mlirAttributeParseGet(
            mlir_sys::mlirTypeGetContext(ty.to_raw()),
            mlir_sys::MlirStringRef { data: text.as_ptr() as *const _, length: text.len() },
        ))
    }
    .expect("an integer literal of an integer type parses")
}

/// Inserts `op` right before `anchor`.
pub fn insert_before<'c, 'a>(anchor: OperationRef<'c, 'a>, op: Operation<'c>) -> OperationRef<'c, 'a> {
    let block = anchor.block().expect("the anchor op is in a block");
    block.insert_operation_before(anchor, op)
}

/// The first result of `op`.
pub fn first_result<'c, 'a>(op: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    op.result(0).expect("the op has a result").into()
}

/// Replaces every use of `old` with `new`.
pub fn replace_all_uses(old: Value<'_, '_>, new: Value<'_, '_>) {
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// Erases `op` (it must have no uses left). The reference must not be used
/// afterwards.
pub fn erase(op: OperationRef<'_, '_>) {
    unsafe {
        // Detach first: the C API destroys ops the caller owns.
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirOperationDestroy(op.to_raw());
    }
}

/// Whether `first` properly dominates `later` by structure alone: `later` is
/// in `first`'s block, or nested in an op of that block, after `first`.
/// Anything else (other blocks of a CFG region, sibling branches) is "no":
/// the pass only relies on this to merge, so "no" is always safe.
pub fn dominates_structurally<'c, 'a>(first: OperationRef<'c, 'a>, later: OperationRef<'c, 'a>) -> bool {
    let Some(block) = first.block() else { return false };
    let mut current = later;
    loop {
        match current.block() {
            Some(b) if b == block => {
                return current != first && first.is_before_in_block(current);
            }
            _ => match current.parent_operation() {
                Some(parent) => current = parent,
                None => return false,
            },
        }
    }
}

/// Sets (or replaces) the attribute `name` of `op`.
pub fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attribute: Attribute<'c>) {
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(
            op.to_raw(),
            mlir_sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() },
            attribute.to_raw(),
        )
    }
}

/// The context `op` lives in, as the `&Context` melior's builders take.
pub fn context_of<'c>(op: OperationRef<'c, '_>) -> &'c melior::Context {
    context_at(unsafe { mlir_sys::mlirOperationGetContext(op.to_raw()) })
}

/// The context of `ty`.
pub fn context<'c>(ty: Type<'c>) -> &'c melior::Context {
    context_at(unsafe { mlir_sys::mlirTypeGetContext(ty.to_raw()) })
}

/// A `&Context` for a raw context. melior hands out contexts only by value
/// (`ContextRef`) or behind the owner's borrow, so each raw context gets one
/// `Context` value that is never dropped (dropping would destroy the MLIR
/// context), made on first sight and kept for the process: a pointer's
/// worth per context ever used. A reused address names the new context,
/// which is all the value holds.
fn context_at<'c>(raw: mlir_sys::MlirContext) -> &'c melior::Context {
    use std::{collections::HashMap, sync::Mutex};
    // A `ContextRef` (which never destroys its context) kept for the
    // process; melior's `to_ref` views it as a `Context`.
    // Keyed and held by address: the values are only read back here.
    static CONTEXTS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);
    let mut known = CONTEXTS.lock().unwrap_or_else(|poison| poison.into_inner());
    let address = *known.get_or_insert_with(HashMap::new).entry(raw.ptr as usize).or_insert_with(|| {
        let kept: &'static melior::ContextRef<'static> =
            Box::leak(Box::new(unsafe { melior::ContextRef::from_raw(raw) }));
        kept as *const melior::ContextRef<'static> as usize
    });
    unsafe { (*(address as *const melior::ContextRef<'c>)).to_ref() }
}

/// Sets the i64 attribute `name` of `op` to `value`.
pub fn set_i64_attr(op: OperationRef<'_, '_>, name: &str, value: i64) {
    let ty = IntegerType::new(context_of(op), 64).into();
    set_attribute(op, name, IntegerAttribute::new(ty, value).into());
}

/// Where a location points in the source (file, line, column), through
/// name, call-site and fused locations; the empty file for none. Orders
/// diagnostics by source position.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourcePosition {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

pub fn source_position(location: Location<'_>) -> SourcePosition {
    unsafe { position_of(location.to_raw()) }.unwrap_or_default()
}

unsafe fn position_of(loc: mlir_sys::MlirLocation) -> Option<SourcePosition> {
    use mlir_sys::*;
    if loc.ptr.is_null() {
        return None;
    }
    if mlirLocationIsAFileLineColRange(loc) {
        let name = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
        return Some(SourcePosition {
            file: String::from_utf8_lossy(bytes_of(name)).into_owned(),
            line: mlirLocationFileLineColRangeGetStartLine(loc).max(0) as u32,
            col: mlirLocationFileLineColRangeGetStartColumn(loc).max(0) as u32,
        });
    }
    if mlirLocationIsAName(loc) {
        return position_of(mlirLocationNameGetChildLoc(loc));
    }
    if mlirLocationIsACallSite(loc) {
        return position_of(mlirLocationCallSiteGetCaller(loc));
    }
    if mlirLocationIsAFused(loc) {
        let count = mlirLocationFusedGetNumLocations(loc);
        let mut locations = vec![MlirLocation { ptr: std::ptr::null() }; count as usize];
        mlirLocationFusedGetLocations(loc, locations.as_mut_ptr());
        return locations.into_iter().find_map(|inner| position_of(inner));
    }
    None
}

// ---------------------------------------------------------------------------
// Building kernels (memref views, blocks)
// ---------------------------------------------------------------------------

/// A static or dynamic offset or size of a view.
#[derive(Clone, Copy)]
pub enum Extent<'c, 'a> {
    Static(i64),
    Dynamic(Value<'c, 'a>),
}

/// MLIR's marker for a dynamic size, offset or stride in shaped types and
/// the static arrays of view ops.
pub fn dynamic_extent() -> i64 {
    unsafe { mlir_sys::mlirShapedTypeGetDynamicStrideOrOffset() }
}

/// The shape, element type and memory space of a ranked memref type.
pub fn memref_parts(ty: Type<'_>) -> Option<(Vec<i64>, Type<'_>, Option<Attribute<'_>>)> {
    unsafe {
        let raw = ty.to_raw();
        if !mlir_sys::mlirTypeIsAMemRef(raw) {
            return None;
        }
        let shape = (0..mlir_sys::mlirShapedTypeGetRank(raw))
            .map(|i| mlir_sys::mlirShapedTypeGetDimSize(raw, i as isize))
            .collect();
        let element = Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw));
        let space = Attribute::from_option_raw(mlir_sys::mlirMemRefTypeGetMemorySpace(raw));
        Some((shape, element, space))
    }
}

/// Whether a memref type has the identity layout (rows laid out one after
/// the other, so its elements can be viewed as one flat run).
pub fn has_identity_layout(ty: Type<'_>) -> bool {
    unsafe {
        let raw = ty.to_raw();
        mlir_sys::mlirTypeIsAMemRef(raw) && mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(raw))
    }
}

/// Whether a dimension size is dynamic.
pub fn is_dynamic_size(size: i64) -> bool {
    size == unsafe { mlir_sys::mlirShapedTypeGetDynamicSize() }
}

/// `memref<shape x element, strided<strides, offset: ?>, space>`.
pub fn strided_memref<'c>(element: Type<'c>, shape: &[i64], strides: &[i64], space: Option<Attribute<'c>>) -> Type<'c> {
    unsafe {
        let context = mlir_sys::mlirTypeGetContext(element.to_raw());
        let layout =
            mlir_sys::mlirStridedLayoutAttrGet(context, dynamic_extent(), strides.len() as isize, strides.as_ptr());
        let space = space.map(|s| s.to_raw()).unwrap_or(mlir_sys::MlirAttribute { ptr: std::ptr::null() });
        Type::from_raw(mlir_sys::mlirMemRefTypeGet(
            element.to_raw(),
            shape.len() as isize,
            shape.as_ptr(),
            layout,
            space,
        ))
    }
}

fn dense_i64<'c>(context: &'c melior::Context, values: &[i64]) -> Attribute<'c> {
    melior::ir::attribute::DenseI64ArrayAttribute::new(context, values).into()
}

/// A new `memref.subview` of `source` with unit strides, not yet inserted.
pub fn subview<'c>(
    location: Location<'c>,
    source: Value<'c, '_>,
    offsets: &[Extent<'c, '_>],
    sizes: &[Extent<'c, '_>],
    result: Type<'c>,
) -> Operation<'c> {
    let context = context_at(unsafe { mlir_sys::mlirLocationGetContext(location.to_raw()) });
    let (static_offsets, dynamic_offsets) = split_extents(offsets);
    let (static_sizes, dynamic_sizes) = split_extents(sizes);
    let ones = vec![1i64; offsets.len()];
    let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(
        context,
        &[1, dynamic_offsets.len() as i32, dynamic_sizes.len() as i32, 0],
    );
    let id = |name: &str| melior::ir::Identifier::new(context, name);
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
                statics.push(dynamic_extent());
                dynamics.push(value);
            }
        }
    }
    (statics, dynamics)
}

/// A new `memref.collapse_shape` of every dimension of `source` into one.
pub fn collapse_all<'c>(location: Location<'c>, source: Value<'c, '_>, result: Type<'c>) -> Operation<'c> {
    let context = context_at(unsafe { mlir_sys::mlirLocationGetContext(location.to_raw()) });
    let rank = memref_parts(source.r#type()).map(|(shape, _, _)| shape.len()).unwrap_or(1);
    let group = format!("[[{}]]", (0..rank).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    let reassociation = Attribute::parse(context, &group).expect("an array of index arrays parses");
    OperationBuilder::new("memref.collapse_shape", location)
        .add_operands(&[source])
        .add_results(&[result])
        .add_attributes(&[(melior::ir::Identifier::new(context, "reassociation"), reassociation)])
        .build()
        .expect("a well-formed memref.collapse_shape")
}

/// Argument `index` of `block`, with the block's lifetimes.
pub fn block_argument<'c, 'a>(block: BlockRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    assert!(index < block.argument_count(), "argument {index} of a block with {}", block.argument_count());
    unsafe { Value::from_raw(mlir_sys::mlirBlockGetArgument(block.to_raw(), index as isize)) }
}

/// The first block of region `index` of `op`.
pub fn first_block_of<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<BlockRef<'c, 'a>> {
    regions(op).nth(index)?.first_block()
}

/// A location named `name` around `child` (`loc("name"(child))`): ops of
/// one step of a synthesized kernel say which step they are.
pub fn named_location<'c>(name: &str, child: Location<'c>) -> Location<'c> {
    unsafe {
        let context = mlir_sys::mlirLocationGetContext(child.to_raw());
        Location::from_raw(mlir_sys::mlirLocationNameGet(context, string_ref(name), child.to_raw()))
    }
}

/// The i64 value of discardable attribute `name` of `op`.
pub fn discardable_i64_attr(op: OperationRef<'_, '_>, name: &str) -> Option<i64> {
    let raw = unsafe { mlir_sys::mlirOperationGetDiscardableAttributeByName(op.to_raw(), string_ref(name)) };
    let attribute: Attribute<'_> = unsafe { Attribute::from_option_raw(raw) }?;
    melior::ir::attribute::IntegerAttribute::try_from(attribute).ok().map(|int| int.value())
}

/// A reference to an op not inserted anywhere yet (to fill its regions).
pub fn as_ref<'c, 'o>(op: &'o Operation<'c>) -> OperationRef<'c, 'o> {
    unsafe { OperationRef::from_raw(op.to_raw()) }
}
