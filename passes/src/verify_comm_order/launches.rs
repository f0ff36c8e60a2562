//! Phase B of the checker: in every scan target, a call-like op met on a
//! path after a publish (the shared scan, `comm_order::scan`) launches
//! kernels that must invalidate whole-GM before their first GM read; the
//! kernel checker knows, per InCore function, the first GM read its entry
//! reaches without one (`unprotected`).
//!
//! Wrappers (orchestration-like callees) resolve to the InCore functions
//! they reach, restricted to the kernels that would fail, after the scan:
//! once per call-graph component of a wrapper some call launched, callees
//! first (`CallGraph::reachable_kernels`), only when some kernel would fail.

use crate::comm_order::{
    call_graph::CallGraph,
    model::{Event, Module, OpKey},
    scan::{scan_module_with, FunctionFlags, Launches, ScanRules},
};
use cclir_dialect::names::FunctionKind;
use rustc_hash::FxHashSet;

/// A kernel launched after a publish that reads GM before invalidating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchViolation {
    pub caller: usize,
    pub call: OpKey,
    pub call_order: u32,
    /// The wrapper called, when the kernel is reached through one.
    pub wrapper: Option<usize>,
    pub kernel: usize,
    /// The publish that set the flag on the path (the first one found).
    pub publish: OpKey,
    /// The kernel's first unprotected GM read.
    pub read: OpKey,
}

#[derive(Clone, Debug, Default)]
pub struct PhaseBReport {
    pub violations: Vec<LaunchViolation>,
    pub scan_targets: u64,
    /// Call-like ops met with the flag set (launches that had to be safe).
    pub launches_checked: u64,
}

struct Checker<'m> {
    module: &'m Module,
    unprotected: &'m [Option<OpKey>],
    /// The calls of wrappers met with the flag set, each with the publish
    /// of the first time: resolved after the scan.
    wrapper_launches: Vec<Launch>,
    /// The call-like ops met with the flag set, by (caller, order).
    calls: FunctionFlags,
    pairs: FxHashSet<(usize, u32, usize)>,
    violations: Vec<LaunchViolation>,
}

/// A call-like op met with the flag set.
struct Launch {
    caller: usize,
    call: OpKey,
    call_order: u32,
    /// The wrapper called, when the kernels are reached through one.
    wrapper: Option<usize>,
    publish: OpKey,
}

impl Checker<'_> {
    /// A violation when `kernel`, which `launch` launches, reads GM before
    /// invalidating; one per (call, kernel), with the first publish found.
    fn flag(&mut self, launch: &Launch, kernel: usize) {
        let Some(read) = self.unprotected[kernel] else { return };
        if self.pairs.insert((launch.caller, launch.call_order, kernel)) {
            self.violations.push(LaunchViolation {
                caller: launch.caller,
                call: launch.call,
                call_order: launch.call_order,
                wrapper: launch.wrapper,
                kernel,
                publish: launch.publish,
                read,
            });
        }
    }
}

impl Launches for Checker<'_> {
    fn launch(&mut self, caller: usize, call: &Event, callee: Option<usize>, publish: OpKey) {
        let first = self.calls.set(caller, call.order);
        let Some(callee) = callee else { return };
        let launch = |wrapper| Launch { caller, call: call.op, call_order: call.order, wrapper, publish };
        match self.module.functions[callee].kind {
            FunctionKind::InCore => self.flag(&launch(None), callee),
            // A call reaches the same kernels every time: the first
            // publish is the one a violation names.
            FunctionKind::Orchestration if first => self.wrapper_launches.push(launch(Some(callee))),
            FunctionKind::Orchestration | FunctionKind::Other => {}
        }
    }
}

/// `unprotected[i]` is the first unprotected GM read of function `i` (only
/// InCore functions have one).
pub fn check(module: &Module, unprotected: &[Option<OpKey>]) -> PhaseBReport {
    check_with(module, ScanRules::PHASE_B, unprotected)
}

/// [`check`] with the scan reading the program under `rules`: every
/// kernel launched on a path after what `rules` count as a publish whose
/// `unprotected` read is set.
pub fn check_with(module: &Module, rules: ScanRules<'_>, unprotected: &[Option<OpKey>]) -> PhaseBReport {
    let mut checker = Checker {
        module,
        unprotected,
        wrapper_launches: Vec::new(),
        calls: FunctionFlags::new(module, |function| function.op_count),
        pairs: FxHashSet::default(),
        violations: Vec::new(),
    };
    let stats = scan_module_with(module, rules, &mut checker);
    let launches = std::mem::take(&mut checker.wrapper_launches);
    if !launches.is_empty() && unprotected.iter().any(Option::is_some) {
        let graph = CallGraph::build(module);
        let wrappers: Vec<usize> = launches.iter().filter_map(|launch| launch.wrapper).collect();
        let failing = graph.reachable_kernels(module, &wrappers, |k| unprotected[k].is_some());
        for launch in launches {
            let kernels = launch.wrapper.and_then(|wrapper| failing[wrapper].clone());
            for &kernel in kernels.iter().flat_map(|kernels| kernels.iter()) {
                checker.flag(&launch, kernel);
            }
        }
    }
    let mut violations = checker.violations;
    violations.sort_by_key(|v| (v.caller, v.call_order, v.kernel));
    PhaseBReport { violations, scan_targets: stats.scan_targets, launches_checked: checker.calls.count() }
}
