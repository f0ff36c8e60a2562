//! `ccl-insert-comm-fence`: puts the memory-consistency markers ("data
//! before signal") into device kernels, and the post-collective prologue
//! into kernels launched after a collective (SEMANTICS.md; the guide is
//! docs/passes/insert-comm-fence.md).
//!
//! The pass is registered as two steps that always run together, in order:
//!
//! 1. `CclInsertCommFenceKernels` (function-anchored, [`kernel`]): Phase A.
//!    Its rules look only at one InCore function at a time, so MLIR nests it
//!    under `func.func` and runs it on its thread pool, one function per
//!    task. It reads nothing outside the function it changes.
//! 2. `CclInsertCommFenceOrchestration` (module-anchored,
//!    [`orchestration`]): Phase B. It needs the whole module at once (the
//!    call graph, the scan of every orchestration-like function) and
//!    changes other functions than the one it reads, which a function pass
//!    must not do; so it runs on the module, after step 1. It also reports
//!    unknown `ccl.kind` values, in module order (step 1 skips them), so
//!    error output does not depend on thread scheduling.
//!
//! Modules: [`purity`] (the three-state pure-wait-loop classification and
//! the "reads memory" test), [`call_graph`] (petgraph call graph and
//! SCC-memoised wrapper resolution), [`kernel`], [`orchestration`].

pub mod call_graph;
pub mod kernel;
pub mod orchestration;
pub mod purity;

#[cfg(test)]
mod tests;

use crate::framework::{Anchor, CclPass, PassInfo, PassOptions, PassStep, StatisticSpec};

/// Statistic names.
pub mod stat {
    pub const REGION_INVALIDATES: &str = "region-invalidates";
    pub const WHOLE_INVALIDATES: &str = "whole-gm-invalidates";
    pub const FENCES: &str = "fences";
    pub const PROLOGUES: &str = "prologues";
    pub const KERNELS_MARKED: &str = "kernels-marked";
    pub const LOOPS_RESCANNED: &str = "loops-rescanned";
}

static STATISTICS: &[StatisticSpec] = &[
    StatisticSpec {
        name: stat::REGION_INVALIDATES,
        description: "Region ccl.cacheinvalid(dst) inserted after local publishes",
    },
    StatisticSpec {
        name: stat::WHOLE_INVALIDATES,
        description: "Whole-GM ccl.cacheinvalid() inserted in kernel bodies (opaque publishes, waits, pure wait loops; prologues not included)",
    },
    StatisticSpec {
        name: stat::FENCES,
        description: "ccl.fence inserted after publishes in kernel bodies (prologues not included)",
    },
    StatisticSpec { name: stat::PROLOGUES, description: "Kernel prologues (ccl.cacheinvalid() + ccl.fence) inserted" },
    StatisticSpec { name: stat::KERNELS_MARKED, description: "InCore functions marked as post-collective consumers" },
    StatisticSpec {
        name: stat::LOOPS_RESCANNED,
        description: "Sequential loop bodies (or multi-block regions) rescanned with seen = true",
    },
];

fn create_kernels(_: &PassOptions) -> Box<dyn CclPass> {
    Box::<kernel::KernelStep>::default()
}

fn create_orchestration(_: &PassOptions) -> Box<dyn CclPass> {
    Box::new(orchestration::OrchestrationStep)
}

static STEPS: &[PassStep] = &[
    PassStep { name: "CclInsertCommFenceKernels", anchor: Anchor::Function, create: create_kernels },
    PassStep { name: "CclInsertCommFenceOrchestration", anchor: Anchor::Module, create: create_orchestration },
];

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-insert-comm-fence",
    summary: "Insert cache-invalidate and fence markers for data-before-signal ordering",
    description: "Phase A (per InCore function): after each window-bound local publish, ccl.cacheinvalid(dst) + \
                  ccl.fence; after a remote publish, ccl.fence; after an opaque publish (ccl.submit, func.call), \
                  whole-GM ccl.cacheinvalid() + ccl.fence; after a run of waits or the outermost pure wait loop, \
                  whole-GM ccl.cacheinvalid(). Phase B (module): every InCore function launched, directly or \
                  through wrappers, after a collective or submit in an orchestration-like function gets the \
                  prologue ccl.cacheinvalid() + ccl.fence. Idempotent.",
    options: &[],
    statistics: STATISTICS,
    steps: STEPS,
};
