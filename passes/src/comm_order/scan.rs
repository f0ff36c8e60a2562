//! Phase B's scan of the orchestration-like functions (docs/semantics.md):
//! the flag `seen`, "a publish happened on some path before here", threaded
//! through the program, and every call-like op met while it holds. The
//! insert pass marks the kernels those calls launch; the checker requires
//! them to invalidate before their first GM read. One scan, so what the
//! checker demands is exactly what the inserter provides.
//!
//! The flag carries the publish that set it (for the checker's note); it
//! only grows (no publish, then some publish), so every fixpoint below
//! ends after one more visit:
//! - a block folds its nodes left to right;
//! - `scf.if` and switches: each branch from the incoming flag, OR of the
//!   results; `scf.execute_region`: its body;
//! - sequential loops (`scf.for`, `scf.while`, any other op with regions):
//!   the body, and once more with the flag set when the body published and
//!   the flag was clear (loop-carried order); parallel loops: once;
//! - a region of several blocks follows its successor edges: a block's
//!   flag is the OR of its predecessors', the entry block's the region's;
//!   blocks no path from the entry reaches start clear; the region's
//!   result is the OR of the blocks that leave it;
//! - a call publishes when it is a `ccl.submit`, calls a function with
//!   `ccl.builtin_template_dir`, or calls an orchestration-like function
//!   whose own scan (from a clear flag) ends set: each function's scan is
//!   its summary, computed callees first; a recursive component is scanned
//!   again until no summary changes.
//!
//! A region scanned once with the flag set is not scanned with it set again
//! (nothing new can happen there), so each region is scanned at most twice
//! per summary round.

use super::{
    call_graph::CallGraph,
    model::{Event, EventKind, LoopKind, Module, Node, OpHandle, Region},
};
use crate::names::FunctionKind;

/// The flag: `Some(publish)` once a publish happened on some path.
pub type Seen = Option<OpHandle>;

/// What a scan reports: a call-like `call` in `caller`, met while `seen`
/// holds `publish`, naming `callee` (a function of the module, or none).
/// The same call may be reported more than once (a rescan); consumers keep
/// sets.
pub trait Launches {
    fn launch(&mut self, caller: usize, call: &Event, callee: Option<usize>, publish: OpHandle);
}

/// What a scan of the module did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Orchestration-like functions scanned (the scan targets).
    pub scan_targets: u64,
    /// Loop bodies and multi-block regions scanned again with the flag set.
    pub rescans: u64,
    /// Ops the scan visited (at most twice the ops of scan targets, per
    /// summary round).
    pub op_visits: u64,
    /// Calls that publish because the orchestration-like function they
    /// call does (its own scan ends with the flag set), each counted once.
    pub wrapper_publishes: u64,
}

/// Scans every orchestration-like function of `module`.
pub fn scan_module(module: &Module, graph: &CallGraph, launches: &mut dyn Launches) -> ScanStats {
    let mut scanner = Scanner {
        module,
        summaries: vec![false; module.functions.len()],
        saturated: FunctionFlags::new(module, |function| function.region_count),
        wrapper_calls: FunctionFlags::new(module, |function| function.op_count),
        caller: 0,
        launches,
        stats: ScanStats::default(),
    };
    for component in graph.components() {
        let members: Vec<usize> =
            component.filter(|&f| module.functions[f].kind == FunctionKind::Orchestration).collect();
        scanner.stats.scan_targets += members.len() as u64;
        let recursive = members.iter().any(|&f| graph.is_recursive(f));
        loop {
            let mut changed = false;
            for &f in &members {
                let publishes = scanner.function(f).is_some();
                if publishes && !scanner.summaries[f] {
                    scanner.summaries[f] = true;
                    changed = true;
                }
            }
            // A summary that became true can only matter to a member of
            // the same (recursive) component: the callees are done.
            if !(recursive && changed) {
                break;
            }
        }
    }
    scanner.stats.wrapper_publishes = scanner.wrapper_calls.count();
    scanner.stats
}

/// One flag per (function, index) for the indices `0..size(function)` of
/// every function of a module: a flat vector with an offset per function,
/// in place of a hash set of pairs the scan asks once per region it enters.
pub struct FunctionFlags {
    offsets: Vec<usize>,
    flags: Vec<bool>,
    /// How many flags are set.
    count: u64,
}

impl FunctionFlags {
    pub fn new(module: &Module, size: impl Fn(&super::model::Function) -> u32) -> Self {
        let mut offsets = Vec::with_capacity(module.functions.len());
        let mut total = 0;
        for function in &module.functions {
            offsets.push(total);
            total += size(function) as usize;
        }
        FunctionFlags { offsets, flags: vec![false; total], count: 0 }
    }

    pub fn get(&self, function: usize, index: u32) -> bool {
        self.flags[self.offsets[function] + index as usize]
    }

    /// Sets the flag; whether it was clear.
    pub fn set(&mut self, function: usize, index: u32) -> bool {
        let was_clear = !std::mem::replace(&mut self.flags[self.offsets[function] + index as usize], true);
        self.count += was_clear as u64;
        was_clear
    }

    /// How many (function, index) pairs have their flag set.
    pub fn count(&self) -> u64 {
        self.count
    }
}

struct Scanner<'m, 'l> {
    module: &'m Module,
    /// Per function: whether its own scan ends with the flag set.
    summaries: Vec<bool>,
    /// (function, region) already scanned with the flag set.
    saturated: FunctionFlags,
    /// (caller, call order) of the calls that publish through a summary.
    wrapper_calls: FunctionFlags,
    caller: usize,
    launches: &'l mut dyn Launches,
    stats: ScanStats,
}

impl Scanner<'_, '_> {
    fn function(&mut self, f: usize) -> Seen {
        self.caller = f;
        let module = self.module;
        match &module.functions[f].body {
            Some(body) => self.region(body, None),
            None => None,
        }
    }

    fn region(&mut self, region: &Region, seen: Seen) -> Seen {
        if seen.is_some() && self.saturated.get(self.caller, region.id) {
            return seen;
        }
        let result = match region.single_block() {
            Some(nodes) => self.block(nodes, seen),
            None => self.blocks(region, seen),
        };
        if seen.is_some() {
            self.saturated.set(self.caller, region.id);
        }
        result
    }

    /// A region of several blocks, along its successor edges.
    fn blocks(&mut self, region: &Region, seen: Seen) -> Seen {
        let n = region.blocks.len();
        // None: not reached yet; Some(flag): the block's incoming flag.
        let mut incoming: Vec<Option<Seen>> = vec![None; n];
        let mut exit: Seen = None;
        let mut work: Vec<usize> = Vec::new();
        let mut rescanned = false;
        incoming[0] = Some(seen);
        work.push(0);
        let mut next_unreached = 0;
        loop {
            while let Some(b) = work.pop() {
                let flag = incoming[b].flatten();
                let out = self.block(&region.blocks[b].nodes, flag);
                if region.blocks[b].successors.is_empty() {
                    exit = exit.or(out);
                }
                for &s in &region.blocks[b].successors {
                    let s = s as usize;
                    match incoming[s] {
                        None => {
                            incoming[s] = Some(out);
                            work.push(s);
                        }
                        Some(None) if out.is_some() => {
                            incoming[s] = Some(out);
                            rescanned = true;
                            work.push(s);
                        }
                        Some(_) => {}
                    }
                }
            }
            // Blocks no path from the entry reaches start clear.
            while next_unreached < n && incoming[next_unreached].is_some() {
                next_unreached += 1;
            }
            if next_unreached == n {
                break;
            }
            incoming[next_unreached] = Some(None);
            work.push(next_unreached);
        }
        if rescanned {
            self.stats.rescans += 1;
        }
        exit
    }

    fn block(&mut self, nodes: &[super::model::Node], seen: Seen) -> Seen {
        nodes.iter().fold(seen, |s, node| self.node(node, s))
    }

    fn in_sequence(&mut self, regions: &[&Region], seen: Seen) -> Seen {
        regions.iter().fold(seen, |s, region| self.region(region, s))
    }

    fn sequential_loop(&mut self, regions: &[&Region], seen: Seen) -> Seen {
        let result = self.in_sequence(regions, seen);
        if result.is_some() && seen.is_none() {
            self.stats.rescans += 1;
            self.in_sequence(regions, result);
        }
        result
    }

    fn node(&mut self, node: &Node, seen: Seen) -> Seen {
        match node {
            Node::Event(event) => {
                self.stats.op_visits += 1;
                self.event(event, seen)
            }
            Node::If { then, otherwise } => {
                let then = self.region(then, seen);
                let otherwise = match otherwise {
                    Some(region) => self.region(region, seen),
                    None => seen,
                };
                then.or(otherwise)
            }
            Node::Switch { cases } => cases.iter().fold(seen, |any, case| self.region(case, seen).or(any)),
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
                if let Some(publish) = seen {
                    self.launches.launch(self.caller, event, *callee, publish);
                }
                let function = callee.map(|c| (&self.module.functions[c], self.summaries[c]));
                let through_wrapper =
                    function.is_some_and(|(f, summary)| f.kind == FunctionKind::Orchestration && summary);
                if through_wrapper {
                    self.wrapper_calls.set(self.caller, event.order);
                }
                let publishes = *submit || through_wrapper || function.is_some_and(|(f, _)| f.builtin_template);
                if publishes {
                    seen.or(Some(event.op))
                } else {
                    seen
                }
            }
            EventKind::Collective => seen.or(Some(event.op)),
            _ => seen,
        }
    }
}
