//! A slow reference for the kernel rules, written to be obviously right
//! rather than fast: it follows one source op at a time, keeps the *set of
//! per-path states* (which stages of that source's obligations are pending
//! on a path) and iterates every loop naively until nothing changes, nested
//! loops included. No summaries, closures or delta walks: it shares nothing
//! with `kernel` but the tree it runs on. Its cost is exponential in loop
//! nesting; property tests run it on small programs and compare.

use crate::comm_order::model::{EventKind, Function, Node, Region, WindowId};
use std::collections::BTreeSet;

/// The (source order, sink order) pairs that violate the kernel rules, and
/// the first GM read (order) the entry reaches without a whole-GM
/// invalidate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OracleReport {
    pub pairs: BTreeSet<(u32, u32)>,
    pub unprotected_read: Option<u32>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tracked {
    Local(WindowId),
    Remote,
    Opaque,
    Wait,
    Entry,
}

/// A per-path state: bit 0 = an obligation waiting for its invalidate,
/// bit 1 = one waiting for its fence. A set of them is a `u16` over the
/// four values.
type PathState = u8;
type States = u16;

fn single(p: PathState) -> States {
    1 << p
}

fn map(states: States, f: impl Fn(PathState) -> PathState) -> States {
    (0..4u8).filter(|p| states & (1 << p) != 0).fold(0, |acc, p| acc | single(f(p)))
}

struct Run {
    source: u32,
    tracked: Tracked,
    hits: BTreeSet<u32>,
}

pub fn check(function: &Function) -> OracleReport {
    let mut report = OracleReport::default();
    let Some(body) = &function.body else {
        return report;
    };
    let mut sources = Vec::new();
    collect_sources(body, &mut sources);
    for (order, tracked) in sources {
        let mut run = Run { source: order, tracked, hits: BTreeSet::new() };
        run.region(body, single(0));
        report.pairs.extend(run.hits.into_iter().map(|sink| (order, sink)));
    }
    let mut run = Run { source: u32::MAX, tracked: Tracked::Entry, hits: BTreeSet::new() };
    run.region(body, single(1));
    report.unprotected_read = run.hits.first().copied();
    report
}

fn collect_sources(region: &Region, out: &mut Vec<(u32, Tracked)>) {
    for node in region.blocks.iter().flat_map(|block| &block.nodes) {
        match node {
            Node::Event(event) => {
                let tracked = match event.kind {
                    EventKind::Store { window: Some(w) } => Tracked::Local(w),
                    EventKind::RemoteStore => Tracked::Remote,
                    EventKind::Call { .. } => Tracked::Opaque,
                    EventKind::Wait => Tracked::Wait,
                    _ => continue,
                };
                out.push((event.order, tracked));
            }
            Node::If { then, otherwise } => {
                collect_sources(then, out);
                if let Some(o) = otherwise {
                    collect_sources(o, out);
                }
            }
            Node::Switch { cases: regions } | Node::Opaque { regions } => {
                regions.iter().for_each(|r| collect_sources(r, out))
            }
            Node::Loop { body, .. } | Node::Scope { body } => collect_sources(body, out),
            Node::While { before, after } => {
                collect_sources(before, out);
                collect_sources(after, out);
            }
        }
    }
}

impl Run {
    /// Every block's incoming states, iterated naively until nothing
    /// changes: the entry from `states`, each other block from what its
    /// predecessors end with (no path state at all for a block no path
    /// reaches). The region ends with what its exit blocks end with.
    fn region(&mut self, region: &Region, states: States) -> States {
        let blocks = &region.blocks;
        if blocks.is_empty() {
            return states;
        }
        let mut incoming: Vec<States> = (0..blocks.len()).map(|b| if b == 0 { states } else { 0 }).collect();
        loop {
            let mut next = incoming.clone();
            let mut exit = 0;
            for (b, block) in blocks.iter().enumerate() {
                let out = self.block(&block.nodes, incoming[b]);
                if block.successors.is_empty() {
                    exit |= out;
                }
                for &s in &block.successors {
                    next[s as usize] |= out;
                }
            }
            if next == incoming {
                return exit;
            }
            incoming = next;
        }
    }

    fn block(&mut self, nodes: &[Node], mut states: States) -> States {
        for node in nodes {
            states = self.node(node, states);
        }
        states
    }

    fn node(&mut self, node: &Node, states: States) -> States {
        match node {
            Node::Event(event) => {
                let publish = matches!(self.tracked, Tracked::Local(_) | Tracked::Remote | Tracked::Opaque);
                match &event.kind {
                    _ if event.order == self.source => {
                        let start = if self.tracked == Tracked::Remote { 2 } else { 1 };
                        map(states, |p| p | start)
                    }
                    EventKind::Fence if publish => map(states, |p| p & !2),
                    EventKind::Invalidate(Some(w)) if self.tracked == Tracked::Local(*w) => {
                        map(states, |p| if p & 1 != 0 { (p & !1) | 2 } else { p })
                    }
                    EventKind::Invalidate(None) => {
                        if publish {
                            map(states, |p| if p & 1 != 0 { (p & !1) | 2 } else { p })
                        } else {
                            map(states, |_| 0)
                        }
                    }
                    EventKind::Notify | EventKind::Return if publish => {
                        if states & !single(0) != 0 {
                            self.hits.insert(event.order);
                        }
                        states
                    }
                    EventKind::GmRead if !publish => {
                        if states & !single(0) != 0 {
                            self.hits.insert(event.order);
                        }
                        states
                    }
                    _ => states,
                }
            }
            Node::If { then, otherwise } => {
                let a = self.region(then, states);
                let b = match otherwise {
                    Some(o) => self.region(o, states),
                    None => states,
                };
                a | b
            }
            Node::Switch { cases } => cases.iter().fold(0, |acc, case| acc | self.region(case, states)),
            Node::Scope { body } => self.region(body, states),
            Node::Loop { body, .. } => {
                let mut acc = states;
                loop {
                    let next = acc | self.region(body, acc);
                    if next == acc {
                        return acc;
                    }
                    acc = next;
                }
            }
            Node::While { before, after } => {
                let mut acc = states;
                let mut exit = 0;
                loop {
                    let b = self.region(before, acc);
                    exit |= b;
                    let next = acc | self.region(after, b);
                    if next == acc {
                        return exit;
                    }
                    acc = next;
                }
            }
            Node::Opaque { regions } => {
                let mut acc = states;
                loop {
                    let next = regions.iter().fold(acc, |n, r| n | self.region(r, acc));
                    if next == acc {
                        return acc;
                    }
                    acc = next;
                }
            }
        }
    }
}
