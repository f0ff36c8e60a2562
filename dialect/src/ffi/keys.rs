//! Identities of IR objects, for maps and sets: an op, value or block
//! as an address, which is all a key holds. A key is made from a live
//! object and never turns back into a reference: there is no function that
//! rebuilds an `OperationRef` from one, so a model that keeps keys (the
//! passes' `comm_order` tree, an analysis MLIR caches between passes) can
//! be plain `Send + Sync` data, and code that holds one cannot reach freed
//! IR through it. Code that needs the op again finds it by walking the IR
//! it holds a reference to.

use melior::ir::{BlockRef, OperationRef, Type, TypeLike, Value, ValueLike};

/// The identity of an op, while it lives (a later op may reuse the address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpKey(usize);

impl OpKey {
    pub fn of(op: OperationRef<'_, '_>) -> Self {
        Self(op.to_raw().ptr as usize)
    }

    /// A key of an op that does not exist, numbered `index`: models built
    /// without IR (the passes' unit tests) name their ops with these.
    pub fn synthetic(index: u32) -> Self {
        // An op is aligned, so its address is even: these are odd.
        Self(((index as usize) << 1) | 1)
    }
}

/// The identity of an SSA value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueKey(usize);

impl ValueKey {
    pub fn of(value: Value<'_, '_>) -> Self {
        Self(value.to_raw().ptr as usize)
    }

    /// A key of a value that does not exist, numbered `index` (odd, as
    /// `OpKey::synthetic`): for models built without IR, and for "a value
    /// nothing is known about".
    pub const fn synthetic(index: u32) -> Self {
        Self(((index as usize) << 1) | 1)
    }
}

/// The identity of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockKey(usize);

impl BlockKey {
    pub fn of(block: BlockRef<'_, '_>) -> Self {
        Self::of_raw(block.to_raw())
    }

    pub(super) fn of_raw(block: mlir_sys::MlirBlock) -> Self {
        Self(block.ptr as usize)
    }
}

/// The identity of a type (types are uniqued: equal types, equal keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeKey(usize);

impl TypeKey {
    pub fn of(ty: Type<'_>) -> Self {
        Self(ty.to_raw().ptr as usize)
    }
}
