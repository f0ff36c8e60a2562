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
