//! `ccl-insert-comm-fence`: puts the memory-consistency markers ("data
//! before signal") into device kernels, and the post-collective prologue
//! into kernels launched after a collective (docs/semantics.md; the guide is
//! docs/passes/insert-comm-fence.md).
//!
//! One module pass, in two phases:
//!
//! 1. Phase A ([`kernel`]): its rules look only at one InCore function at a
//!    time, so the functions are handed to MLIR's thread pool, one per task,
//!    as a function pass would be; a task reads and changes nothing outside
//!    its function.
//! 2. Phase B ([`prologue`]): the scan of the shared model
//!    (`comm_order`) finds every kernel launched after a publish; they get
//!    the prologue. It needs the whole module at once and changes other
//!    functions than the ones it reads, so it runs after Phase A, on this
//!    thread. Unknown `ccl.kind` values are reported before either phase,
//!    in module order, so error output does not depend on thread
//!    scheduling.
//!
//! [`purity`] is the three-state pure-wait-loop classification of Phase A
//! and its "reads memory" test. [`nested`] runs the same rules as a
//! module-level scan and a function pass, the form `ccl-pipeline` uses so
//! that MLIR re-verifies only the kernels the insertions changed.

pub mod kernel;
pub mod nested;
pub mod prologue;
pub mod purity;
pub mod sound;

#[cfg(test)]
mod tests;

use crate::{
    comm_order::model::{self, Bodies, Module},
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report},
    pass_statistics,
};
use cclir_dialect::names::{FunctionKind, Interned};
use melior::ir::OperationRef;

pass_statistics! {
    /// What one run inserted and found.
    pub struct InsertStatistics {
        region_invalidates: "region-invalidates", "Region ccl.cacheinvalid(dst) inserted after local publishes",
        whole_invalidates: "whole-gm-invalidates", "Whole-GM ccl.cacheinvalid() inserted in kernel bodies (opaque publishes, waits, pure wait loops; prologues not included)",
        fences: "fences", "ccl.fence inserted after publishes in kernel bodies (prologues not included)",
        prologues: "prologues", "Kernel prologues (ccl.cacheinvalid() + ccl.fence) inserted",
        kernels_marked: "kernels-marked", "InCore functions marked as post-collective consumers",
        loops_rescanned: "loops-rescanned", "Sequential loop bodies (or multi-block regions) rescanned with seen = true",
        wrapper_publishes: "wrapper-publishes", "Calls that publish because the orchestration-like function they call publishes (Phase B)",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-insert-comm-fence",
    name: "CclInsertCommFence",
    summary: "Insert cache-invalidate and fence markers for data-before-signal ordering",
    description: "The hardware this IR targets promises \"data before signal\" only if the\n\
        program says so: a peer that sees a signal must also see the data written\n\
        before it, and a kernel that consumes data a peer or a collective delivered\n\
        must not read stale cache lines. Nothing checks this at build time; a missing\n\
        marker is a silent race. This pass writes the markers. It runs last in a\n\
        pipeline, is idempotent (a second run prints byte-identical IR), and changes\n\
        only InCore functions (`ccl.kind` = `incore`, `aic`, `aiv`).",
    anchor: Anchor::Module,
    dependent_dialects: &["ccl"],
    options: &[],
    statistics: InsertStatistics::SPECS,
    create,
};

fn create(_: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    Box::new(InsertCommFence { stats: InsertStatistics::bind(counters) })
}

struct InsertCommFence {
    stats: InsertStatistics,
}

impl CclPass for InsertCommFence {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = Interned::new(crate::ir::context_of(module));
        // Each nested module is a program of its own, handled as if alone.
        let mut changed = false;
        let mut failed = false;
        for program in crate::ir::programs(module) {
            match self.run_on_program(program, &names, cx) {
                Ok(inserted) => changed |= inserted,
                Err(PassFailed) => failed = true,
            }
        }
        if failed {
            return Err(PassFailed);
        }
        if !changed {
            cx.preserve_all();
        }
        Ok(())
    }
}

impl InsertCommFence {
    /// Both phases on one program; whether anything was inserted.
    fn run_on_program(
        &self,
        program: OperationRef<'_, '_>,
        names: &Interned,
        cx: &mut PassContext<'_>,
    ) -> Result<bool, PassFailed> {
        // Unknown kinds are reported first, all of them, in module order.
        let model = lower_reporting_unknown_kinds(program, cx)?;
        let functions = model::function_ops(program, names);
        let kernels = model.functions.iter().zip(&functions).filter(|(f, _)| f.kind == FunctionKind::InCore);
        let inserted = kernel::run_phase_a(names, kernels.map(|(_, op)| *op).collect(), cx, &self.stats);
        let outcome = prologue::mark(&model);
        let prologues = prologue::insert(names, &functions, &outcome.marked);
        self.stats.kernels_marked.add(outcome.marked.len() as u64);
        self.stats.prologues.add(prologues);
        self.stats.loops_rescanned.add(outcome.scan.rescans);
        self.stats.wrapper_publishes.add(outcome.scan.wrapper_publishes);
        Ok(inserted > 0 || prologues > 0)
    }
}

/// The model both phases read (orchestration bodies only), or an error at
/// each function of unknown kind, all of them in module order.
fn lower_reporting_unknown_kinds(module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<Module, PassFailed> {
    model::lower_module_in_parallel(module, Bodies::NotInCore, cx).map_err(|bad| {
        for kind in bad {
            cx.report(Report::error(kind.location, kind.message));
        }
        PassFailed
    })
}
