//! Changing the IR through shared references: melior moves, erases and
//! rewires only through `&mut`, which a pass walking the IR with shared
//! references cannot have. Each function says what stays valid.

use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, Value, ValueLike};

/// Moves `op` (in a block already) to right after `anchor`, or to the
/// start of `block` when there is no anchor; whether it was elsewhere.
pub fn move_to<'c, 'a>(
    op: OperationRef<'c, 'a>,
    anchor: Option<OperationRef<'c, 'a>>,
    block: BlockRef<'c, 'a>,
) -> bool {
    match anchor {
        Some(anchor) => {
            if anchor.next_in_block() == Some(op) {
                return false;
            }
            // SAFETY: both ops are live and in blocks; moving keeps every
            // reference to them valid.
            unsafe { mlir_sys::mlirOperationMoveAfter(op.to_raw(), anchor.to_raw()) }
        }
        None => match block.first_operation() {
            Some(first) if first == op => return false,
            // SAFETY: as above.
            Some(first) => unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), first.to_raw()) },
            None => unreachable!("a block that holds an op to move before is not empty"),
        },
    }
    true
}

/// Replaces every use of `old` with `new`.
pub fn replace_all_uses(old: Value<'_, '_>, new: Value<'_, '_>) {
    // SAFETY: both values are live; the users stay valid.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// Erases `op`, which must have no uses left. Taking it by value does not
/// stop copies of the reference: none may be used afterwards (the passes
/// collect what to erase, then erase it and drop their references).
pub fn erase(op: OperationRef<'_, '_>) {
    // SAFETY: `op` is live and in a block: detached first, it is the
    // caller's to destroy (the C API destroys ops the caller owns).
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirOperationDestroy(op.to_raw());
    }
}
