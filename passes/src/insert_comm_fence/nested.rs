//! `ccl-insert-comm-fence` as two passes, for pipelines: the module-level
//! scan of Phase B alone, then the per-function insertions (Phase A and the
//! prologue) as a function pass. `ccl-pipeline` runs them this way.
//!
//! Why two: MLIR re-verifies the whole module after a module pass that
//! changed anything, but after a function pass only the functions it
//! changed. The insertions touch only kernels, so as a function pass they
//! cost a verification of the kernels, not of every function (at 1M ops,
//! kernels are about 60% of them). The scan changes nothing, so it costs no
//! verification at all.
//!
//! The kernels the scan marks reach the function pass through MLIR's
//! analysis manager: the scan caches [`PostCollectiveKernels`] on the
//! module, and each function pass reads it as its parent's cached
//! analysis. Any pass that changes the module between the two drops it, and
//! the function pass then refuses to run rather than leave prologues out.

use super::{kernel, prologue};
use crate::{
    comm_order::buffers::SoundPlacement,
    comm_order::model::OpKey,
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report},
    ir, pass_options, pass_statistics,
};
use cclir_dialect::names::{FunctionKind, Interned};
use melior::ir::OperationRef;
use rustc_hash::FxHashSet;

/// What `ccl-find-post-collective-kernels` found: the kernels that need the
/// prologue, by operation; with `sound-placement=true`, what
/// `placement=minimal` adds beyond the rules.
#[derive(Clone, Debug, Default)]
pub struct PostCollectiveKernels {
    pub marked: FxHashSet<OpKey>,
    pub sound: Option<SoundPlacement>,
}

pass_options! {
    /// The scan's options.
    pub struct FindOptions {
        sound: bool("sound-placement", "Also find what ccl-sink-comm-markers adds beyond the rules for placement=minimal: plain-buffer writes other blocks read, prologues the rules' Phase B misses, which arguments may be one buffer", default = false),
    }
}

pass_statistics! {
    /// What one scan found.
    pub struct FindStatistics {
        kernels_marked: "kernels-marked", "InCore functions marked as post-collective consumers",
        loops_rescanned: "loops-rescanned", "Sequential loop bodies (or multi-block regions) rescanned with seen = true",
        wrapper_publishes: "wrapper-publishes", "Calls that publish because the orchestration-like function they call publishes",
    }
}

pub static FIND_INFO: PassInfo = PassInfo {
    argument: "ccl-find-post-collective-kernels",
    name: "CclFindPostCollectiveKernels",
    summary:
        "Find the kernels launched after a collective (Phase B of ccl-insert-comm-fence), for ccl-insert-kernel-fence",
    description: "Phase B of `ccl-insert-comm-fence` alone, as a module pass that changes\n\
        nothing: it finds the InCore kernels launched after a collective (which need\n\
        the prologue) and caches them on the module as an analysis, for\n\
        `ccl-insert-kernel-fence` to read. `ccl-pipeline` runs the two in place of\n\
        `ccl-insert-comm-fence`; see docs/passes/insert-comm-fence.md.",
    anchor: Anchor::Module,
    dependent_dialects: &[],
    options: FindOptions::SPECS,
    statistics: FindStatistics::SPECS,
    create: create_find,
};

fn create_find(values: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    let options = FindOptions::from_values(values);
    Box::new(FindPostCollectiveKernels { stats: FindStatistics::bind(counters), sound: options.sound })
}

struct FindPostCollectiveKernels {
    stats: FindStatistics,
    sound: bool,
}

impl CclPass for FindPostCollectiveKernels {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // Only reads: MLIR keeps every analysis, and verifies nothing.
        cx.preserve_all();
        // Each nested module is a program of its own, scanned as if alone;
        // the kernels of all of them are marked.
        let mut marked = FxHashSet::default();
        let mut sound = self.sound.then(SoundPlacement::default);
        let mut failed = false;
        for program in ir::programs(module) {
            let Ok(model) = super::lower_reporting_unknown_kinds(program, cx) else {
                failed = true;
                continue;
            };
            let outcome = prologue::mark(&model);
            self.stats.kernels_marked.add(outcome.marked.len() as u64);
            self.stats.loops_rescanned.add(outcome.scan.rescans);
            self.stats.wrapper_publishes.add(outcome.scan.wrapper_publishes);
            marked.extend(outcome.marked.iter().map(|&f| model.functions[f].op));
            if let Some(sound) = sound.as_mut() {
                super::sound::plan(program, &model, &outcome.marked, sound);
            }
        }
        if failed {
            return Err(PassFailed);
        }
        cx.cache_analysis(PostCollectiveKernels { marked, sound });
        Ok(())
    }
}

pass_statistics! {
    /// What one run inserted.
    pub struct KernelStatistics {
        region_invalidates: "region-invalidates", "Region ccl.cacheinvalid(dst) inserted after local publishes",
        whole_invalidates: "whole-gm-invalidates", "Whole-GM ccl.cacheinvalid() inserted in kernel bodies (opaque publishes, waits, pure wait loops; prologues not included)",
        fences: "fences", "ccl.fence inserted after publishes in kernel bodies (prologues not included)",
        prologues: "prologues", "Kernel prologues (ccl.cacheinvalid() + ccl.fence) inserted",
    }
}

pub static KERNEL_INFO: PassInfo = PassInfo {
    argument: "ccl-insert-kernel-fence",
    name: "CclInsertKernelFence",
    summary: "Insert the markers of ccl-insert-comm-fence into one function: Phase A, and the prologue where ccl-find-post-collective-kernels marked it",
    description: "The insertions of `ccl-insert-comm-fence` in one function, as a function\n\
        pass: Phase A's markers, and the prologue where\n\
        `ccl-find-post-collective-kernels` marked the kernel. It refuses to run when\n\
        that scan's analysis is gone (a pass changed the module in between), rather\n\
        than leave prologues out; see docs/passes/insert-comm-fence.md.",
    anchor: Anchor::Function,
    dependent_dialects: &["ccl"],
    options: &[],
    statistics: KernelStatistics::SPECS,
    create: create_kernel,
};

fn create_kernel(_: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    Box::new(InsertKernelFence { stats: KernelStatistics::bind(counters), names: None })
}

struct InsertKernelFence {
    stats: KernelStatistics,
    names: Option<Interned>,
}

impl CclPass for InsertKernelFence {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let kind = ir::function_kind(func).map_err(|unknown| cx.fail(Report::error_at(func, unknown.to_string())))?;
        if kind != FunctionKind::InCore {
            cx.preserve_all();
            return Ok(());
        }
        let Some(found) = cx.cached_parent_analysis::<PostCollectiveKernels>() else {
            return Err(cx.fail(Report::error_at(
                func,
                format!(
                    "'{}' needs '{}' to run on the enclosing module first (as in ccl-pipeline); or use '{}'",
                    KERNEL_INFO.argument,
                    FIND_INFO.argument,
                    super::INFO.argument
                ),
            )));
        };
        let names = Interned::cached(&mut self.names, func);
        let inserted = kernel::insert_markers(func, names);
        self.stats.region_invalidates.add(inserted.region_invalidates);
        self.stats.whole_invalidates.add(inserted.whole_invalidates);
        self.stats.fences.add(inserted.fences);
        let prologue = found.marked.contains(&OpKey::of(func)) && prologue::insert_into(names, func);
        self.stats.prologues.add(prologue as u64);
        if inserted.ops() == 0 && !prologue {
            cx.preserve_all();
        }
        Ok(())
    }
}
