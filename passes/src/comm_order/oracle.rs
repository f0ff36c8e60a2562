//! A slow, obviously-complete reference of Phase B, for tests: what
//! [`super::scan`] and wrapper resolution must answer, computed the naive
//! way. Summaries are rounds over every orchestration-like function until
//! none changes; each scan re-runs every loop and every region of several
//! blocks until its flags stop changing, with no memo; a wrapper resolves by
//! a fresh walk of the call graph per call. It shares only the model with
//! the fast scan.

use super::model::{Block, EventKind, LoopKind, Module, Node, Region};
use cclir_dialect::names::FunctionKind;
use std::collections::BTreeSet;

/// What Phase B finds in a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhaseB {
    /// Per function: whether its scan from a clear flag ends set.
    pub summaries: Vec<bool>,
    /// (caller, call order, callee) of every call-like op met with the
    /// flag set in a scan target.
    pub launches: BTreeSet<(usize, u32, Option<usize>)>,
    /// The InCore functions those calls launch, directly or through
    /// wrappers, in module order.
    pub marked: Vec<usize>,
    /// Rounds of summaries that changed one (0: no function publishes).
    pub rounds: u32,
}

/// Phase B of `module`, the naive way (cost grows with the square of a
/// cycle of wrappers and exponentially with loop nesting: small inputs only).
pub fn phase_b(module: &Module) -> PhaseB {
    let targets: Vec<usize> =
        (0..module.functions.len()).filter(|&f| module.functions[f].kind == FunctionKind::Orchestration).collect();
    let mut summaries = vec![false; module.functions.len()];
    let mut rounds = 0;
    loop {
        let mut changed = false;
        for &f in &targets {
            let mut scan = Scan { module, summaries: &summaries, caller: f, launches: BTreeSet::new() };
            if scan.function() && !summaries[f] {
                summaries[f] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        rounds += 1;
    }
    let mut launches = BTreeSet::new();
    for &f in &targets {
        let mut scan = Scan { module, summaries: &summaries, caller: f, launches: BTreeSet::new() };
        scan.function();
        launches.extend(scan.launches);
    }
    let mut marked = vec![false; module.functions.len()];
    for &(_, _, callee) in &launches {
        if let Some(callee) = callee {
            mark(module, callee, &mut marked);
        }
    }
    PhaseB { summaries, launches, marked: (0..marked.len()).filter(|&f| marked[f]).collect(), rounds }
}

/// The (caller, call order, kernel) of every kernel a launch of `phase_b`
/// launches, directly or through a wrapper, that `unprotected` says reads
/// GM before invalidating: what the checker must report.
pub fn launch_violations(
    module: &Module,
    phase_b: &PhaseB,
    unprotected: impl Fn(usize) -> bool,
) -> BTreeSet<(usize, u32, usize)> {
    let mut pairs = BTreeSet::new();
    for &(caller, order, callee) in &phase_b.launches {
        let Some(callee) = callee else { continue };
        let mut marked = vec![false; module.functions.len()];
        mark(module, callee, &mut marked);
        pairs.extend((0..marked.len()).filter(|&k| marked[k] && unprotected(k)).map(|k| (caller, order, k)));
    }
    pairs
}

/// Marks `callee` when it is InCore, or every InCore function a walk of
/// its calls reaches when it is orchestration-like (through functions that
/// are not InCore).
fn mark(module: &Module, callee: usize, marked: &mut [bool]) {
    match module.functions[callee].kind {
        FunctionKind::InCore => marked[callee] = true,
        FunctionKind::Orchestration => {
            let mut visited = vec![false; module.functions.len()];
            let mut stack = vec![callee];
            visited[callee] = true;
            while let Some(f) = stack.pop() {
                for &g in &module.functions[f].callees {
                    if module.functions[g].kind == FunctionKind::InCore {
                        marked[g] = true;
                    } else if !std::mem::replace(&mut visited[g], true) {
                        stack.push(g);
                    }
                }
            }
        }
        FunctionKind::Other => {}
    }
}

struct Scan<'m> {
    module: &'m Module,
    summaries: &'m [bool],
    caller: usize,
    launches: BTreeSet<(usize, u32, Option<usize>)>,
}

impl Scan<'_> {
    fn function(&mut self) -> bool {
        let module = self.module;
        match &module.functions[self.caller].body {
            Some(body) => self.region(body, false),
            None => false,
        }
    }

    fn region(&mut self, region: &Region, seen: bool) -> bool {
        if region.blocks.len() <= 1 {
            return region.blocks.first().map_or(seen, |block| self.nodes(&block.nodes, seen));
        }
        // Every block's incoming flag, to the fixpoint: the entry's is the
        // region's, any other the OR of its predecessors' outgoing flags.
        let blocks: &[Block] = &region.blocks;
        let mut incoming = vec![false; blocks.len()];
        incoming[0] = seen;
        loop {
            let outgoing: Vec<bool> = blocks.iter().zip(&incoming).map(|(b, &s)| self.nodes(&b.nodes, s)).collect();
            let mut next = vec![false; blocks.len()];
            next[0] = seen;
            for (b, block) in blocks.iter().enumerate() {
                for &s in &block.successors {
                    next[s as usize] |= outgoing[b];
                }
            }
            if next == incoming {
                return blocks.iter().zip(&outgoing).any(|(block, &out)| block.successors.is_empty() && out);
            }
            incoming = next;
        }
    }

    fn nodes(&mut self, nodes: &[Node], seen: bool) -> bool {
        nodes.iter().fold(seen, |s, node| self.node(node, s))
    }

    fn in_sequence(&mut self, regions: &[&Region], seen: bool) -> bool {
        regions.iter().fold(seen, |s, region| self.region(region, s))
    }

    /// Zero or more iterations in order: the first iteration's result, and
    /// the iterations after it rescanned until their incoming flag is
    /// stable.
    fn repeated(&mut self, regions: &[&Region], seen: bool) -> bool {
        let first = self.in_sequence(regions, seen);
        let mut incoming = seen;
        let mut out = first;
        while incoming != (seen || out) {
            incoming = seen || out;
            out = self.in_sequence(regions, incoming);
        }
        first
    }

    fn node(&mut self, node: &Node, seen: bool) -> bool {
        match node {
            Node::Event(event) => match &event.kind {
                EventKind::Call { callee, submit } => {
                    if seen {
                        self.launches.insert((self.caller, event.order, *callee));
                    }
                    let publishes = *submit
                        || callee.is_some_and(|c| {
                            let function = &self.module.functions[c];
                            function.builtin_template
                                || (function.kind == FunctionKind::Orchestration && self.summaries[c])
                        });
                    seen || publishes
                }
                EventKind::Collective => true,
                _ => seen,
            },
            Node::If { then, otherwise } => {
                let then = self.region(then, seen);
                let otherwise = otherwise.as_ref().map_or(seen, |region| self.region(region, seen));
                then || otherwise
            }
            Node::Switch { cases } => cases.iter().fold(seen, |any, case| self.region(case, seen) || any),
            Node::Scope { body } | Node::Loop { kind: LoopKind::Parallel, body } => self.region(body, seen),
            Node::Loop { kind: LoopKind::Sequential, body } => self.repeated(&[body], seen),
            Node::While { before, after } => self.repeated(&[before, after], seen),
            Node::Opaque { regions } => {
                let regions: Vec<&Region> = regions.iter().collect();
                self.repeated(&regions, seen)
            }
        }
    }
}
