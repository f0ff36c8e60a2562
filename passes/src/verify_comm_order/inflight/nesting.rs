//! Which repeated construct is nested in which: each region owner's span in
//! a pre-order numbering of the function's regions, so that "is `inner`
//! inside `outer`" is two comparisons, not a walk up the nest. (The facts'
//! crossed sets ask it at every back edge, for every fact: with a chain of
//! ancestors per construct it cost the nesting depth each time, and a
//! program nested thousands deep took seconds.)

use crate::comm_order::model::{Function, OpKey, Region};
use rustc_hash::FxHashMap;

/// Each region owner's first and last pre-order number: its own, and the
/// last of any region nested in it.
pub(super) struct Nesting {
    spans: FxHashMap<OpKey, (u32, u32)>,
}

impl Nesting {
    pub fn of(function: &Function) -> Nesting {
        let mut nesting = Nesting { spans: FxHashMap::default() };
        if let Some(body) = &function.body {
            let mut next = 0;
            // An explicit stack: the nest may be thousands deep.
            let mut stack: Vec<(&Region, bool)> = vec![(body, false)];
            while let Some((region, done)) = stack.pop() {
                let owner = owner(function, region);
                if done {
                    let last = next - 1;
                    nesting.spans.entry(owner).and_modify(|span| span.1 = span.1.max(last));
                    continue;
                }
                nesting.spans.entry(owner).or_insert((next, next));
                next += 1;
                stack.push((region, true));
                for node in region.blocks.iter().flat_map(|block| block.nodes.iter()).rev() {
                    for inner in node.regions().into_iter().rev() {
                        stack.push((inner, false));
                    }
                }
            }
        }
        nesting
    }

    /// Whether construct `inner` is nested in construct `outer` (not
    /// itself).
    pub fn inside(&self, inner: OpKey, outer: OpKey) -> bool {
        match (self.spans.get(&inner), self.spans.get(&outer)) {
            (Some(inner), Some(outer)) => outer.0 < inner.0 && inner.0 <= outer.1,
            _ => false,
        }
    }
}

/// The owner of `region`, as the walk names it.
pub(super) fn owner(function: &Function, region: &Region) -> OpKey {
    function.region_owners.get(region.id as usize).copied().unwrap_or(OpKey::synthetic(region.id))
}
