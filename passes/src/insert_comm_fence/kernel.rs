//! Phase A: markers inside one InCore function (docs/semantics.md, rules 1-6).
//!
//! The function is analysed first and changed afterwards: `plan` walks the
//! ops as they were before any insertion and returns the insertions, `apply`
//! makes them. Each insertion sits right after its anchor op, so on a second
//! run every anchor finds its markers next to it and the plan is empty
//! (idempotence).

use super::{
    purity::{Classifier, Memo, Purity},
    InsertStatistics,
};
use crate::{framework::PassContext, ir};
use cclir_dialect::{
    names::{Interned, Name},
    ods::{CclOp, OpKind},
};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, Value};

/// What to insert right after an anchor op.
#[derive(Clone, Copy, Debug)]
pub enum Marker<'c, 'a> {
    /// Rule 1: `ccl.cacheinvalid(dst)` then `ccl.fence`.
    RegionInvalidateAndFence(Value<'c, 'a>),
    /// Rule 2: `ccl.fence`.
    Fence,
    /// Rule 3: `ccl.cacheinvalid()` then `ccl.fence`.
    WholeInvalidateAndFence,
    /// Rules 4 and 5: `ccl.cacheinvalid()`.
    WholeInvalidate,
}

/// The insertions rules 1-5 ask for in `func`, in walk order.
pub fn plan<'c, 'a>(
    func: OperationRef<'c, 'a>,
    names: &Interned,
    memo: &mut Memo,
) -> Vec<(OperationRef<'c, 'a>, Marker<'c, 'a>)> {
    let mut classifier = Classifier::new(names, memo);
    let mut plan = Vec::new();
    let mut worklist: Vec<BlockRef<'c, 'a>> = ir::regions(func).flat_map(ir::blocks).collect();
    while let Some(block) = worklist.pop() {
        // The ops are followed through their links, never copied: the rules
        // look at most two ops ahead (rule 4: to the next op with effects).
        let mut cursor = block.first_operation();
        while let Some(op) = cursor {
            cursor = op.next_in_block();
            let name = Name::of(op);
            let next = cursor;
            let next2 = || next.and_then(|n| n.next_in_block());
            let next_is_whole_invalidate = next.is_some_and(|n| ir::is_whole_cache_invalid(names, n));
            let kind = names.kind(name);
            let local_dst = match kind.and_then(|kind| CclOp::view(kind, op)) {
                Some(CclOp::TileStore(store)) => Some(store.dst()),
                Some(CclOp::TensorWrite(write)) => Some(write.dst()),
                Some(CclOp::Get(get)) => Some(get.dst()),
                _ => None,
            };
            if let Some(dst) = local_dst {
                // Rule 1 (only window-bound destinations publish; rule 6).
                if ir::is_window_bound(names, dst) {
                    let present = next.is_some_and(|n| ir::is_region_cache_invalid_of(names, n, dst))
                        && next2().is_some_and(|n| ir::is_fence(names, n));
                    if !present {
                        plan.push((op, Marker::RegionInvalidateAndFence(dst)));
                    }
                }
            } else if matches!(kind, Some(OpKind::RemoteStore | OpKind::Put)) {
                // Rule 2.
                if !next.is_some_and(|n| ir::is_fence(names, n)) {
                    plan.push((op, Marker::Fence));
                }
            } else if kind == Some(OpKind::Submit) || name == names.call {
                // Rule 3.
                if !(next_is_whole_invalidate && next2().is_some_and(|n| ir::is_fence(names, n))) {
                    plan.push((op, Marker::WholeInvalidateAndFence));
                }
            } else if kind == Some(OpKind::Wait) {
                // Rule 4: the next op that is not side-effect-free.
                let following =
                    std::iter::successors(next, |o| o.next_in_block()).find(|&o| !ir::is_side_effect_free(o));
                let shared = following
                    .is_some_and(|o| names.is(Name::of(o), OpKind::Wait) || ir::is_whole_cache_invalid(names, o));
                if !shared {
                    plan.push((op, Marker::WholeInvalidate));
                }
            } else if names.is_loop(name) && classifier.op_class(op) == Purity::PureWithWait {
                // Rule 5: one marker after the outermost pure wait loop and
                // none inside it, so its body is not walked.
                if !next_is_whole_invalidate {
                    plan.push((op, Marker::WholeInvalidate));
                }
                continue;
            }
            // Rule 6: everything else gets nothing; nested regions are walked.
            let depth = worklist.len();
            worklist.extend(ir::regions(op).flat_map(ir::blocks));
            worklist[depth..].reverse();
        }
    }
    plan
}

/// How many marker ops `apply` inserted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inserted {
    pub region_invalidates: u64,
    pub whole_invalidates: u64,
    pub fences: u64,
}

impl Inserted {
    /// How many ops, of all kinds.
    pub fn ops(&self) -> u64 {
        self.region_invalidates + self.whole_invalidates + self.fences
    }
}

/// Makes the insertions of `plan`.
pub fn apply<'c, 'a>(plan: &[(OperationRef<'c, 'a>, Marker<'c, 'a>)]) -> Inserted {
    let mut inserted = Inserted::default();
    for &(anchor, marker) in plan {
        let location = anchor.location();
        match marker {
            Marker::RegionInvalidateAndFence(dst) => {
                let invalidate = ir::insert_after(anchor, ir::create_cache_invalid(location, Some(dst)));
                ir::insert_after(invalidate, ir::create_fence(location));
                inserted.region_invalidates += 1;
                inserted.fences += 1;
            }
            Marker::Fence => {
                ir::insert_after(anchor, ir::create_fence(location));
                inserted.fences += 1;
            }
            Marker::WholeInvalidateAndFence => {
                let invalidate = ir::insert_after(anchor, ir::create_cache_invalid(location, None));
                ir::insert_after(invalidate, ir::create_fence(location));
                inserted.whole_invalidates += 1;
                inserted.fences += 1;
            }
            Marker::WholeInvalidate => {
                ir::insert_after(anchor, ir::create_cache_invalid(location, None));
                inserted.whole_invalidates += 1;
            }
        }
    }
    inserted
}

thread_local! {
    /// The classifier's maps, kept per thread across the kernels it
    /// handles (a fresh set per kernel was regrown from nothing each time).
    static MEMO: std::cell::RefCell<Memo> = std::cell::RefCell::new(Memo::default());
}

/// Phase A on the InCore functions `kernels`, one task per function on
/// MLIR's thread pool (each task has its function to itself); returns how
/// many marker ops it inserted.
pub fn run_phase_a(
    names: &Interned,
    kernels: Vec<OperationRef<'_, '_>>,
    cx: &PassContext<'_>,
    stats: &InsertStatistics,
) -> u64 {
    let total = std::sync::atomic::AtomicU64::new(0);
    let tasks = ir::Exclusive::new(kernels);
    cx.parallel_for(tasks.len(), &|index| {
        let inserted = insert_markers(tasks.take(index).expect("one task per kernel"), names);
        stats.region_invalidates.add(inserted.region_invalidates);
        stats.whole_invalidates.add(inserted.whole_invalidates);
        stats.fences.add(inserted.fences);
        total.fetch_add(inserted.ops(), std::sync::atomic::Ordering::Relaxed);
    });
    total.into_inner()
}

/// Phase A on one InCore function.
pub fn insert_markers(func: OperationRef<'_, '_>, names: &Interned) -> Inserted {
    let plan = MEMO.with(|memo| plan(func, names, &mut memo.borrow_mut()));
    apply(&plan)
}
