//! The markers a walk carries: the ones it has passed and not yet placed,
//! kept in canonical form (docs/passes/sink-comm-markers.md, T2): at most
//! one region invalidate per SSA value, none at all when a whole-GM
//! invalidate is carried (it writes back and drops every line, theirs
//! included), and at most one fence. A marker that adds nothing to what is
//! carried is erased as it is picked up: whatever covers it will be placed
//! at a point after it.
//!
//! A carry holds the marker ops themselves; placing it moves them, so a
//! marker keeps its location (the op it was placed for).

use super::Counts;
use crate::{framework::Eraser, ir};
use melior::ir::OperationRef;
use smallvec::SmallVec;

/// What a carried marker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Fence,
    /// Whole-GM `ccl.cacheinvalid`.
    Whole,
    /// `ccl.cacheinvalid` of the SSA value with this key.
    Region(ir::ValueKey),
}

#[derive(Clone, Debug, Default)]
pub struct Carry<'c, 'a> {
    /// In the order they were first picked up.
    pub regions: SmallVec<[(ir::ValueKey, OperationRef<'c, 'a>); 2]>,
    pub whole: Option<OperationRef<'c, 'a>>,
    pub fence: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Carry<'c, 'a> {
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty() && self.whole.is_none() && self.fence.is_none()
    }

    /// Whether what is carried must be placed before an exposure: a fence,
    /// or a region invalidate (written for a local publish). A whole-GM
    /// invalidate without a fence publishes nothing it is sure to land; it
    /// is carried for this block's reads.
    pub fn publishes(&self) -> bool {
        self.fence.is_some() || !self.regions.is_empty()
    }

    /// Whether an invalidate is carried.
    pub fn has_invalidates(&self) -> bool {
        self.whole.is_some() || !self.regions.is_empty()
    }

    /// The carried invalidates.
    pub fn invalidates(&self) -> impl Iterator<Item = OperationRef<'c, 'a>> + '_ {
        self.regions.iter().map(|(_, op)| *op).chain(self.whole)
    }

    /// Adds marker `op` of `kind`; erases it (or what it covers) when the
    /// carry already holds its effect.
    pub fn add(&mut self, op: OperationRef<'c, 'a>, kind: Kind, counts: &mut Counts, eraser: Eraser<'_>) {
        match kind {
            Kind::Fence => match self.fence {
                Some(_) => merge(op, counts, eraser),
                None => self.fence = Some(op),
            },
            Kind::Whole => match self.whole {
                Some(_) => merge(op, counts, eraser),
                None => {
                    for (_, covered) in self.regions.drain(..) {
                        merge(covered, counts, eraser);
                    }
                    self.whole = Some(op);
                }
            },
            Kind::Region(value) => {
                if self.whole.is_some() || self.regions.iter().any(|(v, _)| *v == value) {
                    merge(op, counts, eraser);
                } else {
                    self.regions.push((value, op));
                }
            }
        }
    }

    /// Adds everything `other` carries (a loop's or a branch's markers,
    /// taken out of it), in canonical order.
    pub fn absorb(&mut self, other: Carry<'c, 'a>, counts: &mut Counts, eraser: Eraser<'_>) {
        for (kind, op) in other.into_items() {
            self.add(op, kind, counts, eraser);
        }
    }

    /// The markers in the order they are placed: the region invalidates,
    /// the whole-GM one, then the fence.
    pub fn into_items(self) -> impl Iterator<Item = (Kind, OperationRef<'c, 'a>)> {
        let regions = self.regions.into_iter().map(|(value, op)| (Kind::Region(value), op));
        regions.chain(self.whole.map(|op| (Kind::Whole, op))).chain(self.fence.map(|op| (Kind::Fence, op)))
    }

    /// Whether `self` placed later at the same point makes marker `kind`
    /// useless: the same marker, or a whole-GM invalidate for a region one.
    pub fn covers(&self, kind: Kind) -> bool {
        match kind {
            Kind::Fence => self.fence.is_some(),
            Kind::Whole => self.whole.is_some(),
            Kind::Region(value) => self.whole.is_some() || self.regions.iter().any(|(v, _)| *v == value),
        }
    }

    /// The markers both carries hold that may leave both together
    /// (docs/passes/sink-comm-markers.md, T4): `self` keeps the one it
    /// takes out, `other`'s twin is erased. A fence leaves only if both
    /// have one; an invalidate leaves only if both have it and either the
    /// fence leaves too or neither has one (an invalidate must not end up
    /// after a fence that stays behind in a branch).
    pub fn take_common(&mut self, other: &mut Carry<'c, 'a>, counts: &mut Counts, eraser: Eraser<'_>) -> Carry<'c, 'a> {
        let mut common = Carry::default();
        let fences = (self.fence.is_some(), other.fence.is_some());
        if fences.0 != fences.1 {
            return common;
        }
        if let (Some(_), Some(_)) = (self.whole, other.whole) {
            common.whole = self.whole.take();
            merge(other.whole.take().expect("both have one"), counts, eraser);
        }
        let mut index = 0;
        while index < self.regions.len() {
            let value = self.regions[index].0;
            match other.regions.iter().position(|(v, _)| *v == value) {
                Some(twin) => {
                    common.regions.push(self.regions.remove(index));
                    merge(other.regions.remove(twin).1, counts, eraser);
                }
                None => index += 1,
            }
        }
        if fences.0 {
            common.fence = self.fence.take();
            merge(other.fence.take().expect("both have one"), counts, eraser);
        }
        common
    }

    /// Whether both carries hold the same invalidate.
    pub fn shares_an_invalidate(&self, other: &Carry<'c, 'a>) -> bool {
        (self.whole.is_some() && other.whole.is_some())
            || self.regions.iter().any(|(value, _)| other.regions.iter().any(|(v, _)| v == value))
    }

    /// Every carried marker op.
    pub fn ops(&self) -> impl Iterator<Item = OperationRef<'c, 'a>> + '_ {
        self.regions.iter().map(|(_, op)| *op).chain(self.whole).chain(self.fence)
    }
}

/// Erases `op`, covered by a marker that is placed at or after it.
pub fn merge(op: OperationRef<'_, '_>, counts: &mut Counts, eraser: Eraser<'_>) {
    eraser.erase(op);
    counts.merged += 1;
}
