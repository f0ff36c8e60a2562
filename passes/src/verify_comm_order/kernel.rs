//! The InCore kernel checker: a forward may-analysis of pending obligations
//! (`lattice`) over the structured control flow of one function.
//!
//! Every region is walked once with source generation on ("walk 1"); a loop
//! may add one more walk of its body with only the facts that came around
//! the back edge and were not there before ("the delta walk"), and a walk
//! whose incoming delta is empty is skipped. No walk iterates to a fixpoint:
//!
//! * The facts entering a loop from outside, through any number of
//!   iterations, are the closure `close(X)` under the body's summary (a
//!   reflexive closure: facts stay, and stage 1 may become stage 2). One walk
//!   of the body with `close(X)` finds every sink they reach in any
//!   iteration.
//! * The facts the body generates that reach its end (the back edge) are
//!   found by that same walk; closing them and walking once more (without
//!   generating again) finds every sink they reach in later iterations.
//!
//! Both follow from distributivity: walking with a union of facts is the
//! union of walking with each. So a function costs one walk of every region,
//! plus a delta walk of a loop body only where obligations actually cross a
//! back edge (none at all in a program whose markers are in place).

use super::lattice::{Rel, Sources, State, Summary, ENTRY, OPAQUE};
use super::walk::{join_into, Iteration, Walk};
use crate::comm_order::model::{Event, EventKind, Function, Node, OpKey, Region};
use rustc_hash::FxHashMap;

/// What kind of obligation a source op creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SourceKind {
    Local,
    Remote,
    Opaque,
    Wait,
}

/// What was still missing when the obligation reached the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Missing {
    /// The invalidate (and the fence after it).
    Invalidate,
    /// The fence after the invalidate.
    Fence,
    /// The whole-GM invalidate after a wait.
    WaitInvalidate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SinkKind {
    Notify,
    Return,
    GmRead,
}

/// One (source, sink) pair: a path from the source reaches the sink with
/// the obligation still pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Violation {
    pub source: OpKey,
    pub source_order: u32,
    pub source_kind: SourceKind,
    pub sink: OpKey,
    pub sink_order: u32,
    pub sink_kind: SinkKind,
    pub missing: Missing,
}

/// The checker's answer for one function.
#[derive(Clone, Debug, Default)]
pub struct KernelReport {
    /// Sorted by (source, sink) program order, one per pair.
    pub violations: Vec<Violation>,
    /// The first GM read (program order) that a path from the function's
    /// entry reaches without a whole-GM invalidate (`None`: the kernel is
    /// safe to launch after a collective).
    pub unprotected_read: Option<(u32, OpKey)>,
    /// Every GM read a path from the entry reaches without a whole-GM
    /// invalidate, in program order (what a stale line an earlier launch
    /// left may be read by).
    pub unprotected_reads: Vec<(u32, OpKey)>,
    /// Walks of a loop body beyond the first (statistics).
    pub delta_walks: u64,
}

/// Checks one InCore function.
pub fn check(function: &Function) -> KernelReport {
    let Some(body) = &function.body else {
        return KernelReport::default();
    };
    let mut walker = Walker {
        summaries: vec![None; function.region_count as usize],
        sources: FxHashMap::default(),
        found: FxHashMap::default(),
        unprotected_read: None,
        unprotected_reads: Vec::new(),
        delta_walks: 0,
    };
    let mut entry = State::default();
    entry.waits.insert(ENTRY);
    walker.region(body, entry, true);
    let mut violations: Vec<Violation> = walker.found.into_values().collect();
    violations.sort_by_key(|v| (v.source_order, v.sink_order));
    let mut unprotected_reads = walker.unprotected_reads;
    unprotected_reads.sort_unstable_by_key(|(order, _)| *order);
    unprotected_reads.dedup();
    KernelReport {
        violations,
        unprotected_read: walker.unprotected_read,
        unprotected_reads,
        delta_walks: walker.delta_walks,
    }
}

/// `function` as the insert pass's rules will leave it for the reads of
/// its entry: a whole-GM invalidate after every wait and every call (rules
/// 3, 4 and 5 put one there, or after the run of waits or the wait loop
/// that holds it, before any read). For what a kernel reads before any
/// invalidate, before the markers are in.
pub fn after_the_rules(function: &Function) -> Function {
    fn region(region: &Region) -> Region {
        Region {
            id: region.id,
            blocks: region
                .blocks
                .iter()
                .map(|block| crate::comm_order::model::Block {
                    nodes: block.nodes.iter().map(node).collect(),
                    successors: block.successors.clone(),
                })
                .collect(),
        }
    }
    fn node(node: &Node) -> Node {
        match node {
            Node::Event(event) => {
                let mut event = event.clone();
                if matches!(event.kind, EventKind::Wait | EventKind::Call { .. }) {
                    event.kind = EventKind::Invalidate(None);
                }
                Node::Event(event)
            }
            Node::If { then, otherwise } => Node::If { then: region(then), otherwise: otherwise.as_ref().map(region) },
            Node::Switch { cases } => Node::Switch { cases: cases.iter().map(region).collect() },
            Node::Loop { kind, body } => Node::Loop { kind: *kind, body: region(body) },
            Node::While { before, after } => Node::While { before: region(before), after: region(after) },
            Node::Scope { body } => Node::Scope { body: region(body) },
            Node::Opaque { regions } => Node::Opaque { regions: regions.iter().map(region).collect() },
        }
    }
    Function { body: function.body.as_ref().map(region), callees: function.callees.clone(), ..function.clone() }
}

struct Walker {
    summaries: Vec<Option<Summary>>,
    sources: FxHashMap<u32, (OpKey, SourceKind)>,
    found: FxHashMap<(u32, u32), Violation>,
    unprotected_read: Option<(u32, OpKey)>,
    unprotected_reads: Vec<(u32, OpKey)>,
    delta_walks: u64,
}

impl Walk for Walker {
    type Facts = State;

    fn node(&mut self, node: &Node, state: &mut State, gens: bool) {
        match node {
            Node::Event(event) => self.event(event, state, gens),
            Node::If { then, otherwise } => self.either(then, otherwise.as_ref(), state, gens),
            Node::Switch { cases } => self.any_of(cases, state, gens),
            Node::Loop { body, .. } => {
                // InCore: a parallel loop's iterations may also run one after
                // another on the core, so it is treated as sequential.
                let incoming = std::mem::take(state);
                *state = self.repeat(&Iteration::Body(body), incoming, gens).0;
            }
            Node::While { before, after } => {
                let incoming = std::mem::take(state);
                *state = self.repeat(&Iteration::While(before, after), incoming, gens).1;
            }
            Node::Scope { body } => {
                let incoming = std::mem::take(state);
                *state = self.region(body, incoming, gens);
            }
            Node::Opaque { regions } => {
                let incoming = std::mem::take(state);
                *state = self.repeat(&Iteration::AnyRegion(regions), incoming, gens).0;
            }
        }
    }

    /// A region of several blocks, along its successor edges: a block's
    /// incoming facts are the union of its predecessors' outgoing ones, to
    /// the fixpoint (facts only grow); the region ends with the union of
    /// what its exit blocks end with, dead when none is reached. Blocks the
    /// entry does not reach are not walked: no path gets there.
    fn cfg(&mut self, region: &Region, entry: State, gens: bool) -> State {
        let mut incoming: Vec<Option<State>> = vec![None; region.blocks.len()];
        let mut exit = State::dead();
        let mut work = vec![0usize];
        incoming[0] = Some(entry);
        {
            while let Some(b) = work.pop() {
                let state = incoming[b].clone().unwrap_or_default();
                let out = self.block(&region.blocks[b].nodes, state, gens);
                if region.blocks[b].successors.is_empty() {
                    exit.union_with(&out);
                }
                for &s in &region.blocks[b].successors {
                    let s = s as usize;
                    if join_into(&mut incoming[s], &out) {
                        work.push(s);
                    }
                }
            }
        }
        exit
    }
}

impl Walker {
    // -- summaries -------------------------------------------------------

    fn summary(&mut self, region: &Region) -> Summary {
        if let Some(Some(known)) = self.summaries.get(region.id as usize) {
            return known.clone();
        }
        let summary = match region.single_block() {
            Some(nodes) => self.block_summary(nodes),
            None => self.cfg_summary(region),
        };
        if let Some(slot) = self.summaries.get_mut(region.id as usize) {
            *slot = Some(summary.clone());
        }
        summary
    }

    /// The effect of a region of several blocks from its entry to its exits,
    /// along successor edges: the summary at a block's entry is the union,
    /// over its predecessors, of theirs followed by their block's, to the
    /// fixpoint (the lattice is finite). Blocks the entry does not reach
    /// take no part: no path from the region's entry goes through them.
    fn cfg_summary(&mut self, region: &Region) -> Summary {
        let blocks: Vec<Summary> = region.blocks.iter().map(|block| self.block_summary(&block.nodes)).collect();
        let mut at: Vec<Option<Summary>> = vec![None; blocks.len()];
        at[0] = Some(Summary::identity());
        let mut work = vec![0usize];
        let mut exit: Option<Summary> = None;
        while let Some(b) = work.pop() {
            let out = at[b].as_ref().expect("queued blocks are reached").then(&blocks[b]);
            if region.blocks[b].successors.is_empty() {
                exit = Some(match exit {
                    Some(exit) => exit.or(&out),
                    None => out.clone(),
                });
            }
            for &s in &region.blocks[b].successors {
                let s = s as usize;
                let merged = match &at[s] {
                    Some(known) => known.or(&out),
                    None => out.clone(),
                };
                if at[s].as_ref() != Some(&merged) {
                    at[s] = Some(merged);
                    work.push(s);
                }
            }
        }
        // A region no exit of which is reached never completes: nothing
        // leaves it (every fact is dropped), the identity-free relation.
        exit.unwrap_or(Summary::uniform(Rel::NONE))
    }

    fn block_summary(&mut self, nodes: &[Node]) -> Summary {
        let mut acc = Summary::identity();
        for node in nodes {
            if let Some(s) = self.node_summary(node) {
                acc = acc.then(&s);
            }
        }
        acc
    }

    fn any_summary(&mut self, regions: &[Region]) -> Summary {
        let mut acc: Option<Summary> = None;
        for region in regions {
            let s = self.summary(region);
            acc = Some(match acc {
                Some(acc) => acc.or(&s),
                None => s,
            });
        }
        acc.unwrap_or_else(Summary::identity)
    }

    /// `None` for the identity (most ops).
    fn node_summary(&mut self, node: &Node) -> Option<Summary> {
        Some(match node {
            Node::Event(event) => match event.kind {
                EventKind::Fence => Summary::uniform(Rel::FENCE),
                EventKind::Invalidate(Some(window)) => Summary::invalidate_window(window),
                EventKind::Invalidate(None) => Summary::uniform(Rel::INVALIDATE),
                _ => return None,
            },
            Node::If { then, otherwise } => {
                let then = self.summary(then);
                let otherwise = match otherwise {
                    Some(region) => self.summary(region),
                    None => Summary::identity(),
                };
                then.or(&otherwise)
            }
            Node::Switch { cases } => self.any_summary(cases),
            Node::Loop { body, .. } => self.summary(body).star(),
            Node::While { before, after } => {
                let before = self.summary(before);
                let after = self.summary(after);
                before.then(&after.then(&before).star())
            }
            Node::Scope { body } => self.summary(body),
            Node::Opaque { regions } => self.any_summary(regions).star(),
        })
    }

    fn iteration_summary(&mut self, iteration: &Iteration<'_>) -> Summary {
        match iteration {
            Iteration::Body(body) => self.summary(body),
            Iteration::While(before, after) => {
                let before = self.summary(before);
                before.then(&self.summary(after))
            }
            Iteration::AnyRegion(regions) => self.any_summary(regions),
        }
    }

    // -- walks -----------------------------------------------------------

    /// Zero or more iterations. Returns (the state at the loop header, the
    /// union of the exit states of `iterate`).
    fn repeat(&mut self, iteration: &Iteration<'_>, entry: State, gens: bool) -> (State, State) {
        let closure = self.iteration_summary(iteration).star();
        let mut header = entry;
        header.close(&closure);
        let (mut exit, end) = self.iterate(iteration, header.clone(), gens);
        if gens {
            let mut carried = end.minus(&header);
            carried.close(&closure);
            let carried = carried.minus(&header);
            if !carried.is_empty() {
                self.delta_walks += 1;
                let (exit2, _) = self.iterate(iteration, carried.clone(), false);
                exit.union_with(&exit2);
                header.union_with(&carried);
            }
        }
        (header, exit)
    }

    fn event(&mut self, event: &Event, state: &mut State, gens: bool) {
        match &event.kind {
            EventKind::Store { window: Some(window) } => {
                if gens {
                    self.sources.insert(event.order, (event.op, SourceKind::Local));
                    state.need_invalidate.entry(*window, Sources::default()).insert(event.order);
                }
            }
            EventKind::RemoteStore => {
                if gens {
                    self.sources.insert(event.order, (event.op, SourceKind::Remote));
                    state.need_fence.insert(event.order);
                }
            }
            EventKind::Call { .. } => {
                if gens {
                    self.sources.insert(event.order, (event.op, SourceKind::Opaque));
                    state.need_invalidate.entry(OPAQUE, Sources::default()).insert(event.order);
                }
            }
            EventKind::Wait => {
                if gens {
                    self.sources.insert(event.order, (event.op, SourceKind::Wait));
                    state.waits.insert(event.order);
                }
            }
            EventKind::Fence => state.fence(),
            EventKind::Invalidate(Some(window)) => state.invalidate_window(*window),
            EventKind::Invalidate(None) => state.invalidate_all(),
            EventKind::Notify | EventKind::Return => {
                let sink_kind = if event.kind == EventKind::Notify { SinkKind::Notify } else { SinkKind::Return };
                let stage1: Vec<u32> = state.need_invalidate.values().flat_map(Sources::iter).copied().collect();
                for source in stage1 {
                    self.hit(source, event, sink_kind, Missing::Invalidate);
                }
                let stage2: Vec<u32> = state.need_fence.iter().copied().collect();
                for source in stage2 {
                    self.hit(source, event, sink_kind, Missing::Fence);
                }
            }
            EventKind::GmRead => {
                let waits: Vec<u32> = state.waits.iter().copied().collect();
                for source in waits {
                    if source == ENTRY {
                        if self.unprotected_read.is_none_or(|(order, _)| event.order < order) {
                            self.unprotected_read = Some((event.order, event.op));
                        }
                        self.unprotected_reads.push((event.order, event.op));
                    } else {
                        self.hit(source, event, SinkKind::GmRead, Missing::WaitInvalidate);
                    }
                }
            }
            EventKind::Store { window: None } | EventKind::Collective => {}
        }
    }

    fn hit(&mut self, source: u32, sink: &Event, sink_kind: SinkKind, missing: Missing) {
        let Some(&(source_op, source_kind)) = self.sources.get(&source) else {
            return;
        };
        self.found.entry((source, sink.order)).or_insert(Violation {
            source: source_op,
            source_order: source,
            source_kind,
            sink: sink.op,
            sink_order: sink.order,
            sink_kind,
            missing,
        });
    }
}

#[cfg(test)]
mod tests {
    //! The checker against the oracle on random trees built directly,
    //! including shapes the generator cannot write (opaque region ops,
    //! multi-block regions, switches, many windows).
    use super::*;
    use crate::{
        comm_order::model::{Block, LoopKind},
        verify_comm_order::oracle,
    };
    use cclir_dialect::names::FunctionKind;
    use std::collections::BTreeSet;

    struct Gen {
        state: u64,
        order: u32,
        regions: u32,
    }

    impl Gen {
        fn below(&mut self, n: u64) -> u64 {
            self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }

        fn event(&mut self) -> Node {
            let kind = match self.below(12) {
                0 | 1 => EventKind::Store { window: Some(self.below(3) as u32) },
                2 => EventKind::RemoteStore,
                3 => EventKind::Call { callee: None, submit: false },
                4 => EventKind::Wait,
                5 | 6 => EventKind::Fence,
                7 => EventKind::Invalidate(Some(self.below(3) as u32)),
                8 => EventKind::Invalidate(None),
                9 => EventKind::Notify,
                10 => EventKind::GmRead,
                _ => EventKind::Store { window: None },
            };
            self.order += 1;
            Node::Event(Event { op: OpKey::synthetic(self.order), order: self.order, kind })
        }

        /// A region of `blocks` blocks; with several, each block branches to
        /// zero, one or two random blocks (back edges, self loops and blocks
        /// the entry does not reach included).
        fn region(&mut self, depth: u32, blocks: u64) -> Region {
            let id = self.regions;
            self.regions += 1;
            let blocks = (0..blocks)
                .map(|_| {
                    let nodes = self.nodes(depth);
                    let successors = if blocks > 1 {
                        (0..self.below(3)).map(|_| self.below(blocks) as u32).collect()
                    } else {
                        Vec::new()
                    };
                    Block { nodes, successors }
                })
                .collect();
            Region { id, blocks }
        }

        fn nodes(&mut self, depth: u32) -> Vec<Node> {
            let len = self.below(5);
            (0..len)
                .map(|_| {
                    if depth == 0 || self.below(3) != 0 {
                        return self.event();
                    }
                    let d = depth - 1;
                    match self.below(7) {
                        0 => Node::If { then: self.region(d, 1), otherwise: Some(self.region(d, 1)) },
                        1 => Node::If { then: self.region(d, 1), otherwise: None },
                        2 => Node::Loop { kind: LoopKind::Sequential, body: self.region(d, 1) },
                        3 => Node::While { before: self.region(d, 1), after: self.region(d, 1) },
                        4 => Node::Switch { cases: vec![self.region(d, 1), self.region(d, 1)] },
                        5 => Node::Opaque { regions: vec![self.region(d, 1), self.region(d, 2)] },
                        _ => {
                            let blocks = 1 + self.below(4);
                            Node::Scope { body: self.region(d, blocks) }
                        }
                    }
                })
                .collect()
        }
    }

    #[test]
    fn agrees_with_the_oracle_on_random_trees() {
        let mut nonempty = 0;
        for seed in 0..3000 {
            let mut g = Gen { state: seed, order: 0, regions: 0 };
            let blocks = 1 + g.below(3);
            let mut body = g.region(3, blocks);
            // Every block that leaves the function ends with its return.
            for block in body.blocks.iter_mut().filter(|b| b.successors.is_empty()) {
                g.order += 1;
                block.nodes.push(Node::Event(Event {
                    op: OpKey::synthetic(g.order),
                    order: g.order,
                    kind: EventKind::Return,
                }));
            }
            let function = Function {
                name: format!("t{seed}"),
                op: OpKey::synthetic(0),
                kind: FunctionKind::InCore,
                builtin_template: false,
                region_count: g.regions,
                window_count: 3,
                op_count: g.order + 1,
                region_owners: Vec::new(),
                callees: Vec::new(),
                body: Some(body),
            };
            let fast = check(&function);
            let slow = oracle::check(&function);
            let pairs: BTreeSet<(u32, u32)> = fast.violations.iter().map(|v| (v.source_order, v.sink_order)).collect();
            assert_eq!(pairs, slow.pairs, "seed {seed}: {:?}", function.body);
            assert_eq!(fast.unprotected_read.map(|(o, _)| o), slow.unprotected_read, "seed {seed}");
            nonempty += (!pairs.is_empty()) as u32;
        }
        assert!(nonempty > 500, "only {nonempty} trees with violations");
    }
}
