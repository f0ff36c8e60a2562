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
    comm_order::memory::Aliases,
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report},
    insert_comm_fence::nested::PostCollectiveKernels,
    ir, pass_statistics,
};
use cclir_dialect::names::{FunctionKind, Interned};
use melior::ir::OperationRef;

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
        let aliases = found.and_then(|sound| sound.aliases.get(&key).cloned()).unwrap_or_else(Aliases::unknown);
        let mut added = 0;
        if let Some(sound) = found {
            added += complete::before(func, names, sound);
        }
        let mut counts = sink(func, names, &aliases);
        if found.is_some() {
            added += complete::fences(func, names, &aliases);
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

/// Sinks the markers of InCore function `func` (with a body): one walk,
/// and in the one case where a second walk could take more out
/// (`Walker::settled`), walks until none can, so that the output is a
/// fixed point. Each further walk follows one that erased a fence, so they
/// end.
pub fn sink(func: OperationRef<'_, '_>, names: &Interned, aliases: &crate::comm_order::memory::Aliases) -> Counts {
    let mut total = Counts::default();
    loop {
        let know = sound::Knowledge::of(func, names, aliases.clone());
        let mut walker = walk::Walker::new(names, &know);
        walker.function(func);
        total.add(walker.counts);
        if walker.settled() {
            return total;
        }
    }
}
