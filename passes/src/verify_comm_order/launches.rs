//! Phase B of the checker: in every scan target, a call-like op met on a
//! path after a publish (the shared scan, `comm_order::scan`) launches
//! kernels that must invalidate whole-GM before their first GM read; the
//! kernel checker knows, per InCore function, the first GM read its entry
//! reaches without one (`unprotected`).
//!
//! Wrappers (orchestration-like callees) resolve to the InCore functions
//! they reach, restricted to the kernels that would fail and computed once
//! per call-graph component, only when some kernel would fail.

use crate::{
    comm_order::{
        call_graph::CallGraph,
        model::{Event, Module, OpHandle},
        scan::{scan_module, FunctionFlags, Launches},
    },
    names::FunctionKind,
};
use rustc_hash::FxHashSet;
use std::rc::Rc;

/// A kernel launched after a publish that reads GM before invalidating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchViolation {
    pub caller: usize,
    pub call: OpHandle,
    pub call_order: u32,
    /// The wrapper called, when the kernel is reached through one.
    pub wrapper: Option<usize>,
    pub kernel: usize,
    /// The publish that set the flag on the path (the first one found).
    pub publish: OpHandle,
    /// The kernel's first unprotected GM read.
    pub read: OpHandle,
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
    graph: &'m CallGraph,
    unprotected: &'m [Option<OpHandle>],
    /// Per function: the failing kernels it reaches as a wrapper.
    failing: Option<Vec<Rc<[usize]>>>,
    /// The call-like ops met with the flag set, by (caller, order).
    calls: FunctionFlags,
    pairs: FxHashSet<(usize, u32, usize)>,
    violations: Vec<LaunchViolation>,
}

impl Checker<'_> {
    fn flag(&mut self, caller: usize, call: &Event, wrapper: Option<usize>, kernel: usize, publish: OpHandle) {
        let Some(read) = self.unprotected[kernel] else { return };
        if self.pairs.insert((caller, call.order, kernel)) {
            self.violations.push(LaunchViolation {
                caller,
                call: call.op,
                call_order: call.order,
                wrapper,
                kernel,
                publish,
                read,
            });
        }
    }
}

impl Launches for Checker<'_> {
    fn launch(&mut self, caller: usize, call: &Event, callee: Option<usize>, publish: OpHandle) {
        self.calls.set(caller, call.order);
        let Some(callee) = callee else { return };
        match self.module.functions[callee].kind {
            FunctionKind::InCore => self.flag(caller, call, None, callee, publish),
            FunctionKind::Orchestration => {
                if self.unprotected.iter().all(Option::is_none) {
                    return;
                }
                let (module, graph, unprotected) = (self.module, self.graph, self.unprotected);
                let failing =
                    self.failing.get_or_insert_with(|| graph.reachable_kernels(module, |k| unprotected[k].is_some()));
                let kernels = failing[callee].clone();
                for &kernel in kernels.iter() {
                    self.flag(caller, call, Some(callee), kernel, publish);
                }
            }
            FunctionKind::Other => {}
        }
    }
}

/// `unprotected[i]` is the first unprotected GM read of function `i` (only
/// InCore functions have one).
pub fn check(module: &Module, unprotected: &[Option<OpHandle>]) -> PhaseBReport {
    let graph = CallGraph::build(module);
    let mut checker = Checker {
        module,
        graph: &graph,
        unprotected,
        failing: None,
        calls: FunctionFlags::new(module, |function| function.op_count),
        pairs: FxHashSet::default(),
        violations: Vec::new(),
    };
    let stats = scan_module(module, &mut checker);
    let mut violations = checker.violations;
    violations.sort_by_key(|v| (v.caller, v.call_order, v.kernel));
    PhaseBReport { violations, scan_targets: stats.scan_targets, launches_checked: checker.calls.count() }
}
