//! Reading an op where melior has no wrapper, or one that costs more than
//! the passes can pay per op: its name with the context's lifetime, its
//! regions as a linked list, its operands and results with the op's own
//! lifetimes, the op or block that defines a value, the blocks a
//! terminator branches to, and operand segments.

use super::keys::BlockKey;
use melior::ir::{
    block::BlockLike, operation::OperationLike, AttributeLike, BlockRef, Operation, OperationRef, Value, ValueLike,
};

/// The name of `op` (`scf.for`), borrowed from the context.
pub fn op_name<'c>(op: OperationRef<'c, '_>) -> &'c str {
    std::str::from_utf8(super::identifiers::name_bytes(op)).unwrap_or("")
}

/// The op defining `value`, or `None` for a block argument.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // Not melior's `OperationResult::try_from`: on a block argument it
    // prints the value into its error.
    let raw = value.to_raw();
    // SAFETY: `value` is live; an op result's owner is a live op of the
    // same IR.
    unsafe { mlir_sys::mlirValueIsAOpResult(raw).then(|| OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw))) }
}

/// The block `value` is defined in: its defining op's block, or the block
/// a block argument belongs to.
pub fn owner_block<'c, 'a>(value: Value<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    match defining_op(value) {
        Some(op) => op.block(),
        // A value is an op result or a block argument.
        // SAFETY: `value` is a live block argument; its owner (or null) is
        // a live block.
        None => unsafe { BlockRef::from_option_raw(mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())) },
    }
}

/// Whether anything uses `value` (an op that does must not be erased:
/// replace its uses first).
pub fn has_uses(value: Value<'_, '_>) -> bool {
    // SAFETY: `value` is live; its first use (or null) is only compared.
    !unsafe { mlir_sys::mlirValueGetFirstUse(value.to_raw()) }.ptr.is_null()
}

pub fn operand_count(op: OperationRef<'_, '_>) -> usize {
    // SAFETY: `op` is live.
    unsafe { mlir_sys::mlirOperationGetNumOperands(op.to_raw()) as usize }
}

pub fn result_count(op: OperationRef<'_, '_>) -> usize {
    // SAFETY: `op` is live.
    unsafe { mlir_sys::mlirOperationGetNumResults(op.to_raw()) as usize }
}

/// Operand `index` of `op`, with the op's lifetimes (melior's `operand`
/// ties the value to a borrow of the reference). Panics past the end: the
/// views check the count when they are made.
pub fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    assert!(index < operand_count(op), "operand {index} of an op with {}", operand_count(op));
    // SAFETY: `op` is live and has an operand at `index` (checked above).
    unsafe { Value::from_raw(mlir_sys::mlirOperationGetOperand(op.to_raw(), index as isize)) }
}

/// Result `index` of `op` as a value, with the op's lifetimes.
pub fn result<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    assert!(index < result_count(op), "result {index} of an op with {}", result_count(op));
    // SAFETY: `op` is live and has a result at `index` (checked above).
    unsafe { Value::from_raw(mlir_sys::mlirOperationGetResult(op.to_raw(), index as isize)) }
}

/// Argument `index` of `block`, with the block's lifetimes.
pub fn block_argument<'c, 'a>(block: BlockRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    assert!(index < block.argument_count(), "argument {index} of a block with {}", block.argument_count());
    // SAFETY: `block` is live and has an argument at `index` (checked above).
    unsafe { Value::from_raw(mlir_sys::mlirBlockGetArgument(block.to_raw(), index as isize)) }
}

/// The blocks the terminator of `block` branches to, in successor order;
/// none for a block that leaves its region (or has no terminator).
pub fn successors(block: BlockRef<'_, '_>) -> Vec<BlockKey> {
    // SAFETY: `block` is live; its terminator (or null) and that op's
    // successors are live objects of the same region.
    unsafe {
        let terminator = mlir_sys::mlirBlockGetTerminator(block.to_raw());
        if terminator.ptr.is_null() {
            return Vec::new();
        }
        (0..mlir_sys::mlirOperationGetNumSuccessors(terminator))
            .map(|i| BlockKey::of_raw(mlir_sys::mlirOperationGetSuccessor(terminator, i)))
            .collect()
    }
}

/// The operand range of segment `index` of an op with `operandSegmentSizes`
/// (`scf.parallel`, `scf.forall`), or `None` when the op has no such
/// attribute or it is malformed.
pub fn operand_segment(op: OperationRef<'_, '_>, index: usize) -> Option<std::ops::Range<usize>> {
    let sizes = op.attribute("operandSegmentSizes").ok()?;
    // melior has no safe accessor for a DenseI32ArrayAttr of unknown origin.
    let raw = sizes.to_raw();
    // SAFETY: `raw` is a live attribute; the element reads are checked
    // against its kind (dense i32 array) and length first.
    unsafe {
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
        let end = (start + len).min(operand_count(op));
        Some(start.min(end)..end)
    }
}

/// A borrowed reference to an owned op (to fill its regions before it is
/// inserted, or to run passes on a module the caller owns).
pub fn as_ref<'c, 'o>(op: &'o Operation<'c>) -> OperationRef<'c, 'o> {
    // SAFETY: `op` is owned and alive for `'o`, the reference's lifetime.
    unsafe { OperationRef::from_raw(op.to_raw()) }
}
