//! Phase A: markers inside one InCore function (SEMANTICS.md rules 1-6).
//!
//! The function is analysed first and changed afterwards: `plan` walks the
//! ops as they were before any insertion and returns the insertions, `apply`
//! makes them. Each insertion sits right after its anchor op, so on a second
//! run every anchor finds its markers next to it and the plan is empty
//! (idempotence).

use super::{purity::{is_loop, Classifier, Purity}, stat};
use crate::{
    framework::{CclPass, PassContext, PassFailed},
    ir, names,
    names::FunctionKind,
};
use melior::ir::{operation::OperationLike, BlockRef, OperationRef, Value};

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

/// The index of the `dst` operand of a local publish op, if `name` is one.
fn local_publish_dst(name: &str) -> Option<usize> {
    match name {
        names::TILE_STORE => Some(1),
        names::TENSOR_WRITE | names::GET => Some(0),
        _ => None,
    }
}

/// The insertions rules 1-5 ask for in `func`, in walk order.
pub fn plan<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, Marker<'c, 'a>)> {
    let mut classifier = Classifier::new();
    let mut plan = Vec::new();
    let mut worklist: Vec<BlockRef<'c, 'a>> = ir::regions(func).flat_map(ir::blocks).collect();
    while let Some(block) = worklist.pop() {
        let list: Vec<OperationRef<'c, 'a>> = ir::ops(block).collect();
        for (i, &op) in list.iter().enumerate() {
            let name = ir::op_name(op);
            let next = list.get(i + 1).copied();
            let next2 = list.get(i + 2).copied();
            let next_is_whole_invalidate = next.is_some_and(ir::is_whole_cache_invalid);
            if let Some(dst_index) = local_publish_dst(name) {
                // Rule 1 (only window-bound destinations publish; rule 6).
                if let Ok(dst) = op.operand(dst_index) {
                    if ir::is_window_bound(dst) {
                        let present = next.is_some_and(|n| ir::is_region_cache_invalid_of(n, dst))
                            && next2.is_some_and(ir::is_fence);
                        if !present {
                            plan.push((op, Marker::RegionInvalidateAndFence(dst)));
                        }
                    }
                }
            } else if matches!(name, names::REMOTE_STORE | names::PUT) {
                // Rule 2.
                if !next.is_some_and(ir::is_fence) {
                    plan.push((op, Marker::Fence));
                }
            } else if matches!(name, names::SUBMIT | names::CALL) {
                // Rule 3.
                if !(next_is_whole_invalidate && next2.is_some_and(ir::is_fence)) {
                    plan.push((op, Marker::WholeInvalidateAndFence));
                }
            } else if name == names::WAIT {
                // Rule 4: the next op that is not side-effect-free.
                let following = list[i + 1..].iter().copied().find(|&o| !ir::is_side_effect_free(o));
                let shared = following.is_some_and(|o| ir::op_name(o) == names::WAIT || ir::is_whole_cache_invalid(o));
                if !shared {
                    plan.push((op, Marker::WholeInvalidate));
                }
            } else if is_loop(name) && classifier.op_class(op) == Purity::PureWithWait {
                // Rule 5: one marker after the outermost pure wait loop and
                // none inside it, so its body is not walked.
                if !next_is_whole_invalidate {
                    plan.push((op, Marker::WholeInvalidate));
                }
                continue;
            }
            // Rule 6: everything else gets nothing; nested regions are walked.
            let mut nested: Vec<BlockRef<'c, 'a>> = ir::regions(op).flat_map(ir::blocks).collect();
            nested.reverse();
            worklist.extend(nested);
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

/// The function-anchored step. Functions whose `ccl.kind` is not InCore are
/// left alone; an unknown kind is skipped here and reported, in module
/// order, by the module step.
pub struct KernelStep;

impl CclPass for KernelStep {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        if ir::op_name(op) != names::FUNC || ir::function_kind(op) != Ok(FunctionKind::InCore) {
            cx.preserve_all();
            return Ok(());
        }
        let plan = plan(op);
        if plan.is_empty() {
            cx.preserve_all();
            return Ok(());
        }
        cx.changed(op);
        let inserted = apply(&plan);
        cx.stats.add(stat::REGION_INVALIDATES, inserted.region_invalidates);
        cx.stats.add(stat::WHOLE_INVALIDATES, inserted.whole_invalidates);
        cx.stats.add(stat::FENCES, inserted.fences);
        Ok(())
    }
}
