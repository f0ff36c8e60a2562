//! The structured walk both of the checker's dataflow analyses make over a
//! function's regions (`kernel`: the facts a publish or a wait leaves;
//! `inflight`: the writes and dirty lines still in flight): a region is its
//! single block walked in order, or a graph of blocks walked to a fixpoint;
//! a repeated construct's iteration is a body, an `scf.while`'s before and
//! after regions, or any one of several regions. What differs is the facts,
//! how a node changes them, and how facts move along a graph's edges.

use crate::comm_order::model::{Node, Region};

/// The facts an analysis carries along a path.
pub(super) trait Facts: Clone {
    /// The facts where no path arrives (the identity of `union_with`).
    fn unreached() -> Self;
    fn is_unreached(&self) -> bool;
    /// No fact is held: a walk without generation has nothing to move.
    fn is_empty(&self) -> bool;
    /// The facts of either path.
    fn union_with(&mut self, other: &Self);
}

/// Joins `facts` into what has arrived at a block's entry so far (`None`:
/// nothing yet); whether the entry grew, so that the block is walked again.
/// The step of both analyses' walks of a graph of blocks to a fixpoint.
pub(super) fn join_into<F: Facts + PartialEq>(entry: &mut Option<F>, facts: &F) -> bool {
    match entry {
        Some(known) => {
            let before = known.clone();
            known.union_with(facts);
            *known != before
        }
        slot @ None => {
            *slot = Some(facts.clone());
            true
        }
    }
}

/// One iteration of a repeated construct.
pub(super) enum Iteration<'n> {
    /// A loop body.
    Body(&'n Region),
    /// `scf.while`: before, then after; the loop exits after `before`.
    While(&'n Region, &'n Region),
    /// Any one of these regions.
    AnyRegion(&'n [Region]),
}

/// An analysis as a walk: `gens` says whether nodes generate facts (the
/// first walk) or only move the facts that came around a back edge.
pub(super) trait Walk {
    type Facts: Facts;

    /// How one node changes the facts.
    fn node(&mut self, node: &Node, facts: &mut Self::Facts, gens: bool);

    /// A region of several blocks, along its successor edges, to the
    /// fixpoint.
    fn cfg(&mut self, region: &Region, entry: Self::Facts, gens: bool) -> Self::Facts;

    fn region(&mut self, region: &Region, facts: Self::Facts, gens: bool) -> Self::Facts {
        if !gens && facts.is_empty() {
            return facts;
        }
        match region.single_block() {
            Some(nodes) => self.block(nodes, facts, gens),
            None => self.cfg(region, facts, gens),
        }
    }

    fn block(&mut self, nodes: &[Node], mut facts: Self::Facts, gens: bool) -> Self::Facts {
        for node in nodes {
            if facts.is_unreached() || (!gens && facts.is_empty()) {
                break;
            }
            self.node(node, &mut facts, gens);
        }
        facts
    }

    /// `scf.if`: either branch (or none).
    fn either(&mut self, then: &Region, otherwise: Option<&Region>, facts: &mut Self::Facts, gens: bool) {
        let incoming = std::mem::replace(facts, Self::Facts::unreached());
        let mut joined = self.region(then, incoming.clone(), gens);
        let other = match otherwise {
            Some(region) => self.region(region, incoming, gens),
            None => incoming,
        };
        joined.union_with(&other);
        *facts = joined;
    }

    /// `scf.index_switch` and the like: any one of `cases`.
    fn any_of(&mut self, cases: &[Region], facts: &mut Self::Facts, gens: bool) {
        let incoming = std::mem::replace(facts, Self::Facts::unreached());
        let mut joined = Self::Facts::unreached();
        for case in cases {
            joined.union_with(&self.region(case, incoming.clone(), gens));
        }
        *facts = joined;
    }

    /// Walks one iteration; returns (the facts where the construct may
    /// exit, the facts at the end of the iteration).
    fn iterate(&mut self, iteration: &Iteration<'_>, facts: Self::Facts, gens: bool) -> (Self::Facts, Self::Facts) {
        match iteration {
            Iteration::Body(body) => {
                let end = self.region(body, facts, gens);
                (end.clone(), end)
            }
            Iteration::While(before, after) => {
                let exit = self.region(before, facts, gens);
                let end = self.region(after, exit.clone(), gens);
                (exit, end)
            }
            Iteration::AnyRegion(regions) => {
                let mut end = Self::Facts::unreached();
                for region in regions.iter() {
                    end.union_with(&self.region(region, facts.clone(), gens));
                }
                (end.clone(), end)
            }
        }
    }
}
