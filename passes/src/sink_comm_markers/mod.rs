//! `ccl-sink-comm-markers`: moves the markers `ccl-insert-comm-fence`
//! placed after every publish and wait to where they are needed, so that a
//! launch executes fewer of them (docs/semantics.md; the guide, with the
//! soundness argument of each step, is docs/passes/sink-comm-markers.md).
//!
//! A `func.func` pass: it reads and changes one kernel, so MLIR runs it on
//! every function in parallel, in the same `func.func(...)` adaptor as the
//! insertion (`ccl-pipeline{placement=minimal}`).
//!
//! * [`effects`]: what each op means to a marker moved past it;
//! * [`carry`]: the markers a walk carries, in canonical form;
//! * [`walk`]: the walk of a kernel that moves, merges, takes out of loops
//!   and branches, and erases them.

pub mod carry;
pub mod complete;
pub mod effects;
pub mod sound;
pub mod walk;

#[cfg(test)]
mod tests;

use crate::{
    framework::{Anchor, CclPass, Counters, Eraser, OptionValues, PassContext, PassFailed, PassInfo, Report},
    insert_comm_fence::{self, nested::PostCollectiveKernels},
    ir, pass_statistics,
};
use cclir_dialect::names::{FunctionKind, Interned};
use melior::ir::OperationRef;
use sound::Given;

pass_statistics! {
    /// What one run did to the markers.
    pub struct SinkStatistics {
        moved: "markers-moved", "Markers placed at a later point than where they were",
        merged: "markers-merged", "Markers erased because one placed at or after them covers them",
        hoisted: "markers-hoisted", "Markers taken out of a loop body or out of both branches of an scf.if",
        dropped: "fences-dropped", "Fences erased because nothing is in flight or a later fence does their work",
        guards: "trip-guards", "scf.if guards built for markers taken out of loops that may run zero times",
        added: "markers-added", "Markers added where the rules are not enough (placement=minimal): plain-buffer write-backs, prologues, fences between overlapping writes",
    }
}

/// What one kernel's walk did (added to the statistics at its end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub moved: u64,
    pub merged: u64,
    pub hoisted: u64,
    pub dropped: u64,
    pub guards: u64,
    pub added: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.moved += other.moved;
        self.merged += other.merged;
        self.hoisted += other.hoisted;
        self.dropped += other.dropped;
        self.guards += other.guards;
        self.added += other.added;
    }

    /// Whether the walk changed the IR.
    pub fn changed(&self) -> bool {
        self.moved + self.merged + self.dropped + self.guards + self.added > 0
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-sink-comm-markers",
    name: "CclSinkCommMarkers",
    summary:
        "Move cache-invalidate and fence markers in a kernel to where they are needed: later, out of loops, merged",
    description: "`ccl-insert-comm-fence` places its markers right after the op they are for:\n\
        a region invalidate and a fence after every store into a window, a fence\n\
        after every remote store, a whole-GM invalidate after every wait. That is\n\
        easy to get right and costly to run: a kernel that stores 1,024 rows of a\n\
        window in a loop and then notifies its peer executes 1,024 invalidates and\n\
        1,024 fences where one of each, before the notify, does the same job. On\n\
        the device each fence drains the block's write pipeline. This pass moves\n\
        the markers to where they are needed: later in their block, out of loops and\n\
        branches, merged where one covers another. Its measure is markers executed\n\
        per launch (`ccl-sim` counts them; `bench/sink.py`).",
    anchor: Anchor::Function,
    dependent_dialects: &["ccl", "scf", "arith"],
    options: &[],
    statistics: SinkStatistics::SPECS,
    create,
};

fn create(_: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    Box::new(SinkCommMarkers { stats: SinkStatistics::bind(counters), names: None })
}

struct SinkCommMarkers {
    stats: SinkStatistics,
    names: Option<Interned>,
}

impl CclPass for SinkCommMarkers {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let kind = ir::function_kind(func).map_err(|unknown| cx.fail(Report::error_at(func, unknown.to_string())))?;
        if kind != FunctionKind::InCore || ir::entry_block(func).is_none() {
            cx.preserve_all();
            return Ok(());
        }
        let names = Interned::cached(&mut self.names, func);
        let eraser = cx.eraser();
        // The walk and the analyses recurse once per nesting level, on the
        // stack of whatever thread MLIR runs the pass on (a worker's, of a
        // few MiB): a kernel nested deeper keeps the rules' placement.
        if nested_deeper_than(func, MAX_NESTING) {
            cx.preserve_all();
            return Ok(());
        }
        // In ccl-pipeline{placement=minimal}, the scan before the insertion
        // found what the program says of this kernel's buffers, and what
        // the rules leave out.
        let found = cx.cached_parent_analysis::<PostCollectiveKernels>().and_then(|found| found.sound.as_ref());
        let key = ir::OpKey::of(func);
        let given = match found {
            Some(sound) => Given {
                aliases: sound.aliases.get(&key).unwrap_or(Given::nothing().aliases),
                quiet_calls: Some(&sound.quiet_calls),
                quiet_returns: sound.called.contains(&key),
            },
            None => Given::nothing(),
        };
        let mut added = 0;
        if let Some(sound) = found {
            added += complete::before(func, names, sound);
        }
        let mut counts = sink(func, names, given, eraser);
        if let Some(sound) = found {
            added += fence_rounds(func, names, given, &mut counts, eraser);
            // ccl-pipeline{placement=minimal} on its own output inserts the
            // rules' markers again and runs this pass over them: it must
            // give the output back. Each round does just that to the
            // kernel, until a round gives back what it started from (the
            // first such round is usually the first). Rounds may also
            // cycle (two placements, each giving the other): then the
            // rounds go on around the cycle to its placement of the least
            // fingerprint, which a run on that output reaches by the same
            // cycle, so the pipeline is a fixed point there too. The bound
            // keeps what the last round left, which the checker proves or
            // rejects. The statistics count the first round only.
            let marked =
                cx.cached_parent_analysis::<PostCollectiveKernels>().is_some_and(|found| found.marked.contains(&key));
            let round = || {
                insert_comm_fence::kernel::insert_markers(func, names);
                if marked {
                    insert_comm_fence::prologue::insert_into(names, func);
                }
                complete::before(func, names, sound);
                let mut again = sink(func, names, given, eraser);
                fence_rounds(func, names, given, &mut again, eraser);
                fingerprint(func)
            };
            settle(fingerprint(func), || (round(), true), |rounds, _| rounds >= MAX_ROUNDS);
        }
        counts.added = added;
        self.stats.moved.add(counts.moved);
        self.stats.merged.add(counts.merged);
        self.stats.hoisted.add(counts.hoisted);
        self.stats.dropped.add(counts.dropped);
        self.stats.guards.add(counts.guards);
        self.stats.added.add(counts.added);
        if !counts.changed() {
            cx.preserve_all();
        }
        Ok(())
    }
}

/// The most rounds of fences added and walks after them on one kernel, and
/// of re-runs of the placement on its own output.
const MAX_ROUNDS: usize = 4;

/// The fences the walk's output needs between overlapping writes, then the
/// walk again over them, until neither changes anything (a fence added is
/// one the walk then stops before: the rounds end; a few suffice, and the
/// bound keeps a kernel whose rounds would not settle as the last round
/// left it, which the checker proves or rejects). How many fences it added;
/// the walks' counts go to `counts`.
fn fence_rounds(
    func: OperationRef<'_, '_>,
    names: &Interned,
    given: Given<'_>,
    counts: &mut Counts,
    eraser: Eraser<'_>,
) -> u64 {
    let mut added = 0;
    for _ in 0..MAX_ROUNDS {
        let fences = complete::after_walk(func, names, given) + complete::quiet_returns(func, names, given);
        added += fences;
        if fences == 0 {
            break;
        }
        let again = sink(func, names, given, eraser);
        let settled = !again.changed();
        counts.add(again);
        if settled {
            break;
        }
    }
    added
}

/// The shape of kernel `func`, as a hash: each op's name and the block it
/// is in, in pre-order, and what each marker's operand is (the op defining
/// it, by pre-order number, or a block's argument). Two functions with one
/// fingerprint print the same but for a collision; it prints nothing
/// (printing verifies the whole module, which other threads are changing).
fn fingerprint(func: OperationRef<'_, '_>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    let mut ops: rustc_hash::FxHashMap<ir::OpKey, usize> = rustc_hash::FxHashMap::default();
    let mut blocks: rustc_hash::FxHashMap<ir::BlockKey, usize> = rustc_hash::FxHashMap::default();
    let mut block_number = |block: Option<melior::ir::BlockRef<'_, '_>>| -> usize {
        let Some(block) = block else { return usize::MAX };
        let next = blocks.len();
        *blocks.entry(ir::BlockKey::of(block)).or_insert(next)
    };
    ir::walk_nested(func, |op| {
        let number = ops.len();
        ops.insert(ir::OpKey::of(op), number);
        ir::op_name(op).hash(&mut hasher);
        block_number(melior::ir::operation::OperationLike::block(&op)).hash(&mut hasher);
        if ir::result_count(op) == 0 {
            for index in 0..ir::operand_count(op) {
                let value = ir::operand(op, index);
                match ir::defining_op(value) {
                    Some(definer) => ops.get(&ir::OpKey::of(definer)).copied().unwrap_or(usize::MAX).hash(&mut hasher),
                    None => {
                        block_number(ir::owner_block(value)).hash(&mut hasher);
                        melior::ir::block::BlockArgument::try_from(value)
                            .map_or(usize::MAX, |a| a.argument_number())
                            .hash(&mut hasher);
                    }
                }
            }
        }
        ir::Walk::Advance
    });
    ops.len().hash(&mut hasher);
    hasher.finish()
}

/// Runs `step` (which changes the kernel and returns its fingerprint, and
/// whether it may stop there) from a kernel of fingerprint `start` until
/// it gives back the fingerprint it started from (a fixed point), or one
/// seen before (a cycle: it goes on around the cycle to the kernel of the
/// least fingerprint, which a run from that kernel reaches by the same
/// cycle), or `stop(steps, may_stop)` says so.
fn settle(start: u64, mut step: impl FnMut() -> (u64, bool), stop: impl Fn(usize, bool) -> bool) {
    let mut seen = vec![start];
    for steps in 1.. {
        let (now, may_stop) = step();
        if Some(&now) == seen.last() {
            return;
        }
        if let Some(first) = seen.iter().position(|&print| print == now) {
            let least = seen[first..].iter().copied().min().unwrap_or(now);
            let mut at = now;
            for _ in first..seen.len() {
                if at == least {
                    break;
                }
                at = step().0;
            }
            return;
        }
        if stop(steps, may_stop) {
            return;
        }
        seen.push(now);
    }
}

/// The walks of one kernel after which the pass stops at a settled one
/// (each walk before it that changes the kernel may free markers the next
/// moves further: a few suffice on generated programs).
const MAX_WALKS: usize = 16;

/// The deepest nesting of ops with regions the pass handles.
pub const MAX_NESTING: usize = 256;

/// Whether ops with regions nest more than `limit` deep in `func` (found
/// without recursion).
fn nested_deeper_than(func: OperationRef<'_, '_>, limit: usize) -> bool {
    let mut stack: Vec<(OperationRef<'_, '_>, usize)> = vec![(func, 0)];
    while let Some((op, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        for block in ir::regions(op).flat_map(ir::blocks) {
            for inner in ir::ops(block) {
                if melior::ir::operation::OperationLike::region_count(&inner) > 0 {
                    stack.push((inner, depth + 1));
                }
            }
        }
    }
    false
}

/// Sinks the markers of InCore function `func` (with a body): walks until
/// a walk leaves the kernel as it found it, so that the output is a fixed
/// point (a walk may free a marker the one before stopped: an invalidate
/// it placed before a read no longer holds the fence after it there). The
/// walks end: each one after the first follows one that changed the
/// kernel into one not seen before (a cycle goes round to its kernel of
/// the least fingerprint and stops), and after [`MAX_WALKS`] of them the
/// pass stops at the first walk that is `Walker::settled` (T4's one case
/// that needs another walk), after four times as many at the latest.
pub fn sink(func: OperationRef<'_, '_>, names: &Interned, given: Given<'_>, eraser: Eraser<'_>) -> Counts {
    let mut total = Counts::default();
    let walk = || {
        let know = sound::Knowledge::of(func, names, given);
        let mut walker = walk::Walker::new(names, &know, eraser);
        walker.function(func);
        total.add(walker.counts);
        (fingerprint(func), walker.settled())
    };
    settle(fingerprint(func), walk, |walks, settled| (walks >= MAX_WALKS && settled) || walks >= 4 * MAX_WALKS);
    total
}
