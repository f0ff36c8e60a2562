//! Walking the IR: the ops of a block, the blocks of a region and the
//! regions of an op as the linked lists MLIR keeps, and a pre-order walk of
//! everything nested in an op that needs no stack per nesting level and no
//! allocation per op.

use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike, RegionRef};

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
        // SAFETY: `op` was reached from `root` by the links MLIR keeps, and
        // `visit` changes no op (its contract), so it is live for `'a`.
        if visit(unsafe { OperationRef::from_raw(op) }) == Walk::Advance {
            stack.extend(Position::first_in(op));
        }
    }
}

/// A walk's place at one nesting level: the next op to visit, and the
/// block and region it is in (to go on when the block ends). Every handle
/// in it was reached from the walk's root by MLIR's own links.
struct Position {
    op: mlir_sys::MlirOperation,
    block: mlir_sys::MlirBlock,
    region: mlir_sys::MlirRegion,
}

impl Position {
    /// The first op of `parent`'s regions, skipping empty blocks and regions.
    fn first_in(parent: mlir_sys::MlirOperation) -> Option<Self> {
        // SAFETY: `parent` is a live op of the walk.
        Self::first_from(unsafe { mlir_sys::mlirOperationGetFirstRegion(parent) })
    }

    /// The first op in `region` or the regions after it.
    fn first_from(mut region: mlir_sys::MlirRegion) -> Option<Self> {
        use mlir_sys::*;
        while !region.ptr.is_null() {
            // SAFETY: `region` is a live region of the walk (not null).
            let mut block = unsafe { mlirRegionGetFirstBlock(region) };
            while !block.ptr.is_null() {
                // SAFETY: `block` is a live block of `region` (not null).
                let op = unsafe { mlirBlockGetFirstOperation(block) };
                if !op.ptr.is_null() {
                    return Some(Self { op, block, region });
                }
                // SAFETY: as above.
                block = unsafe { mlirBlockGetNextInRegion(block) };
            }
            // SAFETY: `region` is live (not null).
            region = unsafe { mlirRegionGetNextInOperation(region) };
        }
        None
    }

    /// Moves past the current op; false when this level has no op left.
    fn advance(&mut self) -> bool {
        use mlir_sys::*;
        // SAFETY: the position's op is live.
        let next = unsafe { mlirOperationGetNextInBlock(self.op) };
        if !next.ptr.is_null() {
            self.op = next;
            return true;
        }
        // SAFETY: the position's block is live.
        let mut block = unsafe { mlirBlockGetNextInRegion(self.block) };
        while !block.ptr.is_null() {
            // SAFETY: `block` is a live block (not null).
            let op = unsafe { mlirBlockGetFirstOperation(block) };
            if !op.ptr.is_null() {
                (self.op, self.block) = (op, block);
                return true;
            }
            // SAFETY: as above.
            block = unsafe { mlirBlockGetNextInRegion(block) };
        }
        // SAFETY: the position's region is live.
        match Self::first_from(unsafe { mlirRegionGetNextInOperation(self.region) }) {
            Some(next) => {
                *self = next;
                true
            }
            None => false,
        }
    }
}
