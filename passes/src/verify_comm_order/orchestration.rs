//! Phase B: post-collective consumers. In every scan target (an
//! orchestration-like function) a call-like op met on a path after a
//! publish launches kernels that must invalidate whole-GM before their first
//! GM read; the kernel checker already knows, per InCore function, the
//! first GM read its entry reaches without one (`unprotected_read`).
//!
//! The scan is SEMANTICS.md's, flag for flag, with the flag carrying the
//! publish that set it (for the note): branches join with OR, a sequential
//! loop is rescanned once with the flag set when its body published and the
//! flag was clear, parallel loops are scanned once, unstructured regions and
//! unknown region ops are treated as sequential loops. A region already
//! scanned with the flag set is not scanned again with it set (nothing new
//! can happen), so each region is scanned at most twice: linear time.
//!
//! Wrappers (orchestration-like callees) resolve to the InCore functions
//! they reach through calls of non-InCore functions, transitively, on the
//! strongly connected components of the call graph (petgraph), memoised per
//! component and restricted to the kernels that would fail, so resolution
//! costs nothing when every kernel is safe.

use super::model::{Event, EventKind, Function, LoopKind, Module, Node, OpHandle, Region};
use crate::names::FunctionKind;
use petgraph::{algo::tarjan_scc, graph::DiGraph, graph::NodeIndex};
use std::collections::{BTreeSet, HashSet};

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

/// `unprotected[i]` is the first unprotected GM read of function `i` (only
/// InCore functions have one).
pub fn check(module: &Module, unprotected: &[Option<OpHandle>]) -> PhaseBReport {
    let mut scanner = Scanner {
        module,
        unprotected,
        resolution: None,
        saturated: HashSet::new(),
        seen_pairs: HashSet::new(),
        caller: 0,
        report: PhaseBReport::default(),
    };
    for (index, function) in module.functions.iter().enumerate() {
        if function.kind != FunctionKind::Orchestration {
            continue;
        }
        scanner.report.scan_targets += 1;
        if let Some(body) = &function.body {
            scanner.caller = index;
            scanner.region(body, None);
        }
    }
    let mut report = scanner.report;
    report.violations.sort_by_key(|v| (v.caller, v.call_order, v.kernel));
    report
}

/// The flag: `Some(publish)` once a publish happened on some path.
type Seen = Option<OpHandle>;

struct Scanner<'m> {
    module: &'m Module,
    unprotected: &'m [Option<OpHandle>],
    /// Per function: the failing InCore functions it reaches as a wrapper
    /// (computed on first need).
    resolution: Option<Vec<Vec<usize>>>,
    saturated: HashSet<(usize, u32)>,
    seen_pairs: HashSet<(usize, u32, usize)>,
    caller: usize,
    report: PhaseBReport,
}

impl Scanner<'_> {
    fn region(&mut self, region: &Region, seen: Seen) -> Seen {
        let key = (self.caller, region.id);
        if seen.is_some() && self.saturated.contains(&key) {
            return seen;
        }
        let result = match region.blocks.as_slice() {
            [] => seen,
            [block] => self.block(block, seen),
            many => {
                let first = many.iter().fold(seen, |s, block| self.block(block, s));
                if first.is_some() && seen.is_none() {
                    many.iter().fold(first, |s, block| self.block(block, s));
                    self.saturated.insert(key);
                }
                first
            }
        };
        if seen.is_some() {
            self.saturated.insert(key);
        }
        result
    }

    fn block(&mut self, nodes: &[Node], seen: Seen) -> Seen {
        nodes.iter().fold(seen, |s, node| self.node(node, s))
    }

    fn in_sequence(&mut self, regions: &[&Region], seen: Seen) -> Seen {
        regions.iter().fold(seen, |s, region| self.region(region, s))
    }

    fn sequential_loop(&mut self, regions: &[&Region], seen: Seen) -> Seen {
        let result = self.in_sequence(regions, seen);
        if result.is_some() && seen.is_none() {
            self.in_sequence(regions, result);
        }
        result
    }

    fn node(&mut self, node: &Node, seen: Seen) -> Seen {
        match node {
            Node::Event(event) => self.event(event, seen),
            Node::If { then, otherwise } => {
                let then = self.region(then, seen);
                let otherwise = match otherwise {
                    Some(region) => self.region(region, seen),
                    None => seen,
                };
                then.or(otherwise)
            }
            Node::Switch { cases } => {
                let mut result = seen;
                for case in cases {
                    let r = self.region(case, seen);
                    result = result.or(r);
                }
                result
            }
            Node::Scope { body } => self.region(body, seen),
            Node::Loop { kind: LoopKind::Sequential, body } => self.sequential_loop(&[body], seen),
            Node::Loop { kind: LoopKind::Parallel, body } => self.region(body, seen),
            Node::While { before, after } => self.sequential_loop(&[before, after], seen),
            Node::Opaque { regions } => {
                let regions: Vec<&Region> = regions.iter().collect();
                self.sequential_loop(&regions, seen)
            }
        }
    }

    fn event(&mut self, event: &Event, seen: Seen) -> Seen {
        match &event.kind {
            EventKind::Call { callee, submit } => {
                let callee = callee.as_deref().and_then(|name| self.module.by_name.get(name).copied());
                if let Some(publish) = seen {
                    self.report.launches_checked += 1;
                    if let Some(callee) = callee {
                        self.mark(event, callee, publish);
                    }
                }
                let template = callee.is_some_and(|c| self.module.functions[c].builtin_template);
                if *submit || template {
                    seen.or(Some(event.op))
                } else {
                    seen
                }
            }
            EventKind::Collective => seen.or(Some(event.op)),
            _ => seen,
        }
    }

    fn mark(&mut self, call: &Event, callee: usize, publish: OpHandle) {
        match self.module.functions[callee].kind {
            FunctionKind::InCore => self.flag(call, None, callee, publish),
            FunctionKind::Orchestration => {
                let reached = self.resolve(callee);
                for kernel in reached {
                    self.flag(call, Some(callee), kernel, publish);
                }
            }
            FunctionKind::Other => {}
        }
    }

    fn flag(&mut self, call: &Event, wrapper: Option<usize>, kernel: usize, publish: OpHandle) {
        let Some(read) = self.unprotected.get(kernel).copied().flatten() else {
            return;
        };
        if !self.seen_pairs.insert((self.caller, call.order, kernel)) {
            return;
        }
        self.report.violations.push(LaunchViolation {
            caller: self.caller,
            call: call.op,
            call_order: call.order,
            wrapper,
            kernel,
            publish,
            read,
        });
    }

    fn resolve(&mut self, wrapper: usize) -> Vec<usize> {
        if self.unprotected.iter().all(Option::is_none) {
            return Vec::new();
        }
        if self.resolution.is_none() {
            self.resolution = Some(resolve_failing(self.module, self.unprotected));
        }
        self.resolution.as_ref().map(|r| r[wrapper].clone()).unwrap_or_default()
    }
}

/// The call graph: an edge `f -> g` per call-like op in a non-InCore `f`
/// naming a function `g` of the module (InCore functions' calls are opaque
/// publishes whose callees are not analysed).
pub fn call_graph(module: &Module) -> DiGraph<usize, ()> {
    let mut graph = DiGraph::with_capacity(module.functions.len(), module.functions.len());
    for index in 0..module.functions.len() {
        graph.add_node(index);
    }
    let mut edges = BTreeSet::new();
    for (index, function) in module.functions.iter().enumerate() {
        if function.kind == FunctionKind::InCore {
            continue;
        }
        for_each_call(function, &mut |callee| {
            if let Some(&target) = module.by_name.get(callee) {
                edges.insert((index, target));
            }
        });
    }
    for (from, to) in edges {
        graph.add_edge(NodeIndex::new(from), NodeIndex::new(to), ());
    }
    graph
}

fn for_each_call(function: &Function, visit: &mut dyn FnMut(&str)) {
    let Some(body) = &function.body else {
        return;
    };
    let mut stack: Vec<&Region> = vec![body];
    while let Some(region) = stack.pop() {
        for node in region.blocks.iter().flatten() {
            match node {
                Node::Event(Event { kind: EventKind::Call { callee: Some(callee), .. }, .. }) => visit(callee),
                Node::Event(_) => {}
                Node::If { then, otherwise } => {
                    stack.push(then);
                    stack.extend(otherwise.iter());
                }
                Node::Switch { cases: regions } | Node::Opaque { regions } => stack.extend(regions.iter()),
                Node::Loop { body, .. } | Node::Scope { body } => stack.push(body),
                Node::While { before, after } => {
                    stack.push(before);
                    stack.push(after);
                }
            }
        }
    }
}

/// For every function, the failing InCore functions it reaches as a
/// wrapper: its InCore callees, and what its non-InCore callees reach.
/// Components of the call graph share one answer; Tarjan's algorithm yields
/// them callees first, so one pass over the components computes all.
pub fn resolve_failing(module: &Module, unprotected: &[Option<OpHandle>]) -> Vec<Vec<usize>> {
    let graph = call_graph(module);
    let components = tarjan_scc(&graph);
    let mut component_of = vec![0usize; module.functions.len()];
    for (index, members) in components.iter().enumerate() {
        for node in members {
            component_of[node.index()] = index;
        }
    }
    let failing = |f: usize| module.functions[f].kind == FunctionKind::InCore && unprotected[f].is_some();
    let mut reach: Vec<Vec<usize>> = vec![Vec::new(); components.len()];
    for (index, members) in components.iter().enumerate() {
        let mut set = BTreeSet::new();
        for member in members {
            for callee in graph.neighbors(*member) {
                let callee_index = callee.index();
                if module.functions[callee_index].kind == FunctionKind::InCore {
                    if failing(callee_index) {
                        set.insert(callee_index);
                    }
                } else {
                    let target = component_of[callee_index];
                    if target != index {
                        set.extend(reach[target].iter().copied());
                    }
                }
            }
        }
        reach[index] = set.into_iter().collect();
    }
    (0..module.functions.len()).map(|f| reach[component_of[f]].clone()).collect()
}
