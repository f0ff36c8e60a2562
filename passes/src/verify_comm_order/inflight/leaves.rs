//! Whether a kernel may return with a write of its block still in flight:
//! a one-bit analysis, each region summarised once.

use super::*;

/// Whether InCore function `function` may return with a write of its
/// block still in flight (a remote write, or an invalidate's write-back,
/// with no fence after it on some path to a return), given which callees
/// may (`loud`: by module index; `None`, an unknown callee, may). A call
/// of a function that never does issues nothing in flight: whatever it
/// wrote back and wrote remotely has landed when it returns.
pub fn leaves_in_flight(function: &Function, loud: &dyn Fn(OpKey, Option<usize>) -> bool) -> bool {
    let Some(body) = &function.body else { return true };
    let mut bits = Bits { loud, memo: FxHashMap::default() };
    bits.region(body)[0].1
}

/// What a region does to the in-flight bit: for the bit entering false and
/// true, the bit leaving it and whether a return was reached with it set.
type BitSummary = [(bool, bool); 2];

/// The one-bit analysis of [`leaves_in_flight`], each region summarised
/// once.
struct Bits<'l> {
    loud: &'l dyn Fn(OpKey, Option<usize>) -> bool,
    memo: FxHashMap<u32, BitSummary>,
}

impl Bits<'_> {
    fn region(&mut self, region: &Region) -> BitSummary {
        if let Some(known) = self.memo.get(&region.id) {
            return *known;
        }
        let summary = match region.single_block() {
            Some(nodes) => [self.nodes(nodes, false), self.nodes(nodes, true)],
            None => [self.cfg(region, false), self.cfg(region, true)],
        };
        self.memo.insert(region.id, summary);
        summary
    }

    /// Blocks along their edges, to the fixpoint (a bit only rises).
    fn cfg(&mut self, region: &Region, bit: bool) -> (bool, bool) {
        let n = region.blocks.len();
        let mut incoming: Vec<Option<bool>> = vec![None; n];
        incoming[0] = Some(bit);
        let (mut exit, mut returns) = (false, false);
        let mut work = vec![0usize];
        while let Some(b) = work.pop() {
            let (out, ret) = self.nodes(&region.blocks[b].nodes, incoming[b].unwrap_or(false));
            returns |= ret;
            if region.blocks[b].successors.is_empty() {
                exit |= out;
            }
            for &s in &region.blocks[b].successors {
                let s = s as usize;
                if incoming[s].is_none_or(|known| !known && out) {
                    incoming[s] = Some(incoming[s].unwrap_or(false) | out);
                    work.push(s);
                }
            }
        }
        (exit, returns)
    }

    fn nodes(&mut self, nodes: &[Node], mut bit: bool) -> (bool, bool) {
        let mut returns = false;
        let apply = |summary: BitSummary, bit: bool, returns: &mut bool| {
            let (out, ret) = summary[bit as usize];
            *returns |= ret;
            out
        };
        for node in nodes {
            bit = match node {
                Node::Event(event) => match &event.kind {
                    EventKind::Fence => false,
                    EventKind::RemoteStore | EventKind::Invalidate(_) => true,
                    EventKind::Call { callee, submit } => bit || *submit || (self.loud)(event.op, *callee),
                    EventKind::Return => {
                        returns |= bit;
                        bit
                    }
                    _ => bit,
                },
                Node::If { then, otherwise } => {
                    let a = apply(self.region(then), bit, &mut returns);
                    let b = match otherwise {
                        Some(o) => apply(self.region(o), bit, &mut returns),
                        None => bit,
                    };
                    a | b
                }
                Node::Switch { cases } => {
                    let mut out = false;
                    for case in cases {
                        out |= apply(self.region(case), bit, &mut returns);
                    }
                    out
                }
                Node::Scope { body } => apply(self.region(body), bit, &mut returns),
                Node::Loop { body, .. } => {
                    // Zero or more iterations: the head holds the bit that
                    // entered or one an iteration left.
                    let body = self.region(body);
                    let mut head = bit;
                    loop {
                        let next = bit | apply(body, head, &mut returns);
                        if next == head {
                            break head;
                        }
                        head = next;
                    }
                }
                Node::While { before, after } => {
                    let (before, after) = (self.region(before), self.region(after));
                    let mut head = bit;
                    loop {
                        let exit = apply(before, head, &mut returns);
                        let next = bit | apply(after, exit, &mut returns);
                        if next == head {
                            break exit;
                        }
                        head = next;
                    }
                }
                Node::Opaque { regions } => {
                    let summaries: Vec<BitSummary> = regions.iter().map(|r| self.region(r)).collect();
                    let mut head = bit;
                    loop {
                        let next = summaries.iter().fold(bit, |acc, s| acc | apply(*s, head, &mut returns));
                        if next == head {
                            break head;
                        }
                        head = next;
                    }
                }
            };
        }
        (bit, returns)
    }
}
