//! The abstract domain of the kernel checker.
//!
//! A *fact* is a pending obligation: "source op `s` (a publish or a wait)
//! has not yet been made safe". Publish facts have a stage:
//!
//! * stage 1 (`NeedInvalidate`): waiting for the invalidate (the region
//!   `ccl.cacheinvalid(W)` of its window for a local publish, or whole-GM
//!   `ccl.cacheinvalid()`, which invalidates every window; only the whole-GM
//!   form for an opaque publish);
//! * stage 2 (`NeedFence`): invalidated, waiting for a `ccl.fence`. A remote
//!   publish starts here.
//!
//! A fence discharges stage 2 and leaves stage 1 alone (a fence *before*
//! the invalidate does not count); an invalidate moves stage 1 to stage 2.
//! Wait facts have one stage and are discharged by a whole-GM invalidate.
//!
//! A program point's state is the *set* of facts that are pending on at
//! least one path to it (a may-analysis: the join is union). The set is
//! finite (at most two facts per source op), every transfer function is
//! monotone and distributive, and a fact's stage only moves forward, so
//! fixpoints are reached fast; `Summary` makes loops cost one extra walk at
//! most instead of an iteration count (see `kernel`).

use crate::comm_order::model::WindowId;
use smallvec::SmallVec;

/// The window key of an opaque publish: no region invalidate matches it.
pub const OPAQUE: WindowId = WindowId::MAX;

/// The source id of the virtual fact "the kernel has started and not yet
/// invalidated whole-GM" (the Phase B prologue check).
pub const ENTRY: u32 = u32::MAX;

/// How a region moves one publish fact between stages, over all paths
/// through it: bit 0 = stage 1 can leave as stage 1, bit 1 = stage 1 can
/// leave as stage 2, bit 2 = stage 2 can leave as stage 2. (Stages never go
/// back.) A region's relation for window W depends on W only through the
/// region invalidates of W it contains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rel(u8);

impl Rel {
    pub const IDENTITY: Rel = Rel(0b101);
    /// No path: nothing gets through.
    pub const NONE: Rel = Rel(0b000);
    /// `ccl.fence`: stage 1 stays, stage 2 is discharged.
    pub const FENCE: Rel = Rel(0b001);
    /// An invalidate that applies: stage 1 becomes stage 2.
    pub const INVALIDATE: Rel = Rel(0b110);

    pub fn keeps_1(self) -> bool {
        self.0 & 1 != 0
    }
    pub fn advances_1(self) -> bool {
        self.0 & 2 != 0
    }
    pub fn keeps_2(self) -> bool {
        self.0 & 4 != 0
    }

    /// `self` then `next`.
    pub fn then(self, next: Rel) -> Rel {
        let s11 = self.keeps_1() && next.keeps_1();
        let s12 = (self.keeps_1() && next.advances_1()) || (self.advances_1() && next.keeps_2());
        let s22 = self.keeps_2() && next.keeps_2();
        Rel(s11 as u8 | (s12 as u8) << 1 | (s22 as u8) << 2)
    }

    /// Either path.
    pub fn or(self, other: Rel) -> Rel {
        Rel(self.0 | other.0)
    }

    /// Zero or more repetitions (reflexive-transitive closure).
    pub fn star(self) -> Rel {
        let mut acc = Rel::IDENTITY;
        loop {
            let next = acc.or(acc.then(self));
            if next == acc {
                return acc;
            }
            acc = next;
        }
    }
}

/// A region's effect on publish facts: one relation for every window the
/// region does not region-invalidate (and for opaque and remote publishes),
/// and one per window it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub default: Rel,
    pub windows: WindowMap<Rel>,
}

impl Summary {
    pub fn identity() -> Self {
        Summary { default: Rel::IDENTITY, windows: WindowMap::default() }
    }

    pub fn uniform(rel: Rel) -> Self {
        Summary { default: rel, windows: WindowMap::default() }
    }

    /// The summary of `ccl.cacheinvalid(window)`.
    pub fn invalidate_window(window: WindowId) -> Self {
        let mut windows = WindowMap::default();
        windows.insert(window, Rel::INVALIDATE);
        Summary { default: Rel::IDENTITY, windows }
    }

    pub fn rel(&self, window: WindowId) -> Rel {
        self.windows.get(window).copied().unwrap_or(self.default)
    }

    fn combine(&self, other: &Summary, op: impl Fn(Rel, Rel) -> Rel) -> Summary {
        let mut windows = WindowMap::default();
        for window in self.windows.keys().chain(other.windows.keys()) {
            windows.entry(window, op(self.rel(window), other.rel(window)));
        }
        Summary { default: op(self.default, other.default), windows }
    }

    pub fn then(&self, next: &Summary) -> Summary {
        if next.windows.is_empty() && next.default == Rel::IDENTITY {
            return self.clone();
        }
        self.combine(next, Rel::then)
    }

    pub fn or(&self, other: &Summary) -> Summary {
        self.combine(other, Rel::or)
    }

    pub fn star(&self) -> Summary {
        let mut windows = self.windows.clone();
        for (_, rel) in windows.iter_mut() {
            *rel = rel.star();
        }
        Summary { default: self.default.star(), windows }
    }
}

/// A map keyed by window, sorted by key. A point or region names few
/// windows, so the entries live inline and a lookup is a short scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowMap<V>(SmallVec<[(WindowId, V); 2]>);

impl<V> Default for WindowMap<V> {
    fn default() -> Self {
        WindowMap(SmallVec::new())
    }
}

impl<V> WindowMap<V> {
    fn position(&self, window: WindowId) -> Result<usize, usize> {
        self.0.binary_search_by_key(&window, |(key, _)| *key)
    }

    pub fn get(&self, window: WindowId) -> Option<&V> {
        self.position(window).ok().map(|at| &self.0[at].1)
    }

    /// The value of `window`, inserting `value` first when it has none.
    pub fn entry(&mut self, window: WindowId, value: V) -> &mut V {
        let at = match self.position(window) {
            Ok(at) => at,
            Err(at) => {
                self.0.insert(at, (window, value));
                at
            }
        };
        &mut self.0[at].1
    }

    pub fn insert(&mut self, window: WindowId, value: V) {
        match self.position(window) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (window, value)),
        }
    }

    pub fn remove(&mut self, window: WindowId) -> Option<V> {
        self.position(window).ok().map(|at| self.0.remove(at).1)
    }

    pub fn keys(&self) -> impl Iterator<Item = WindowId> + '_ {
        self.0.iter().map(|(key, _)| *key)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, value)| value)
    }

    pub fn iter(&self) -> impl Iterator<Item = (WindowId, &V)> {
        self.0.iter().map(|(key, value)| (*key, value))
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = (WindowId, &mut V)> {
        self.0.iter_mut().map(|(key, value)| (*key, value))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn drain(&mut self) -> impl Iterator<Item = (WindowId, V)> + '_ {
        self.0.drain(..)
    }
}

/// A set of source ids, sorted. Inline up to a few ids: where the markers
/// are in place an obligation is met a few ops after it is made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources(SmallVec<[u32; 4]>);

impl Sources {
    pub fn insert(&mut self, id: u32) {
        // A walk makes sources in program order, so this is mostly a push.
        match self.0.last() {
            Some(&last) if last >= id => {
                if let Err(at) = self.0.binary_search(&id) {
                    self.0.insert(at, id);
                }
            }
            _ => self.0.push(id),
        }
    }

    /// Adds every id of `other` (a merge of two sorted lists).
    pub fn extend(&mut self, other: &Sources) {
        if other.0.is_empty() {
            return;
        }
        if self.0.last().is_none_or(|&last| last < other.0[0]) {
            self.0.extend_from_slice(&other.0);
            return;
        }
        let (a, b) = (&self.0, &other.0);
        let mut merged = SmallVec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            merged.push(x.min(y));
            i += (x <= y) as usize;
            j += (y <= x) as usize;
        }
        merged.extend_from_slice(&a[i..]);
        merged.extend_from_slice(&b[j..]);
        self.0 = merged;
    }

    /// The ids of `self` that are not in `other`.
    pub fn difference(&self, other: &Sources) -> Sources {
        Sources(self.0.iter().copied().filter(|id| other.0.binary_search(id).is_err()).collect())
    }

    pub fn iter(&self) -> impl Iterator<Item = &u32> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl FromIterator<u32> for Sources {
    fn from_iter<I: IntoIterator<Item = u32>>(ids: I) -> Self {
        let mut sources = Sources::default();
        for id in ids {
            sources.insert(id);
        }
        sources
    }
}

/// The facts pending at a program point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Stage-1 publish facts, by the window they wait for (`OPAQUE` for
    /// opaque publishes).
    pub need_invalidate: WindowMap<Sources>,
    /// Stage-2 publish facts (any window: a fence is all they need).
    pub need_fence: Sources,
    /// Wait facts (and `ENTRY`).
    pub waits: Sources,
    /// No path from the function's entry gets here (after a region that
    /// never completes): nothing happens, no source generates a fact.
    pub dead: bool,
}

impl State {
    /// The state of a point no path reaches.
    pub fn dead() -> Self {
        State { dead: true, ..State::default() }
    }

    pub fn is_empty(&self) -> bool {
        self.need_invalidate.is_empty() && self.need_fence.is_empty() && self.waits.is_empty()
    }

    pub fn union_with(&mut self, other: &State) {
        self.dead &= other.dead;
        for (window, sources) in other.need_invalidate.iter() {
            self.need_invalidate.entry(window, Sources::default()).extend(sources);
        }
        self.need_fence.extend(&other.need_fence);
        self.waits.extend(&other.waits);
    }

    /// The facts of `self` that are not in `other`.
    pub fn minus(&self, other: &State) -> State {
        let mut out = State::default();
        for (window, sources) in self.need_invalidate.iter() {
            let rest = match other.need_invalidate.get(window) {
                Some(known) => sources.difference(known),
                None => sources.clone(),
            };
            if !rest.is_empty() {
                out.need_invalidate.insert(window, rest);
            }
        }
        out.need_fence = self.need_fence.difference(&other.need_fence);
        out.waits = self.waits.difference(&other.waits);
        out
    }

    /// Applies the closure `summary` (reflexive: every fact stays), adding
    /// the stage-2 facts that stage-1 facts can become.
    pub fn close(&mut self, closure: &Summary) {
        for (window, sources) in self.need_invalidate.iter() {
            if closure.rel(window).advances_1() {
                self.need_fence.extend(sources);
            }
        }
    }

    /// `ccl.fence`.
    pub fn fence(&mut self) {
        self.need_fence.clear();
    }

    /// `ccl.cacheinvalid(window)`.
    pub fn invalidate_window(&mut self, window: WindowId) {
        if let Some(sources) = self.need_invalidate.remove(window) {
            self.need_fence.extend(&sources);
        }
    }

    /// Whole-GM `ccl.cacheinvalid()`.
    pub fn invalidate_all(&mut self) {
        for (_, sources) in self.need_invalidate.drain() {
            self.need_fence.extend(&sources);
        }
        self.waits.clear();
    }
}

/// The kernel walk's facts (`walk`): the methods above.
impl super::walk::Facts for State {
    fn unreached() -> Self {
        State::dead()
    }

    fn is_unreached(&self) -> bool {
        self.dead
    }

    fn is_empty(&self) -> bool {
        State::is_empty(self)
    }

    fn union_with(&mut self, other: &State) {
        State::union_with(self, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_compose_and_close() {
        assert_eq!(Rel::FENCE.then(Rel::INVALIDATE), Rel(0b010));
        assert_eq!(Rel::INVALIDATE.then(Rel::FENCE), Rel(0b000));
        assert_eq!(Rel::FENCE.then(Rel::INVALIDATE).star(), Rel(0b111));
        assert_eq!(Rel::FENCE.star(), Rel::IDENTITY);
        assert_eq!(Rel::IDENTITY.then(Rel::FENCE), Rel::FENCE);
        // Either branch: fence or nothing.
        assert_eq!(Rel::FENCE.or(Rel::IDENTITY), Rel::IDENTITY);
    }

    #[test]
    fn summaries_track_windows_separately() {
        let s = Summary::invalidate_window(3).then(&Summary::uniform(Rel::FENCE));
        assert_eq!(s.rel(3), Rel(0b000));
        assert_eq!(s.rel(4), Rel::FENCE);
        let whole = Summary::uniform(Rel::INVALIDATE);
        assert_eq!(Summary::invalidate_window(3).then(&whole).rel(3), Rel::INVALIDATE);
    }

    fn ids(sources: &Sources) -> Vec<u32> {
        sources.iter().copied().collect()
    }

    #[test]
    fn sources_stay_sorted_and_unique() {
        let mut a: Sources = [5, 1, 9, 5].into_iter().collect();
        assert_eq!(ids(&a), [1, 5, 9]);
        let b: Sources = [0, 5, 7, 12].into_iter().collect();
        a.extend(&b);
        assert_eq!(ids(&a), [0, 1, 5, 7, 9, 12]);
        assert_eq!(ids(&a.difference(&b)), [1, 9]);
        // Past the inline capacity, by appending and by merging.
        a.extend(&(20..30).collect());
        a.extend(&[3, 25, 40].into_iter().collect());
        assert_eq!(ids(&a), [0, 1, 3, 5, 7, 9, 12, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 40]);
    }

    #[test]
    fn window_maps_keep_one_entry_per_window() {
        let mut map = WindowMap::default();
        *map.entry(7, 0u8) += 1;
        *map.entry(3, 0) += 1;
        *map.entry(7, 0) += 1;
        assert_eq!(map.iter().collect::<Vec<_>>(), [(3, &1), (7, &2)]);
        assert_eq!(map.remove(3), Some(1));
        assert_eq!(map.get(3), None);
        map.insert(7, 9);
        assert_eq!(map.get(7), Some(&9));
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn state_transfers() {
        let mut state = State::default();
        state.need_invalidate.entry(1, Sources::default()).insert(10);
        state.need_invalidate.entry(OPAQUE, Sources::default()).insert(11);
        state.waits.insert(12);
        state.fence();
        assert_eq!(state.need_invalidate.len(), 2);
        state.invalidate_window(1);
        assert_eq!(state.need_fence, [10].into_iter().collect());
        state.invalidate_all();
        assert!(state.waits.is_empty());
        assert_eq!(state.need_fence, [10, 11].into_iter().collect());
        state.fence();
        assert!(state.is_empty());
    }
}
