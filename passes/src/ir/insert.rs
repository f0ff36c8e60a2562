//! Placing new ops next to existing ones, with the block's lifetimes.

use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, Operation, OperationRef, Value};

/// Inserts `op` right before `anchor`.
pub fn insert_before<'c, 'a>(anchor: OperationRef<'c, 'a>, op: Operation<'c>) -> OperationRef<'c, 'a> {
    let block = anchor.block().expect("the anchor op is in a block");
    block.insert_operation_before(anchor, op)
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

/// The first result of `op`.
pub fn first_result<'c, 'a>(op: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    op.result(0).expect("the op has a result").into()
}
