//! The rule for writes in flight (docs/semantics.md, `ccl-verify-comm-order`):
//! two writes of one block whose locations may overlap are never in flight
//! together; a `ccl.fence` separates them. In-flight writes land in any
//! order, two of one element included, so the older may land last.
//!
//! The writes in flight are the remote writes (`ccl.remote_store`,
//! `ccl.put`: toward the peer's copy of their destination), the
//! write-backs an invalidate starts (of the dirty lines it covers: the
//! stores since their lines were last written back, and at a kernel's
//! start the lines earlier launches on the block slot left dirty), and
//! whatever a call may leave in flight (anything).
//!
//! A forward may-analysis over the kernel's tree (`comm_order::model`) with
//! two sets of facts for this rule: *dirty* stores (their line may still be
//! dirty in the cache) and *in-flight* writes (issued, not yet fenced). Each fact
//! carries the back edges it crossed since its access was made (the loops
//! whose later iterations it reaches), so that an access of row `i` in one
//! iteration and of row `i + 1` in the next are told apart
//! (`comm_order::memory`). Facts evolve one by one (the walk is
//! distributive), so a loop body is walked once with generation and then
//! only with what crosses its back edge and is new. Pairs are formed after
//! the walks: at each op that issues a write, every fact in flight there on
//! some path against every write it issues.
//!
//! The same walk checks the rule for reading back one's own remote writes
//! (docs/passes/verify-comm-order.md, "Beyond the rules") with two more:
//! the lines that may be in the cache (*cached*), and the remote writes
//! (and calls) issued while a line of theirs may be, which no invalidate
//! covering what they wrote has followed yet (*unread*); those meet every
//! GM read of the block that may overlap one ([`Report::read_backs`]). Only with fences
//! ([`Mode::Fences`]): the sink's question below is about writes.
//!
//! With fences ignored ([`Mode::IgnoringFences`]) the same analysis tells
//! the sink pass which writes may overlap an earlier one at all, and around
//! which loops: a fence is never carried past such a write.

use super::walk::{join_into, Facts, Iteration, Walk};
use crate::comm_order::memory::{covers, covers_elements, may_overlap_instances, Access, Aliases};
use crate::comm_order::model::{EventKind, Function, Node, OpKey, Region, WindowId};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::collections::BTreeSet;

/// The loops (and other repeated constructs) whose back edge a fact
/// crossed, by the op that owns them, sorted.
pub type Crossed = SmallVec<[OpKey; 2]>;

/// What is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Flight {
    /// A `remote_store` or `put` (its order).
    Remote(u32),
    /// The write-back of a store's line (its order), started by an
    /// invalidate (its order).
    WriteBack { store: u32, by: u32 },
    /// The write-back of lines earlier launches left dirty, started by an
    /// invalidate.
    Leftover { by: u32 },
    /// Whatever a call may have left in flight.
    Call(u32),
    /// More writes in flight, or lines dirty, at this op (its order) than
    /// the analysis tells apart ([`MAX_FACTS`]): a conflict of its own.
    Many(u32),
}

impl Flight {
    /// The order of the op that issued the write (the invalidate, for a
    /// write-back).
    pub fn issuer(&self) -> u32 {
        match *self {
            Flight::Remote(order) | Flight::Call(order) | Flight::Many(order) => order,
            Flight::WriteBack { by, .. } | Flight::Leftover { by } => by,
        }
    }
}

/// The most facts of one kind a state holds: past it, the op where it
/// happened is reported (a fence before it orders what came before), and
/// the analysis goes on from there with none.
pub const MAX_FACTS: usize = 128;

/// A store whose line may be dirty: its order, or `None` for the lines
/// earlier launches left ([`ANY_STORE`]: any line of this rank).
type Dirty = Option<u32>;

/// The order standing for "some store of this block, anywhere": what more
/// than [`MAX_FACTS`] dirty lines are folded into.
const ANY_STORE: u32 = u32::MAX;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    dirty: BTreeSet<(Dirty, Crossed)>,
    flight: BTreeSet<(Flight, Crossed)>,
    /// The remote writes (and calls, which may make them) that no
    /// invalidate covering their locations has followed: a GM read of
    /// this block that may overlap one may read it back through a line
    /// its cache still holds (the rule for reading back one's own remote
    /// writes). Fences do not matter here: landed or not, the line stays.
    /// A remote write is one only where a line of what it writes may be in
    /// the cache when it is issued (`cached`).
    unread: BTreeSet<(Flight, Crossed)>,
    /// The ops whose lines may be in the block's cache (a GM read's, a
    /// store's, a call's), `None` for any line (what earlier launches on
    /// the block slot left, or more than [`MAX_FACTS`]): no invalidate
    /// covering them has run since.
    cached: BTreeSet<(Option<u32>, Crossed)>,
    /// No path reaches here.
    dead: bool,
}

impl Facts for State {
    fn unreached() -> Self {
        State { dead: true, ..State::default() }
    }

    fn is_unreached(&self) -> bool {
        self.dead
    }

    fn is_empty(&self) -> bool {
        self.dirty.is_empty() && self.flight.is_empty() && self.unread.is_empty() && self.cached.is_empty()
    }

    fn union_with(&mut self, other: &State) {
        self.dead &= other.dead;
        self.dirty.extend(other.dirty.iter().cloned());
        self.flight.extend(other.flight.iter().cloned());
        self.unread.extend(other.unread.iter().cloned());
        self.cached.extend(other.cached.iter().cloned());
    }
}

impl State {
    fn minus(&self, other: &State) -> State {
        State {
            dirty: self.dirty.difference(&other.dirty).cloned().collect(),
            flight: self.flight.difference(&other.flight).cloned().collect(),
            unread: self.unread.difference(&other.unread).cloned().collect(),
            cached: self.cached.difference(&other.cached).cloned().collect(),
            dead: false,
        }
    }

    /// Every fact, having crossed the back edge of `construct` once more.
    /// A construct nested in it is dropped from the sets: every value
    /// defined inside `construct` is another instance already, so the
    /// inner one says nothing more (and the sets stay small: along a path
    /// a fact is inside a chain of nested constructs).
    ///
    /// Only a fact whose access names a value defined inside `construct`
    /// (`matters`: by the store or write the fact is of) records the
    /// crossing: for the others every instance is the same, and a loop
    /// nest does not multiply them. A line in the cache records every
    /// crossing (what it may hold is read from more than one access).
    fn crossing(
        &self,
        construct: OpKey,
        inside: &dyn Fn(OpKey, OpKey) -> bool,
        matters: &mut dyn FnMut(Option<u32>) -> bool,
    ) -> State {
        let cross = |crossed: &Crossed, record: bool| {
            // Nothing of a construct nested in one crossed already is the
            // same instance anyway.
            if !record || crossed.iter().any(|c| inside(construct, *c)) {
                return crossed.clone();
            }
            let mut crossed: Crossed = crossed.iter().copied().filter(|c| !inside(*c, construct)).collect();
            if let Err(at) = crossed.binary_search(&construct) {
                crossed.insert(at, construct);
            }
            crossed
        };
        let of_flight = |flight: &Flight| match flight {
            Flight::Remote(order) | Flight::WriteBack { store: order, .. } => Some(*order),
            Flight::Leftover { .. } | Flight::Call(_) | Flight::Many(_) => None,
        };
        State {
            dirty: self.dirty.iter().map(|(d, c)| (*d, cross(c, matters(*d)))).collect(),
            flight: self.flight.iter().map(|(f, c)| (*f, cross(c, matters(of_flight(f))))).collect(),
            unread: self.unread.iter().map(|(f, c)| (*f, cross(c, matters(of_flight(f))))).collect(),
            cached: self.cached.iter().map(|(l, c)| (*l, cross(c, l.is_some()))).collect(),
            dead: self.dead,
        }
    }
}

/// Whether a fence ends what is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The checker: a fence lands everything in flight.
    Fences,
    /// The sink's question: which writes may overlap an earlier one on
    /// some path, fences or not.
    IgnoringFences,
}

/// The accesses of a kernel's events, read from the IR on demand.
pub trait Accesses {
    /// What the event numbered `order` writes (a store, a remote write) or
    /// may write back (a region invalidate: its target).
    fn access(&mut self, order: u32) -> Option<Access>;
    /// The number of elements of the buffer the event's access is in.
    fn base_size(&mut self, order: u32) -> Option<i128>;
    /// What call-like event `order` may write, and leave dirty or in
    /// flight: anything in the memory its memref operands reach, on any
    /// rank (`None`: anything at all).
    fn call_writes(&mut self, order: u32) -> Option<Vec<Access>>;
    /// What the event numbered `order` reads from GM through the block's
    /// cache (a read's source, a `put`'s or `get`'s `src`); `None` for
    /// nothing.
    fn reads(&mut self, order: u32) -> Option<Access>;
    /// Whether call-like event `order`, of `callee` (a function of the
    /// module), may return with writes in flight ([`leaves_in_flight`]).
    fn loud(&self, order: u32, callee: Option<usize>) -> bool;
    fn aliases(&self) -> &Aliases;
}

/// Two writes of one block that may be in flight together, overlapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Conflict {
    /// The earlier write, in flight when the later is issued.
    pub first: Flight,
    /// The later write.
    pub second: Flight,
}

/// What the analysis found in one kernel.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Sorted, each once.
    pub conflicts: Vec<Conflict>,
    /// The ops issuing a later write of some conflict (a remote write, the
    /// invalidate starting a write-back, a call): a fence must come before
    /// them.
    pub conflicting_ops: FxHashSet<u32>,
    /// The constructs a conflict's earlier write crossed the back edge of
    /// before the later was issued: a fence for it must be inside them.
    pub carried: FxHashSet<OpKey>,
    /// The conflicts whose earlier write came around the back edge of a
    /// construct around the later one: (the construct, the earlier write's
    /// issuing op, the later write's op), by order; `None` for the earlier
    /// one when it may be any write. A fence between the two must be in
    /// the construct. Beyond `carried`: a write's facts record a crossing
    /// only where its access names a value of the construct, so a `put`
    /// of a loop-invariant view that meets its own last iteration's (it
    /// is issued at the later write's op or after it: it came around some
    /// back edge) is here for every construct around it that it is not
    /// known not to have crossed.
    pub wrapped: FxHashSet<(OpKey, Option<u32>, u32)>,
    /// GM reads (or calls) that may read back a remote write of this block
    /// (or what a call wrote) with no invalidate covering it between them,
    /// sorted, each once.
    pub read_backs: Vec<ReadBack>,
    /// Per read of `read_backs` (by order): whether a region invalidate of
    /// what it reads covers every such write (else a whole-GM one must).
    pub read_back_covered: FxHashMap<u32, bool>,
}

/// A GM read that may read back, through a line the block's cache still
/// holds, what an earlier write of the block (`write`: a remote write or a
/// call) wrote: once the write lands, the line hides it, and the read
/// returns the older value (SEMANTICS.md: a stale read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReadBack {
    pub write: Flight,
    /// The reading op's order (a read, a `put` or `get` reading its
    /// source, a call whose callee may read).
    pub read: u32,
}

/// Runs the analysis on InCore function `function`: every conflicting
/// pair in `Report::conflicts` (the checker reports each).
pub fn check(function: &Function, accesses: &mut dyn Accesses, mode: Mode) -> Report {
    analyse(function, accesses, mode, true)
}

/// [`check`] for what the placement needs: the ops, constructs and
/// read-backs of the report are complete, `Report::conflicts` holds at
/// least one pair per conflicting op and earlier write, not every pair
/// (an earlier write in flight meets the writes an op issues until one
/// overlaps it: the others would record nothing more but the pair).
pub fn conflicting(function: &Function, accesses: &mut dyn Accesses, mode: Mode) -> Report {
    analyse(function, accesses, mode, false)
}

fn analyse(function: &Function, accesses: &mut dyn Accesses, mode: Mode, pairs: bool) -> Report {
    let Some(body) = &function.body else { return Report::default() };
    let mut entry = State::default();
    if accesses.aliases().any_leftovers() {
        entry.dirty.insert((None, Crossed::new()));
    }
    // Earlier launches on the block slot may have left any line. (The
    // sink's question, fences ignored, is about writes only.)
    if mode == Mode::Fences {
        entry.cached.insert((None, Crossed::new()));
    }
    let mut walker = Walker {
        function,
        mode,
        pairs,
        around: Vec::new(),
        nesting: Nesting::of(function),
        sensitive: FxHashMap::default(),
        accesses,
        sites: FxHashMap::default(),
        written: FxHashMap::default(),
        conflicts: BTreeSet::new(),
        read_backs: BTreeSet::new(),
        lines: FxHashMap::default(),
        report: Report::default(),
        windows: FxHashMap::default(),
    };
    walker.region(body, entry, true);
    let mut report = std::mem::take(&mut walker.report);
    report.conflicts = std::mem::take(&mut walker.conflicts).into_iter().collect();
    report.read_backs = std::mem::take(&mut walker.read_backs).into_iter().collect();
    report
}

/// What met at an op whose writes depend on the facts (an invalidate, a
/// call: the write-backs of the dirty lines), over every walk so far: a
/// later walk (carrying only what came around a back edge) pairs what it
/// brings with what the earlier walks brought.
#[derive(Default)]
struct Site {
    /// In flight when the op ran.
    pending: BTreeSet<(Flight, Crossed)>,
    /// What it issued (with the back edges its access crossed before).
    issued: BTreeSet<(Flight, Crossed)>,
}

/// What a write in flight may write (any of them).
fn access_of(flight: Flight, accesses: &mut dyn Accesses) -> Vec<Access> {
    let access = match flight {
        Flight::WriteBack { store: ANY_STORE, .. } => return vec![Access::anywhere_here()],
        Flight::WriteBack { store: order, .. } if accesses.call_writes(order).is_some() => {
            // The write-back of what a call stored.
            return accesses.call_writes(order).unwrap_or_default();
        }
        Flight::Remote(order) | Flight::WriteBack { store: order, .. } => accesses.access(order),
        Flight::Leftover { .. } => Some(Access::leftover()),
        Flight::Call(order) => return accesses.call_writes(order).unwrap_or_else(|| vec![Access::anything()]),
        Flight::Many(_) => None,
    };
    vec![access.unwrap_or_else(Access::anything)]
}

struct Walker<'f, 'a> {
    function: &'f Function,
    mode: Mode,
    /// Whether every conflicting pair is wanted ([`check`]), or what the
    /// ops need ([`conflicting`]).
    pairs: bool,
    /// The repeated constructs around the one being walked, outermost
    /// first, and each walked construct's.
    around: Vec<OpKey>,
    nesting: Nesting,
    /// Per store or write (order): the constructs around the definitions
    /// of the values its access names.
    sensitive: FxHashMap<u32, Option<SmallVec<[OpKey; 4]>>>,
    accesses: &'a mut dyn Accesses,
    /// Invalidates and calls, by order (see [`Site`]).
    sites: FxHashMap<u32, Site>,
    /// Each write's accesses, read once.
    written: FxHashMap<Flight, Vec<Access>>,
    conflicts: BTreeSet<Conflict>,
    read_backs: BTreeSet<ReadBack>,
    /// What each op of a `cached` fact may have brought into the cache.
    lines: FxHashMap<u32, Vec<Access>>,
    report: Report,
    /// The window (destination value) of each store walked, by order.
    windows: FxHashMap<u32, Option<WindowId>>,
}

impl Walk for Walker<'_, '_> {
    type Facts = State;

    fn node(&mut self, node: &Node, state: &mut State, gens: bool) {
        match node {
            Node::Event(event) => self.event(event.order, &event.kind, state, gens),
            Node::If { then, otherwise } => self.either(then, otherwise.as_ref(), state, gens),
            Node::Switch { cases } => self.any_of(cases, state, gens),
            Node::Loop { body, .. } => {
                let owner = self.owner(body);
                let incoming = std::mem::take(state);
                *state = self.repeat(&Iteration::Body(body), owner, incoming, gens).0;
            }
            Node::While { before, after } => {
                let owner = self.owner(before);
                let incoming = std::mem::take(state);
                *state = self.repeat(&Iteration::While(before, after), owner, incoming, gens).1;
            }
            Node::Scope { body } => {
                let incoming = std::mem::take(state);
                *state = self.region(body, incoming, gens);
            }
            Node::Opaque { regions } => {
                let owner = regions.first().map(|r| self.owner(r)).unwrap_or(OpKey::synthetic(u32::MAX));
                let incoming = std::mem::take(state);
                *state = self.repeat(&Iteration::AnyRegion(regions), owner, incoming, gens).0;
            }
        }
    }

    /// A region of several blocks, along its successor edges, to the
    /// fixpoint; a fact moving along an edge crosses the region (a value
    /// outside its entry block may be another instance on the way back).
    fn cfg(&mut self, region: &Region, entry: State, gens: bool) -> State {
        let owner = self.owner(region);
        self.enter(owner);
        let exit = self.cfg_blocks(region, owner, entry, gens);
        self.leave();
        exit
    }
}

impl Walker<'_, '_> {
    fn owner(&self, region: &Region) -> OpKey {
        nesting::owner(self.function, region)
    }

    /// Enters repeated construct `owner` (until `leave`).
    fn enter(&mut self, owner: OpKey) {
        self.around.push(owner);
    }

    fn leave(&mut self) {
        self.around.pop();
    }

    /// `state` across a back edge of `owner`.
    fn crossing(&mut self, state: &State, owner: OpKey) -> State {
        let nesting = &self.nesting;
        let accesses = &mut *self.accesses;
        let sensitive = &mut self.sensitive;
        let mut matters = |of: Option<u32>| {
            let Some(order) = of.filter(|order| *order != ANY_STORE) else { return false };
            // `None`: the access is unknown, every crossing may matter.
            sensitive
                .entry(order)
                .or_insert_with(|| {
                    let writes = match accesses.call_writes(order) {
                        Some(writes) => Some(writes),
                        None => accesses.access(order).map(|access| vec![access]),
                    };
                    writes.map(|writes| {
                        writes
                            .iter()
                            .flat_map(|access| access.origins.iter())
                            .flat_map(|(_, origin)| origin.enclosing.iter().copied())
                            .collect()
                    })
                })
                .as_ref()
                .is_none_or(|around| around.contains(&owner))
        };
        state.crossing(owner, &|inner, outer| nesting.inside(inner, outer), &mut matters)
    }

    fn cfg_blocks(&mut self, region: &Region, owner: OpKey, entry: State, gens: bool) -> State {
        let mut incoming: Vec<Option<State>> = vec![None; region.blocks.len()];
        let mut walked: Vec<bool> = vec![false; region.blocks.len()];
        let mut exit = State::unreached();
        incoming[0] = Some(entry);
        let mut work = vec![0usize];
        while let Some(b) = work.pop() {
            let state = incoming[b].clone().unwrap_or_default();
            // Each block generates on its first walk only; later walks
            // carry what is new.
            let first = !std::mem::replace(&mut walked[b], true);
            let out = self.block(&region.blocks[b].nodes, state, gens && first);
            if region.blocks[b].successors.is_empty() {
                exit.union_with(&out);
            }
            let moved = self.crossing(&out, owner);
            for &s in &region.blocks[b].successors {
                let s = s as usize;
                if join_into(&mut incoming[s], &moved) || !walked[s] {
                    work.push(s);
                }
            }
        }
        exit
    }

    /// Zero or more iterations of a construct owned by `owner`: (the
    /// facts at its head, the union of its exits). The body is walked once
    /// with generation, then with the facts that come around the back edge
    /// and are new, until none are.
    fn repeat(&mut self, iteration: &Iteration<'_>, owner: OpKey, entry: State, gens: bool) -> (State, State) {
        self.enter(owner);
        let mut header = entry;
        let (mut exit, end) = self.iterate(iteration, header.clone(), gens);
        let mut delta = self.crossing(&end, owner).minus(&header);
        while !delta.is_empty() {
            header.union_with(&delta);
            let (more, end) = self.iterate(iteration, delta, false);
            exit.union_with(&more);
            delta = self.crossing(&end, owner).minus(&header);
        }
        self.leave();
        (header, exit)
    }

    /// Pairs what op `order` issues with what is in flight there: now, for
    /// a remote write (it issues the same write on every walk); over every
    /// walk so far, for an invalidate or a call (what they write back
    /// depends on the facts: [`Site`]).
    fn issue(&mut self, order: u32, state: &State, issued: Vec<(Flight, Crossed)>, remembered: bool) {
        if !remembered {
            for first in &state.flight {
                self.meet_each(order, first, &issued);
            }
            return;
        }
        let mut site = self.sites.remove(&order).unwrap_or_default();
        let new_pending: Vec<(Flight, Crossed)> =
            state.flight.iter().filter(|f| !site.pending.contains(*f)).cloned().collect();
        let new_issued: Vec<(Flight, Crossed)> = issued.into_iter().filter(|w| !site.issued.contains(w)).collect();
        // New pending with everything issued; old pending with new issued.
        let everything: Vec<(Flight, Crossed)> = site.issued.iter().chain(&new_issued).cloned().collect();
        for first in &new_pending {
            self.meet_each(order, first, &everything);
        }
        for first in &site.pending {
            self.meet_each(order, first, &new_issued);
        }
        site.pending.extend(new_pending);
        site.issued.extend(new_issued);
        self.sites.insert(order, site);
    }

    /// Meets `first`, in flight at op `order`, with each write the op
    /// issues: all of them when every pair is wanted, else until one
    /// overlaps it (what it records depends on `first` and the op only).
    fn meet_each(&mut self, order: u32, first: &(Flight, Crossed), issued: &[(Flight, Crossed)]) {
        for second in issued {
            if self.meet(order, first, second) && !self.pairs {
                return;
            }
        }
    }

    /// Records a conflict when `first`, in flight at op `order`, and
    /// `second`, which it issues, may overlap; whether they may.
    fn meet(&mut self, order: u32, first: &(Flight, Crossed), second: &(Flight, Crossed)) -> bool {
        let ((f, cf), (w, cw)) = (first, second);
        // A line earlier launches left is written back once: the
        // invalidate that does it leaves it clean.
        if matches!((f, w), (Flight::Leftover { .. }, Flight::Leftover { .. })) {
            return false;
        }
        let conflict = Conflict { first: *f, second: *w };
        if self.conflicts.contains(&conflict) && cf.iter().all(|c| self.report.carried.contains(c)) {
            self.report.conflicting_ops.insert(order);
            self.wrapped(*f, cf, order);
            return true;
        }
        self.learn_written(*f);
        self.learn_written(*w);
        let (a, b) = (&self.written[f], &self.written[w]);
        let aliases = self.accesses.aliases();
        if !a.iter().any(|a| b.iter().any(|b| may_overlap_instances(a, cf, b, cw, aliases))) {
            return false;
        }
        self.conflicts.insert(conflict);
        self.report.conflicting_ops.insert(order);
        self.report.carried.extend(cf.iter().copied());
        self.wrapped(*f, cf, order);
        true
    }

    /// Records in `Report::wrapped` the constructs around op `order` whose
    /// back edge `first` (in flight there, having crossed `crossed`) came
    /// around: those it crossed, and, when it was issued at this op or
    /// after it (so it came around some back edge unrecorded), each one
    /// whose values its access does not name (its crossing would not be
    /// recorded).
    fn wrapped(&mut self, first: Flight, crossed: &Crossed, order: u32) {
        let issuer = first.issuer();
        let of = match first {
            Flight::Remote(o) | Flight::WriteBack { store: o, .. } if o != ANY_STORE => Some(o),
            _ => None,
        };
        for index in 0..self.around.len() {
            let construct = self.around[index];
            let wrapped = crossed.contains(&construct)
                || (issuer >= order
                    && !of.is_some_and(|o| {
                        self.sensitive
                            .get(&o)
                            .is_some_and(|around| around.as_ref().is_none_or(|a| a.contains(&construct)))
                    }));
            if wrapped {
                self.report.wrapped.insert((construct, Some(issuer), order));
            }
        }
    }

    fn event(&mut self, order: u32, kind: &EventKind, state: &mut State, gens: bool) {
        self.transfer(order, kind, state, gens);
        if state.dirty.len() > MAX_FACTS {
            // Folded into one line anywhere on this rank (what a later
            // invalidate writes back overlaps any write of this rank).
            state.dirty.clear();
            state.dirty.insert((Some(ANY_STORE), Crossed::new()));
        }
        if state.cached.len() > MAX_FACTS {
            state.cached.clear();
            state.cached.insert((None, Crossed::new()));
        }
        if state.unread.len() > MAX_FACTS {
            // Folded into one write of anything: only a whole-GM
            // invalidate ends it.
            state.unread.clear();
            state.unread.insert((Flight::Many(order), Crossed::new()));
        }
        if state.flight.len() > MAX_FACTS {
            let many = Flight::Many(order);
            self.conflicts.insert(Conflict { first: many, second: many });
            self.report.conflicting_ops.insert(order);
            self.report.carried.extend(self.around.iter().copied());
            self.report.wrapped.extend(self.around.iter().map(|&construct| (construct, None, order)));
            state.flight.clear();
            if self.mode == Mode::IgnoringFences {
                // No fence ends what is in flight here: the writes stay
                // in flight, as one that may overlap anything.
                state.flight.insert((many, Crossed::new()));
            }
        }
    }

    fn transfer(&mut self, order: u32, kind: &EventKind, state: &mut State, gens: bool) {
        if self.mode == Mode::Fences {
            self.read_back(order, kind, state);
            if gens {
                self.caches(order, kind, state);
            }
        }
        match kind {
            EventKind::Store { window } => {
                if gens {
                    self.windows.insert(order, *window);
                    state.dirty.insert((Some(order), Crossed::new()));
                }
            }
            EventKind::RemoteStore => {
                let write = (Flight::Remote(order), Crossed::new());
                self.issue(order, state, vec![write.clone()], false);
                // A read-back can be stale only through a line that was in
                // the cache when the write was issued: a read while it is
                // in flight returns it and caches nothing, one after it
                // landed fetches it (docs/passes/verify-comm-order.md).
                // Driven by the facts, so on every walk.
                if self.mode == Mode::Fences && self.may_be_cached(Flight::Remote(order), state) {
                    state.unread.insert(write.clone());
                }
                if gens {
                    state.flight.insert(write);
                }
            }
            EventKind::Call { callee, submit } if !*submit && !self.accesses.loud(order, *callee) => {
                // A callee that returns with nothing in flight: what it
                // wrote back has landed. It may leave lines it stored
                // dirty, in memory its operands reach.
                if gens {
                    state.dirty.insert((Some(order), Crossed::new()));
                    if self.mode == Mode::Fences {
                        state.unread.insert((Flight::Call(order), Crossed::new()));
                    }
                }
            }
            EventKind::Call { .. } => {
                // The callee may write back any dirty line (its whole-GM
                // invalidate) and leave it in flight, and leave in flight
                // what it writes itself, in memory its operands reach; the
                // lines may stay dirty too.
                let mut issued: Vec<(Flight, Crossed)> = state
                    .dirty
                    .iter()
                    .map(|(dirty, crossed)| {
                        let flight = match dirty {
                            Some(store) => Flight::WriteBack { store: *store, by: order },
                            None => Flight::Leftover { by: order },
                        };
                        (flight, crossed.clone())
                    })
                    .collect();
                issued.push((Flight::Call(order), Crossed::new()));
                self.issue(order, state, issued.clone(), true);
                let own = issued.pop().expect("the call's own");
                state.flight.extend(issued);
                if gens {
                    if self.mode == Mode::Fences {
                        state.unread.insert(own.clone());
                    }
                    state.flight.insert(own);
                    state.dirty.insert((Some(order), Crossed::new()));
                }
            }
            EventKind::Invalidate(target) => {
                // A whole-GM invalidate writes back every dirty line and
                // cleans it; a region invalidate the lines that may be in
                // its target, and cleans those it surely covers.
                let mut written = Vec::new();
                let mut cleaned = Vec::new();
                for (dirty, crossed) in &state.dirty {
                    let (writes, cleans) = match target {
                        None => (true, true),
                        Some(window) => self.region_covers(order, *window, *dirty, crossed),
                    };
                    if writes {
                        let flight = match dirty {
                            Some(store) => Flight::WriteBack { store: *store, by: order },
                            None => Flight::Leftover { by: order },
                        };
                        written.push((flight, crossed.clone()));
                    }
                    if cleans {
                        cleaned.push((*dirty, crossed.clone()));
                    }
                }
                self.issue(order, state, written.clone(), true);
                for fact in cleaned {
                    state.dirty.remove(&fact);
                }
                state.flight.extend(written);
                // It drops the lines of what it covers, whatever rank's
                // copy they are of: a later read fetches what landed.
                match target {
                    None => {
                        state.unread.clear();
                        state.cached.clear();
                    }
                    Some(_) => {
                        let dropped: Vec<(Option<u32>, Crossed)> = state
                            .cached
                            .iter()
                            .filter(|(line, crossed)| line.is_some_and(|op| self.drops_line(order, op, crossed)))
                            .cloned()
                            .collect();
                        for fact in dropped {
                            state.cached.remove(&fact);
                        }
                        let dropped: Vec<(Flight, Crossed)> = state
                            .unread
                            .iter()
                            .filter(|(write, crossed)| self.drops(order, *write, crossed))
                            .cloned()
                            .collect();
                        for fact in dropped {
                            state.unread.remove(&fact);
                        }
                    }
                }
            }
            EventKind::Fence => {
                if self.mode == Mode::Fences {
                    state.flight.clear();
                }
            }
            EventKind::Notify | EventKind::Wait | EventKind::GmRead | EventKind::Collective | EventKind::Return => {}
        }
    }

    /// Records a read-back when event `order` reads GM (a read, the source
    /// of a `put` or `get`, a call's callee) where a remote write of this
    /// block it may overlap has not been followed by an invalidate
    /// covering it. Checked before the event's own write is issued: a
    /// `put` reads its source first.
    fn read_back(&mut self, order: u32, kind: &EventKind, state: &State) {
        if state.unread.is_empty() {
            return;
        }
        let Some(reads) = self.reads_of(order, kind) else { return };
        for (write, crossed) in &state.unread {
            if self.read_backs.contains(&ReadBack { write: *write, read: order }) {
                continue;
            }
            self.learn_written(*write);
            let written = &self.written[write];
            let aliases = self.accesses.aliases();
            let hit = written.iter().any(|w| reads.iter().any(|r| may_overlap_instances(w, crossed, r, &[], aliases)));
            if !hit {
                continue;
            }
            self.read_backs.insert(ReadBack { write: *write, read: order });
            let covered = matches!(kind, EventKind::GmRead | EventKind::Store { .. } | EventKind::RemoteStore)
                && written.iter().all(|w| reads.iter().any(|r| covers_elements(r, w, crossed, None)));
            let entry = self.report.read_back_covered.entry(order).or_insert(true);
            *entry &= covered;
        }
    }

    /// Records, on the walk that generates, the lines event `order` may
    /// bring into the cache: a GM read's (a `put`'s or `get`'s source
    /// included), a store's, a call's (anything its operands reach).
    fn caches(&mut self, order: u32, kind: &EventKind, state: &mut State) {
        let Some(mut lines) = self.reads_of(order, kind) else { return };
        if matches!(kind, EventKind::Store { .. }) {
            // A store's line is dirty in the cache.
            lines.extend(self.accesses.access(order));
        }
        if lines.is_empty() {
            return;
        }
        self.lines.insert(order, lines);
        state.cached.insert((Some(order), Crossed::new()));
    }

    /// What event `order` reads through the cache: a GM read's source, a
    /// `put`'s or `get`'s `src`, anything a callee may reach through the
    /// call's operands; `None` for an event that reads nothing.
    fn reads_of(&mut self, order: u32, kind: &EventKind) -> Option<Vec<Access>> {
        match kind {
            EventKind::GmRead | EventKind::Store { .. } | EventKind::RemoteStore => {
                Some(self.accesses.reads(order).into_iter().collect())
            }
            EventKind::Call { .. } => {
                Some(self.accesses.call_writes(order).unwrap_or_else(|| vec![Access::anything()]))
            }
            _ => None,
        }
    }

    /// Reads what `flight` may write into `written`, once.
    fn learn_written(&mut self, flight: Flight) {
        if !self.written.contains_key(&flight) {
            let accesses = access_of(flight, &mut *self.accesses);
            self.written.insert(flight, accesses);
        }
    }

    /// Whether a line of what `write` writes may be in the cache in
    /// `state`.
    fn may_be_cached(&mut self, write: Flight, state: &State) -> bool {
        if state.cached.is_empty() {
            return false;
        }
        self.learn_written(write);
        let written = &self.written[&write];
        let aliases = self.accesses.aliases();
        state.cached.iter().any(|(line, crossed)| {
            let Some(op) = line else { return true };
            let Some(lines) = self.lines.get(op) else { return true };
            lines.iter().any(|l| written.iter().any(|w| may_overlap_instances(l, crossed, w, &[], aliases)))
        })
    }

    /// Whether region invalidate `order` drops every line op `line` (made
    /// `crossed` back edges ago) may have brought into the cache.
    fn drops_line(&mut self, order: u32, line: u32, crossed: &Crossed) -> bool {
        let Some(dropped) = self.region_drops(order) else { return false };
        self.lines.get(&line).is_some_and(|lines| dropped(lines, crossed))
    }

    /// Whether region invalidate `order` drops every line of what `write`
    /// (made `crossed` back edges ago) wrote.
    fn drops(&mut self, order: u32, write: Flight, crossed: &Crossed) -> bool {
        let Some(dropped) = self.region_drops(order) else { return false };
        self.learn_written(write);
        dropped(&self.written[&write], crossed)
    }

    /// For region invalidate `order`: whether it drops the lines of every
    /// one of some accesses (made `crossed` back edges ago), of any rank's
    /// copy; `None` when its target is unknown (it is not known to drop any).
    fn region_drops(&mut self, order: u32) -> Option<impl Fn(&[Access], &Crossed) -> bool> {
        let target = self.accesses.access(order)?;
        let size = self.accesses.base_size(order);
        Some(move |accesses: &[Access], crossed: &Crossed| {
            accesses.iter().all(|a| covers_elements(&target, a, crossed, size))
        })
    }

    /// Whether region invalidate `order` (of `window`) may write back the
    /// line of `dirty`, made `crossed` back edges ago, and whether it
    /// surely cleans it. A store into the same SSA value in this iteration
    /// of everything around it is both without reading the IR.
    fn region_covers(&mut self, order: u32, window: WindowId, dirty: Dirty, crossed: &Crossed) -> (bool, bool) {
        let target = self.accesses.access(order);
        let Some(store) = dirty else {
            let leftover = Access::leftover();
            let writes =
                target.as_ref().is_none_or(|t| may_overlap_instances(&leftover, &[], t, &[], self.accesses.aliases()));
            return (writes, false);
        };
        if store == ANY_STORE {
            return (true, false);
        }
        if crossed.is_empty() && self.windows.get(&store).copied().flatten() == Some(window) {
            return (true, true);
        }
        let (Some(target), Some(written)) = (target, self.accesses.access(store)) else { return (true, false) };
        let writes = may_overlap_instances(&written, crossed, &target, &[], self.accesses.aliases());
        let cleans = writes && covers(&target, &written, crossed, self.accesses.base_size(order));
        (writes, cleans)
    }
}

/// A write of a conflict, by the ops that name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Write {
    pub kind: WriteKind,
    /// The access: the store of a write-back, the remote write, the call;
    /// for lines earlier launches left, the invalidate writing them back.
    pub op: OpKey,
    /// The invalidate that starts a write-back.
    pub by: Option<OpKey>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WriteKind {
    Remote,
    WriteBack,
    Leftover,
    Call,
    Many,
}

/// A conflict of the checker, by ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Violation {
    pub first: Write,
    pub second: Write,
}

impl Flight {
    /// The write by the ops of the kernel's events (`op` maps an order).
    pub fn by_ops(self, op: &dyn Fn(u32) -> OpKey) -> Write {
        match self {
            Flight::Remote(order) => Write { kind: WriteKind::Remote, op: op(order), by: None },
            Flight::WriteBack { store, by } => Write { kind: WriteKind::WriteBack, op: op(store), by: Some(op(by)) },
            Flight::Leftover { by } => Write { kind: WriteKind::Leftover, op: op(by), by: Some(op(by)) },
            Flight::Call(order) => Write { kind: WriteKind::Call, op: op(order), by: None },
            Flight::Many(order) => Write { kind: WriteKind::Many, op: op(order), by: None },
        }
    }
}

impl Conflict {
    /// The conflict by the ops of the kernel's events (`op` maps an order).
    pub fn by_ops(&self, op: &dyn Fn(u32) -> OpKey) -> Violation {
        Violation { first: self.first.by_ops(op), second: self.second.by_ops(op) }
    }
}

impl ReadBack {
    /// The read-back by the ops of the kernel's events (`op` maps an
    /// order): (the write, the read).
    pub fn by_ops(&self, op: &dyn Fn(u32) -> OpKey) -> (Write, OpKey) {
        (self.write.by_ops(op), op(self.read))
    }
}

mod ir_accesses;
mod leaves;
mod nesting;

pub use ir_accesses::IrAccesses;
pub use leaves::leaves_in_flight;
use nesting::Nesting;
