//! Small, generic IR helpers every ccl pass can share: walking blocks and
//! ops, reading function attributes (`ccl.kind`, level/role), recognising
//! window-bound memrefs, resolving `callee` symbols, and creating the two
//! marker ops (`ccl.fence`, `ccl.cacheinvalid`) with melior's
//! `OperationBuilder`.
//!
//! Nothing here knows about a particular pass. Where melior has no wrapper
//! (operation names with the context's lifetime, memory spaces of unranked
//! memrefs), a helper calls mlir-sys directly and says so.

use crate::names::{self, FunctionKind};
use melior::ir::{
    attribute::{AttributeLike, FlatSymbolRefAttribute, StringAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationResult},
    r#type::TypeLike,
    Attribute, BlockRef, Location, Operation, OperationRef, RegionLike, RegionRef, Type, Value,
    ValueLike,
};
use std::{collections::HashMap, fmt};

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
    (0..op.region_count()).filter_map(move |index| op.region(index).ok())
}

/// Calls `visit` once on every op nested in `op`'s regions (not on `op`
/// itself), with an explicit worklist (no recursion, so nesting depth cannot
/// exhaust the stack). Ops of one block are visited in order, but a nested
/// block is visited after the rest of its enclosing block: do not rely on
/// pre-order.
pub fn for_each_nested_op<'c, 'a>(op: OperationRef<'c, 'a>, mut visit: impl FnMut(OperationRef<'c, 'a>)) {
    let mut worklist: Vec<BlockRef<'c, 'a>> = regions(op).flat_map(blocks).collect();
    worklist.reverse();
    while let Some(block) = worklist.pop() {
        for inner in ops(block) {
            visit(inner);
            let mut nested: Vec<BlockRef<'c, 'a>> = regions(inner).flat_map(blocks).collect();
            nested.reverse();
            worklist.extend(nested);
        }
    }
}

/// Whether `op` ends its block as a terminator: a name DIALECT.md lists
/// (`scf.yield`, ...), or an op MLIR knows as a terminator at the end of its
/// block (`scf.forall.in_parallel`, `cf.br`).
pub fn is_terminator(op: OperationRef<'_, '_>) -> bool {
    if names::is_terminator_name(op_name(op)) {
        return true;
    }
    match op.block().and_then(|block| block.terminator()) {
        Some(terminator) => terminator == op,
        None => false,
    }
}

/// DIALECT.md's side-effect-free ops (`arith`, `index`, `math`, the pure
/// ccl ops) and terminators.
pub fn is_side_effect_free(op: OperationRef<'_, '_>) -> bool {
    names::is_side_effect_free(op_name(op)) || is_terminator(op)
}

/// The op defining `value`, or `None` for a block argument.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    OperationResult::try_from(value).ok().map(|result| result.owner())
}

/// An identity for hashing IR objects within one pass run (the objects
/// must outlive the map).
pub fn op_key(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

pub fn value_key(value: Value<'_, '_>) -> usize {
    value.to_raw().ptr as usize
}

pub fn region_key(region: RegionRef<'_, '_>) -> usize {
    region.to_raw().ptr as usize
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
    let attribute: Attribute<'c> = op.attribute(name).ok()?;
    StringAttribute::try_from(attribute).ok().map(|s| s.value())
}

/// A `ccl.kind` that DIALECT.md does not list (or that is not a string).
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

/// What a function is (DIALECT.md, "Functions"): its `ccl.kind` (default
/// `opaque`), with `ccl.level = "host"` plus `ccl.role = "orchestrator"`
/// making a non-InCore function orchestration-like. An explicit InCore kind
/// wins over level/role: a device kernel is never a scan target.
pub fn function_kind(func: OperationRef<'_, '_>) -> Result<FunctionKind, UnknownKind> {
    let kind = match func.attribute(names::ATTR_KIND) {
        Err(_) => FunctionKind::Other,
        Ok(attribute) => match StringAttribute::try_from(attribute) {
            Ok(text) => FunctionKind::from_kind(text.value())
                .ok_or_else(|| UnknownKind { value: attribute.to_string() })?,
            Err(_) => return Err(UnknownKind { value: attribute.to_string() }),
        },
    };
    if kind != FunctionKind::InCore && is_host_orchestrator(func) {
        return Ok(FunctionKind::Orchestration);
    }
    Ok(kind)
}

/// `ccl.level = "host"` together with `ccl.role = "orchestrator"`.
pub fn is_host_orchestrator(func: OperationRef<'_, '_>) -> bool {
    string_attr(func, names::ATTR_LEVEL) == Some("host") && string_attr(func, names::ATTR_ROLE) == Some("orchestrator")
}

/// The symbol name of a symbol op (`sym_name`).
pub fn symbol_name<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    string_attr(op, "sym_name")
}

/// The flat symbol a call-like op (`func.call`, `ccl.submit`) names in its
/// `callee` attribute; `None` when absent or nested (`@a::@b`).
pub fn callee_symbol<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    let attribute: Attribute<'c> = op.attribute(names::ATTR_CALLEE).ok()?;
    FlatSymbolRefAttribute::try_from(attribute).ok().map(|s| s.value())
}

/// The entry block of a function, or `None` for a declaration.
pub fn entry_block<'c, 'a>(func: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    func.region(0).ok()?.first_block()
}

/// The symbols defined directly in a module's body, by name: a flat symbol
/// table for resolving `callee`s. Later definitions of a name do not replace
/// earlier ones (the verifier rejects duplicates anyway).
pub struct SymbolTable<'c, 'a> {
    symbols: HashMap<&'c str, OperationRef<'c, 'a>>,
}

impl<'c, 'a> SymbolTable<'c, 'a> {
    pub fn of_module(module: OperationRef<'c, 'a>) -> Self {
        let mut symbols = HashMap::new();
        for block in regions(module).flat_map(blocks) {
            for op in ops(block) {
                if let Some(name) = symbol_name(op) {
                    symbols.entry(name).or_insert(op);
                }
            }
        }
        Self { symbols }
    }

    pub fn lookup(&self, name: &str) -> Option<OperationRef<'c, 'a>> {
        self.symbols.get(name).copied()
    }

    /// The `func.func` called `name`; `None` for an undefined symbol or a
    /// symbol that is not a function.
    pub fn lookup_function(&self, name: &str) -> Option<OperationRef<'c, 'a>> {
        self.lookup(name).filter(|op| op_name(*op) == names::FUNC)
    }
}

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

/// Whether `ty` is a memref (ranked or unranked) in the `#ccl.window`
/// memory space.
pub fn is_window_memref_type(ty: Type<'_>) -> bool {
    // melior wraps only ranked memrefs; the memory-space getters are C API.
    let space = unsafe {
        let raw = ty.to_raw();
        if mlir_sys::mlirTypeIsAMemRef(raw) {
            mlir_sys::mlirMemRefTypeGetMemorySpace(raw)
        } else if mlir_sys::mlirTypeIsAUnrankedMemRef(raw) {
            mlir_sys::mlirUnrankedMemrefGetMemorySpace(raw)
        } else {
            return false;
        }
    };
    if space.ptr.is_null() {
        return false;
    }
    let space = unsafe { Attribute::from_raw(space) };
    space.to_string() == names::WINDOW_SPACE
}

/// Whether `value` is a window-bound memref (DIALECT.md, "Buffers").
pub fn is_window_bound(value: Value<'_, '_>) -> bool {
    is_window_memref_type(value.r#type())
}

// ---------------------------------------------------------------------------
// Markers
// ---------------------------------------------------------------------------

/// A new `ccl.fence` at `location`, not yet inserted.
pub fn create_fence<'c>(location: Location<'c>) -> Operation<'c> {
    OperationBuilder::new(names::FENCE, location).build().expect("ccl.fence builds")
}

/// A new `ccl.cacheinvalid` at `location`: the region form on `target`, or
/// the whole-GM form when `target` is `None`.
pub fn create_cache_invalid<'c>(location: Location<'c>, target: Option<Value<'c, '_>>) -> Operation<'c> {
    let builder = OperationBuilder::new(names::CACHE_INVALID, location);
    let builder = match target {
        Some(value) => builder.add_operands(&[value]),
        None => builder,
    };
    builder.build().expect("ccl.cacheinvalid builds")
}

pub fn is_fence(op: OperationRef<'_, '_>) -> bool {
    op_name(op) == names::FENCE
}

/// A whole-GM `ccl.cacheinvalid()` (no operand).
pub fn is_whole_cache_invalid(op: OperationRef<'_, '_>) -> bool {
    op_name(op) == names::CACHE_INVALID && op.operand_count() == 0
}

/// A region `ccl.cacheinvalid(target)` on exactly this SSA value.
pub fn is_region_cache_invalid_of(op: OperationRef<'_, '_>, target: Value<'_, '_>) -> bool {
    op_name(op) == names::CACHE_INVALID
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
