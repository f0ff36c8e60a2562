//! Walking the IR: the ops of a block (either way, and the links between
//! them melior lacks), the blocks of a region and the
//! regions of an op as the linked lists MLIR keeps, and a pre-order walk of
//! everything nested in an op that needs no stack per nesting level and no
//! allocation per op.

use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike, RegionRef};

/// The ops of `block`, first to last (the terminator included).
pub fn ops<'c, 'a>(block: BlockRef<'c, 'a>) -> impl Iterator<Item = OperationRef<'c, 'a>> {
    std::iter::successors(block.first_operation(), |op| op.next_in_block())
}

/// The op before `op` in its block; `None` for the first op (or an op in
/// no block). melior's `previous_in_block` panics (MLIR's C API has no such
/// link); this goes through the glue.
pub fn previous_in_block<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: `op` is live; the op before it (or null) is live in the same
    // block.
    unsafe { OperationRef::from_option_raw(super::sys::cclOperationGetPrevInBlock(op.to_raw())) }
}

/// The last op of `block`, whatever it is (melior's `terminator` is only an
/// op with the terminator trait); `None` for an empty block.
pub fn last_in_block<'c, 'a>(block: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: `block` is live; its last op (or null) is live in it.
    unsafe { OperationRef::from_option_raw(super::sys::cclBlockGetLastOperation(block.to_raw())) }
}

/// The ops of `block`, last to first.
pub fn ops_reversed<'c, 'a>(block: BlockRef<'c, 'a>) -> impl Iterator<Item = OperationRef<'c, 'a>> {
    std::iter::successors(last_in_block(block), |op| previous_in_block(*op))
}

/// The blocks of `region`, in region order.
pub fn blocks<'c, 'a>(region: RegionRef<'c, 'a>) -> impl Iterator<Item = BlockRef<'c, 'a>> {
    std::iter::successors(region.first_block(), |block| block.next_in_region())
}

/// The regions of `op`, in order.
pub fn regions<'c, 'a>(op: OperationRef<'c, 'a>) -> impl Iterator<Item = RegionRef<'c, 'a>> {
    // Linked like blocks and ops, so no index (melior's `region(i)` checks
    // bounds and builds an error value on every call).
    // SAFETY: `op` is live; its first region (or null) is part of it.
    let first = unsafe { RegionRef::from_option_raw(mlir_sys::mlirOperationGetFirstRegion(op.to_raw())) };
    std::iter::successors(first, |region| {
        // SAFETY: `region` is a live region of `op`; the next one (or null)
        // is too.
        unsafe { RegionRef::from_option_raw(mlir_sys::mlirRegionGetNextInOperation(region.to_raw())) }
    })
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
/// C API calls (next op, first region) and no allocation.
///
/// `visit` may erase ops ([`crate::ffi::rewrite::Erasures`]): the op it was
/// given (whose regions the walk then skips), the op after it, or ops
/// around the walk; the walk goes on after the last op it visited at each
/// level, and leaves an erased op's regions. It panics if a visit erased
/// (or moved to another block) both the op it was given and the one after
/// it: collect such ops, then erase them after the walk. Erased ops stay
/// allocated until their scope ends, so no case reads freed memory.
/// Moving ops within their block is not seen: the walk goes on from where
/// the op now is.
pub fn walk_nested<'c, 'a>(root: OperationRef<'c, 'a>, mut visit: impl FnMut(OperationRef<'c, 'a>) -> Walk) {
    let root = root.to_raw();
    // Room for the usual nesting, so a walk of a function allocates once.
    let mut stack: Vec<Position> = Vec::with_capacity(16);
    stack.extend(Position::first_in(root));
    while let Some(top) = stack.last_mut() {
        let Some(op) = top.op else {
            stack.pop();
            continue;
        };
        top.last = (op, top.block, top.region);
        top.advance();
        let erased = super::rewrite::erased_so_far();
        // SAFETY: `op` was reached from `root` by the links MLIR keeps, and
        // ops erased since are destroyed only when their scope ends, after
        // this walk: it is live for `'a`.
        let walk = visit(unsafe { OperationRef::from_raw(op) });
        if super::rewrite::erased_so_far() != erased {
            repair(&mut stack, root);
            if !is_in_tree(op, root) {
                continue;
            }
        }
        if walk == Walk::Advance {
            stack.extend(Position::first_in(op));
        }
    }
}

/// After a visit that erased ops: drops the levels inside an erased op, and
/// moves each level whose next op left its block to the op after the last
/// one it visited.
fn repair(stack: &mut Vec<Position>, root: mlir_sys::MlirOperation) {
    for level in 0..stack.len() {
        if !is_in_tree(stack[level].parent, root) {
            stack.truncate(level);
            return;
        }
        let position = &mut stack[level];
        let Some(next) = position.op else { continue };
        if block_of(next) != position.block.ptr {
            let (last, block, region) = position.last;
            assert!(
                block_of(last) == block.ptr,
                "ir::walk_nested: a visit erased both the op it was given and the op after it; collect the ops, \
                 then erase them after the walk"
            );
            (position.op, position.block, position.region) = (Some(last), block, region);
            position.advance();
        }
    }
}

/// The block `op` is in (null for none).
fn block_of(op: mlir_sys::MlirOperation) -> *mut std::ffi::c_void {
    // SAFETY: `op` is live (erased ops too, until their scope ends).
    unsafe { mlir_sys::mlirOperationGetBlock(op) }.ptr
}

/// Whether `op` is `root` or nested in it (an erased op is in a detached
/// holder instead).
fn is_in_tree(op: mlir_sys::MlirOperation, root: mlir_sys::MlirOperation) -> bool {
    let mut at = op;
    while !at.ptr.is_null() {
        if at.ptr == root.ptr {
            return true;
        }
        // SAFETY: `at` is live; its parent (or null) is too.
        at = unsafe { mlir_sys::mlirOperationGetParentOperation(at) };
    }
    false
}

/// A walk's place at one nesting level: the next op to visit (`None` when
/// the level is done) and the block and region it is in (to go on when the
/// block ends), the same of the last op visited, and the op whose regions
/// the level walks. Every handle in it was reached from the walk's root by
/// MLIR's own links.
struct Position {
    op: Option<mlir_sys::MlirOperation>,
    block: mlir_sys::MlirBlock,
    region: mlir_sys::MlirRegion,
    last: (mlir_sys::MlirOperation, mlir_sys::MlirBlock, mlir_sys::MlirRegion),
    parent: mlir_sys::MlirOperation,
}

impl Position {
    /// The first op of `parent`'s regions, skipping empty blocks and regions.
    fn first_in(parent: mlir_sys::MlirOperation) -> Option<Self> {
        // SAFETY: `parent` is a live op of the walk.
        let (op, block, region) = Self::first_from(unsafe { mlir_sys::mlirOperationGetFirstRegion(parent) })?;
        Some(Self { op: Some(op), block, region, last: (op, block, region), parent })
    }

    /// The first op in `region` or the regions after it, with its block
    /// and region.
    fn first_from(
        mut region: mlir_sys::MlirRegion,
    ) -> Option<(mlir_sys::MlirOperation, mlir_sys::MlirBlock, mlir_sys::MlirRegion)> {
        use mlir_sys::*;
        while !region.ptr.is_null() {
            // SAFETY: `region` is a live region of the walk (not null).
            let mut block = unsafe { mlirRegionGetFirstBlock(region) };
            while !block.ptr.is_null() {
                // SAFETY: `block` is a live block of `region` (not null).
                let op = unsafe { mlirBlockGetFirstOperation(block) };
                if !op.ptr.is_null() {
                    return Some((op, block, region));
                }
                // SAFETY: as above.
                block = unsafe { mlirBlockGetNextInRegion(block) };
            }
            // SAFETY: `region` is live (not null).
            region = unsafe { mlirRegionGetNextInOperation(region) };
        }
        None
    }

    /// Moves past the current op (to `None` when this level has no op left).
    fn advance(&mut self) {
        use mlir_sys::*;
        let Some(op) = self.op else { return };
        // SAFETY: the position's op is live.
        let next = unsafe { mlirOperationGetNextInBlock(op) };
        if !next.ptr.is_null() {
            self.op = Some(next);
            return;
        }
        // SAFETY: the position's block is live.
        let mut block = unsafe { mlirBlockGetNextInRegion(self.block) };
        while !block.ptr.is_null() {
            // SAFETY: `block` is a live block (not null).
            let op = unsafe { mlirBlockGetFirstOperation(block) };
            if !op.ptr.is_null() {
                (self.op, self.block) = (Some(op), block);
                return;
            }
            // SAFETY: as above.
            block = unsafe { mlirBlockGetNextInRegion(block) };
        }
        // SAFETY: the position's region is live.
        self.op = match Self::first_from(unsafe { mlirRegionGetNextInOperation(self.region) }) {
            Some((op, block, region)) => {
                (self.block, self.region) = (block, region);
                Some(op)
            }
            None => None,
        };
    }
}
