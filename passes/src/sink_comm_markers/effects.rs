//! What an op means to a marker that is being moved past it
//! (docs/passes/sink-comm-markers.md, "What stops a marker").
//!
//! A marker may move later in its block past any op that neither lets
//! another block see this block's data (an *exposure*: `ccl.notify`, a
//! call, a collective, anything unknown) nor needs the marker before it (a
//! GM read needs the whole-GM invalidate of an earlier wait; a write needs
//! an invalidate without a fence to stay before it, so that the
//! invalidate does not start a write-back that nothing fences).

use crate::ir;
use cclir_dialect::{
    names::{has_side_effect_free_name, Interned, Name},
    ods::CclOp,
};
use melior::ir::{operation::OperationLike, OperationRef, Value};

/// What the ops of a block or region do, as far as moving markers past
/// them goes (joined over every op, nested ones included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// Another block may see this block's data after it: a notify, a
    /// call or submit (the callee may notify), a collective, an unknown op.
    pub exposure: bool,
    /// It may read GM: `read`, `tile_load`, `remote_load`, the sources of
    /// `get` and `put`, calls, unknown ops.
    pub read: bool,
    /// It may write this block's cache: `tile_store`, `tensor_write`, the
    /// destination of `get`, calls, unknown ops.
    pub local_write: bool,
    /// It may leave writes in flight: remote writes, invalidates, calls,
    /// unknown ops.
    pub in_flight: bool,
}

impl Flags {
    /// What an op nothing is known about may do: everything.
    pub const ALL: Flags = Flags { exposure: true, read: true, local_write: true, in_flight: true };

    pub fn join(&mut self, other: Flags) {
        self.exposure |= other.exposure;
        self.read |= other.read;
        self.local_write |= other.local_write;
        self.in_flight |= other.in_flight;
    }
}

/// What one op is to the walk.
#[derive(Clone, Copy, Debug)]
pub enum Effect<'c, 'a> {
    /// `ccl.fence`.
    Fence,
    /// `ccl.cacheinvalid`: whole-GM (`None`) or of one SSA value.
    Invalidate(Option<Value<'c, 'a>>),
    /// An op without regions, with its flags.
    Op(Flags),
    /// An op with regions: the walk looks inside.
    Regions,
    /// Side-effect-free: markers pass it without stopping. `names_memory`
    /// for views, whose results an invalidate may name: markers are never
    /// placed before one, so that they stay after the value they use.
    Pure { names_memory: bool },
}

const READ: Flags = Flags { exposure: false, read: true, local_write: false, in_flight: false };
const WRITE: Flags = Flags { exposure: false, read: false, local_write: true, in_flight: false };
const NOTIFY: Flags = Flags { exposure: true, read: false, local_write: false, in_flight: false };
const NOTHING: Flags = Flags { exposure: false, read: false, local_write: false, in_flight: false };

/// The effect of `op`.
pub fn of<'c, 'a>(names: &Interned, op: OperationRef<'c, 'a>) -> Effect<'c, 'a> {
    let name = Name::of(op);
    if let Some(kind) = names.kind(name) {
        let Some(view) = CclOp::view(kind, op) else {
            // A ccl op with operands the views do not expect cannot pass
            // the verifier; read it as unknown all the same.
            return Effect::Op(Flags::ALL);
        };
        return match view {
            CclOp::Fence(_) => Effect::Fence,
            CclOp::CacheInvalid(invalidate) => Effect::Invalidate(invalidate.target()),
            CclOp::Notify(_) => Effect::Op(NOTIFY),
            CclOp::Submit(_) | CclOp::AllToAllV(_) | CclOp::AllReduce(_) | CclOp::Barrier(_) => Effect::Op(Flags::ALL),
            CclOp::Read(_) | CclOp::TileLoad(_) | CclOp::RemoteLoad(_) => Effect::Op(READ),
            CclOp::Get(_) => Effect::Op(Flags { exposure: false, read: true, local_write: true, in_flight: false }),
            CclOp::Put(_) => Effect::Op(Flags { exposure: false, read: true, local_write: false, in_flight: true }),
            CclOp::RemoteStore(_) => {
                Effect::Op(Flags { exposure: false, read: false, local_write: false, in_flight: true })
            }
            CclOp::TileStore(_) => Effect::Op(WRITE),
            CclOp::TensorWrite(_) => Effect::Op(WRITE),
            // A wait only acquires what others released: nothing of this
            // block's becomes visible, nothing is read.
            CclOp::Wait(_) => Effect::Op(NOTHING),
            CclOp::CalAllToAllVBlocks(_) | CclOp::CommSize(_) | CclOp::Rank(_) | CclOp::BlockId(_) => {
                Effect::Pure { names_memory: false }
            }
        };
    }
    if name == names.call {
        return Effect::Op(Flags::ALL);
    }
    if op.region_count() > 0 {
        return Effect::Regions;
    }
    if has_side_effect_free_name(op) {
        return Effect::Pure { names_memory: names.is_view(name) };
    }
    // An allocation makes memory nobody else knows yet.
    if name == names.memref_alloc || name == names.memref_alloca {
        return Effect::Pure { names_memory: true };
    }
    Effect::Op(Flags::ALL)
}

/// Whether the markers right after `write` (the run of `ccl.fence` and
/// `ccl.cacheinvalid` ops that follows it, in any order: the walk carries
/// them together) include a fence: an invalidate carried past the write
/// then has one to land what it writes back. After a window write the
/// rules put its invalidate and fence there.
pub fn followed_by_a_fence(names: &Interned, write: OperationRef<'_, '_>) -> bool {
    std::iter::successors(write.next_in_block(), |op| op.next_in_block())
        .take_while(|op| ir::is_fence(names, *op) || names.is(Name::of(*op), cclir_dialect::ods::OpKind::CacheInvalid))
        .any(|op| ir::is_fence(names, op))
}
