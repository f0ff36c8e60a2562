//! The two marker ops, `ccl.fence` and `ccl.cacheinvalid`: making them, and
//! telling them apart by interned name; and whether a value is a
//! window-bound memref (docs/semantics.md, "Buffers").

use cclir_dialect::{
    ffi::{keys::ValueKey, types::memory_space},
    names::{Interned, Name},
    ods::{self, OpKind},
};
use melior::ir::{operation::OperationLike, Location, Operation, OperationRef, Value, ValueLike};

/// A new `ccl.fence` at `location`, not yet inserted.
pub fn create_fence<'c>(location: Location<'c>) -> Operation<'c> {
    ods::Fence::build(location)
}

/// A new `ccl.cacheinvalid` at `location`: the region form on `target`, or
/// the whole-GM form when `target` is `None`.
pub fn create_cache_invalid<'c>(location: Location<'c>, target: Option<Value<'c, '_>>) -> Operation<'c> {
    ods::CacheInvalid::build(location, target)
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
        && op.operand(0).map(|operand| ValueKey::of(operand) == ValueKey::of(target)).unwrap_or(false)
}

/// Whether `value` is a window-bound memref, against the interned
/// `#ccl.window` (no printing).
pub fn is_window_bound(names: &Interned, value: Value<'_, '_>) -> bool {
    memory_space(value.r#type()).is_some_and(|space| names.is_window_space(space))
}

/// The memref a GM read reads (`read`, `tile_load`, `remote_load`, the
/// source of `put` and `get`).
pub fn read_memref<'c, 'a>(names: &Interned, op: OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
    let kind = names.kind(Name::of(op))?;
    Some(match ods::CclOp::view(kind, op)? {
        ods::CclOp::Read(read) => read.src(),
        ods::CclOp::TileLoad(load) => load.src(),
        ods::CclOp::RemoteLoad(load) => load.src(),
        ods::CclOp::Put(put) => put.src(),
        ods::CclOp::Get(get) => get.src(),
        _ => return None,
    })
}

/// Whether `target` is `memref` or a memref `memref` is a view of
/// (through the view ops): an invalidate of `target` then covers every
/// line of `memref`.
pub fn contains_view(names: &Interned, target: Value<'_, '_>, memref: Value<'_, '_>) -> bool {
    let target = ValueKey::of(target);
    let mut value = memref;
    for _ in 0..64 {
        if ValueKey::of(value) == target {
            return true;
        }
        match cclir_dialect::ffi::operations::defining_op(value) {
            Some(op) if names.is_view(Name::of(op)) && op.operand_count() > 0 => {
                value = cclir_dialect::ffi::operations::operand(op, 0);
            }
            _ => return false,
        }
    }
    false
}

/// Whether a region `ccl.cacheinvalid` of memory containing what GM read
/// `read` reads comes before it in its block or in a block around it (on
/// every path to the read, after the kernel's start): it dropped any line
/// an earlier launch left there. With `rules_to_come` (the markers are not
/// in yet), a store into a window-bound view of that memory counts as one:
/// the insert pass's rule 1 puts the invalidate of its destination right
/// after it.
pub fn protected_by_region_invalidate(names: &Interned, read: OperationRef<'_, '_>, rules_to_come: bool) -> bool {
    let Some(memref) = read_memref(names, read) else { return false };
    let mut current = read;
    loop {
        // melior cannot step back (the C API has no previous op): from the
        // block's start to `current`.
        let mut cursor = current.block().and_then(|block| melior::ir::block::BlockLike::first_operation(&block));
        while let Some(op) = cursor.filter(|op| *op != current) {
            let target = match names.kind(Name::of(op)).and_then(|kind| ods::CclOp::view(kind, op)) {
                Some(ods::CclOp::CacheInvalid(invalidate)) => invalidate.target(),
                Some(ods::CclOp::TileStore(store)) => Some(store.dst()),
                Some(ods::CclOp::TensorWrite(write)) => Some(write.dst()),
                Some(ods::CclOp::Get(get)) => Some(get.dst()),
                _ => None,
            };
            let is_store = !names.is(Name::of(op), OpKind::CacheInvalid);
            let counts = |target: Value<'_, '_>| !is_store || (rules_to_come && is_window_bound(names, target));
            if target.is_some_and(|target| counts(target) && contains_view(names, target, memref)) {
                return true;
            }
            cursor = op.next_in_block();
        }
        match current.parent_operation() {
            Some(parent) if Name::of(parent) != names.func => current = parent,
            _ => return false,
        }
    }
}
