//! Partial-order reduction: in a state, the search follows a persistent set
//! of the enabled actions instead of all of them, the actions of a set Q of
//! agents (running blocks with their units in flight, and single units)
//! that no action outside Q, in any schedule that leaves Q alone, can
//! touch. docs/ccl-sim.md ("Partial-order reduction") gives the argument;
//! in short:
//!
//! - `future` over-approximates, by an abstract interpretation of a
//!   thread's code from its concrete frames, what it may touch: within its
//!   next step (`Horizon::NextRest`: the step it rests at and the local
//!   steps it runs eagerly after it) and to its end (`Horizon::End`), going
//!   no further than a [`Cut`] (waits that cannot pass, fences whose unit
//!   does not land), with what it runs when woken there. `access` says
//!   which parts of the state an access touches (elements of memory with
//!   their shadow, in-flight index, dirty-line index and, for a signal
//!   cell, its clock; the dirty lines a thread's invalidate writes back)
//!   and when two conflict.
//! - Q is closed: no running block outside Q has a cut future, no unit
//!   outside Q a landing, and no host that may run on a future, that
//!   conflicts with what Q's actions touch (its next steps and landings,
//!   and what they run on: the host of a last block, a thread they wake);
//!   no host is running.
//! - Then every action outside Q touches nothing Q's actions touch (in
//!   either direction), so it commutes with them, neither enables nor
//!   disables them, and makes the same finding before or after them: a
//!   finding reachable in the whole graph is reachable in the reduced one.
//! - The cycle proviso: a state is reduced only if every action of the
//!   persistent set leads to a state of strictly greater [`Progress`]; the
//!   search (`dfs`) expands the state fully otherwise. A cycle of states
//!   therefore never consists of reduced states only, and no action is
//!   postponed for ever.

mod absval;
mod access;
mod debug;
mod future;
mod iset;

use access::{Accesses, Space};
use future::{Blocked, Cut, Horizon, Reach, Trigger, WaitSite};
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::machine::{Action, Frame, Loc, Machine, State, Status, ThreadId};
use crate::program::Scalar;
use crate::value;

/// Ranks beyond which the reduction is off: rank sets are 64-bit masks.
const MAX_RANKS: u16 = 64;

/// A memoized reach: the thread, horizon, frames and cut it was walked for.
struct Memo {
    thread: ThreadId,
    horizon: Horizon,
    frames: Vec<Frame>,
    cut: Cut,
    reach: Arc<Reach>,
}

/// Chooses persistent sets for the states of one machine; the reaches of
/// threads are memoized by their frames (and where they are cut).
pub struct Reducer<'m> {
    machine: &'m Machine,
    reaches: Mutex<HashMap<u64, Vec<Memo>>>,
    debug: Option<debug::Debug>,
}

/// The reaches of one state's threads, by thread, horizon and cut (the
/// frames are the state's).
type Local = HashMap<(ThreadId, Horizon, Cut), Arc<Reach>>;

/// What a set Q starts from: a thread (its steps and its units' landings)
/// or the landing of one unit in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Agent {
    Thread(ThreadId),
    Unit(ThreadId, usize),
}

/// The set Q: threads (a running block, with every unit it has in flight)
/// and units whose thread is not in it.
#[derive(Clone)]
struct Set {
    threads: Vec<bool>,
    units: Vec<Vec<bool>>,
}

impl Set {
    fn new(state: &State) -> Set {
        Set {
            threads: vec![false; state.threads.len()],
            units: state.inflight.iter().map(|queue| vec![false; queue.len()]).collect(),
        }
    }

    fn holds(&self, action: &Action) -> bool {
        match action {
            Action::Step(t) => self.threads[*t as usize],
            Action::Land(t, u) => self.threads[*t as usize] || self.units[*t as usize][*u as usize],
            Action::Collective => false,
        }
    }

    /// Threads outside Q with a unit in Q: their fences do not pass while
    /// Q is left alone.
    fn drained(&self) -> Vec<ThreadId> {
        (0..self.threads.len())
            .filter(|t| !self.threads[*t] && self.units[*t].iter().any(|u| *u))
            .map(|t| t as ThreadId)
            .collect()
    }
}

/// What the running blocks of a joining host's launch add to signal cells
/// before the host goes on (`Reducer::launch_adds`): each block's way to
/// its end is one path known exactly, so these adds are all made, and made
/// before any step of the host's future.
struct LaunchAdds {
    blocks: std::ops::Range<ThreadId>,
    /// The sum each block's adds make, by cell.
    sums: BTreeMap<Loc, i64>,
    /// What the blocks' futures and writes in flight touch: a cell they
    /// write other than by adding gets no value from them.
    overwritten: Accesses,
}

impl LaunchAdds {
    /// The value `cell` holds when the host goes on, unless a thread
    /// outside the launch writes it first: its value now and the blocks'
    /// adds, wrapped to its type as the machine adds; `None` where a block
    /// may write it otherwise, or it is not an integer cell.
    fn offset(&self, state: &State, cell: Loc) -> Option<i64> {
        if self.overwritten.overwrites(cell, &state.caches) {
            return None;
        }
        let buffer = state.buffers.get(cell.buffer as usize)?;
        let Scalar::Int(bits) = buffer.element else { return None };
        let now = buffer.ranks.get(cell.rank as usize)?.get(cell.index as usize)?.bits as i64;
        Some(value::wrap(now.wrapping_add(self.sums.get(&cell).copied().unwrap_or(0)), bits))
    }
}

/// What one of Q's actions may touch, by who runs it: Q's own steps and
/// landings (`owner` none), or a thread it runs on (a host it wakes,
/// `false`; a block it wakes, `true`: the block's own future comes before
/// it).
struct Part {
    owner: Option<(ThreadId, bool)>,
    accesses: Accesses,
}

impl<'m> Reducer<'m> {
    /// The reducer of `machine`, if the reduction applies to it.
    pub fn new(machine: &'m Machine) -> Option<Reducer<'m>> {
        (machine.ranks <= MAX_RANKS).then(|| Reducer {
            machine,
            reaches: Mutex::new(HashMap::new()),
            debug: debug::Debug::from_env(),
        })
    }

    fn note(&self, what: &str) {
        if let Some(debug) = &self.debug {
            debug.count(what);
        }
    }

    fn name(&self, t: ThreadId) -> String {
        self.machine.thread_name(t)
    }

    fn memoized(&self, state: &State, t: ThreadId, horizon: Horizon, cut: &Cut) -> Arc<Reach> {
        use std::hash::{Hash, Hasher};
        let frames = &state.threads[t as usize].frames;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (t, horizon, frames, cut).hash(&mut hasher);
        let key = hasher.finish();
        let found = |memos: &Vec<Memo>| {
            memos
                .iter()
                .find(|m| m.thread == t && m.horizon == horizon && m.frames == *frames && m.cut == *cut)
                .map(|m| m.reach.clone())
        };
        if let Some(reach) = self.reaches.lock().unwrap_or_else(|e| e.into_inner()).get(&key).and_then(found) {
            return reach;
        }
        let reach = Arc::new(future::reach(self.machine, t, frames, horizon, cut));
        let memo = Memo { thread: t, horizon, frames: frames.clone(), cut: cut.clone(), reach: reach.clone() };
        self.reaches.lock().unwrap_or_else(|e| e.into_inner()).entry(key).or_default().push(memo);
        reach
    }

    /// The reach of thread `t` going no further than `cut`.
    fn cut(&self, state: &State, local: &mut Local, t: ThreadId, horizon: Horizon, cut: &Cut) -> Arc<Reach> {
        let key = (t, horizon, cut.clone());
        if let Some(reach) = local.get(&key) {
            return reach.clone();
        }
        let reach = self.memoized(state, t, horizon, cut);
        local.insert(key, reach.clone());
        reach
    }

    /// The waits `t` may reach (within `horizon`) whose cell's value does
    /// not satisfy them, sorted: the value in `state`, or for a joining
    /// host's future the value its launch's blocks leave (`launch_adds`).
    fn unsatisfied(
        &self,
        state: &State,
        local: &mut Local,
        t: ThreadId,
        horizon: Horizon,
        adds: Option<&LaunchAdds>,
    ) -> Vec<Blocked> {
        let whole = self.cut(state, local, t, horizon, Cut::NONE);
        // A wait reached with several expected values is blocked only if
        // none of them holds.
        let holds: Vec<Blocked> = whole
            .waits
            .iter()
            .filter(|wait| Self::may_hold(state, wait, adds.and_then(|a| a.offset(state, wait.at.cell))))
            .map(|wait| wait.at)
            .collect();
        let mut waits: Vec<Blocked> = whole.waits.iter().map(|wait| wait.at).filter(|at| !holds.contains(at)).collect();
        waits.sort_unstable();
        waits.dedup();
        waits
    }

    /// Keeps the waits whose cell nothing in `writers` may write (for a
    /// wait in a joining host's future whose cell its launch's blocks only
    /// add to, `others`: the writers but those blocks).
    fn keep_unwritten(
        state: &State,
        waits: &mut Vec<Blocked>,
        writers: &Accesses,
        others: Option<(&Accesses, &LaunchAdds)>,
    ) -> bool {
        let before = waits.len();
        waits.retain(|wait| {
            let mut probe = Accesses::new();
            probe.loc(wait.cell, false);
            let writers = match others {
                Some((others, adds)) if adds.offset(state, wait.cell).is_some() => others,
                _ => writers,
            };
            !writers.conflicts(&probe, &state.caches)
        });
        waits.len() != before
    }

    /// What the running blocks of joining host `host`'s launch add to
    /// signal cells before the host goes on; `None` unless each of them
    /// finishes along one path known exactly (`future::Reach::adds`).
    fn launch_adds(&self, state: &State, local: &mut Local, host: ThreadId) -> Option<LaunchAdds> {
        let Status::Joining { first, count } = state.threads[host as usize].status else { return None };
        let blocks = first..first + count;
        let mut sums: BTreeMap<Loc, i64> = BTreeMap::new();
        let mut overwritten = Accesses::new();
        for b in blocks.clone().filter(|b| Self::running(state, *b)) {
            let reach = self.cut(state, local, b, Horizon::End, Cut::NONE);
            if !reach.finishes {
                return None;
            }
            for (cell, value) in reach.adds.as_ref()? {
                let sum = sums.entry(*cell).or_default();
                *sum = sum.wrapping_add(*value);
            }
            overwritten.extend(&reach.accesses);
            Self::units(state, b, None, &mut overwritten);
        }
        Some(LaunchAdds { blocks, sums, overwritten })
    }

    /// Whether a wait on its cell's value may hold (any value of the
    /// expected set; a range or any value: may): the value in `state`, or
    /// `after` (the value a launch's blocks leave in it).
    fn may_hold(state: &State, wait: &WaitSite, after: Option<i64>) -> bool {
        let cell = wait.at.cell;
        let Some(value) = state
            .buffers
            .get(cell.buffer as usize)
            .and_then(|b| b.ranks.get(cell.rank as usize))
            .and_then(|copy| copy.get(cell.index as usize))
        else {
            return true;
        };
        let current = after.unwrap_or(value.bits as i64);
        match wait.expected.values() {
            Some(values) => values.iter().any(|e| if wait.equal { current == *e } else { current >= *e }),
            None => true,
        }
    }

    /// The writes of unit `u` of `t` (what its landing touches).
    fn unit(state: &State, t: ThreadId, u: usize, out: &mut Accesses) {
        for (loc, _) in &state.inflight[t as usize][u].writes {
            out.loc(*loc, true);
        }
    }

    /// The writes of `t`'s units in `q` (`q` none: all of them).
    fn units(state: &State, t: ThreadId, q: Option<(&Set, bool)>, out: &mut Accesses) {
        for u in 0..state.inflight[t as usize].len() {
            let keep = match q {
                None => true,
                Some((q, inside)) => (q.threads[t as usize] || q.units[t as usize][u]) == inside,
            };
            if keep {
                Self::unit(state, t, u, out);
            }
        }
    }

    fn running_block(&self, state: &State, t: ThreadId) -> bool {
        self.machine.slot_of(t) != 0 && Self::running(state, t)
    }

    fn running(state: &State, t: ThreadId) -> bool {
        state.threads[t as usize].status == Status::Running
    }

    /// The threads of `drained` whose fences `t`'s future may reach: its
    /// own, or for a host the slots it launches on.
    fn drained_for(&self, t: ThreadId, drained: &[ThreadId]) -> Vec<ThreadId> {
        let per_rank = self.machine.per_rank;
        if self.machine.slot_of(t) == 0 {
            drained.iter().copied().filter(|d| (t + 1..t + per_rank).contains(d)).collect()
        } else {
            drained.iter().copied().filter(|d| *d == t).collect()
        }
    }

    /// The closed set Q grown from `seed`; `None` where no such set avoids
    /// a finishing step whose host the reduction cannot follow. (Its loops
    /// run over thread ids, which index several per-thread tables.)
    #[allow(clippy::needless_range_loop)]
    fn closure(&self, state: &State, local: &mut Local, seed: Agent) -> Option<Set> {
        let machine = self.machine;
        let n = state.threads.len();
        let mut q = Set::new(state);
        let seed_thread = match seed {
            Agent::Thread(t) => {
                q.threads[t as usize] = true;
                t
            }
            Agent::Unit(t, u) => {
                q.units[t as usize][u] = true;
                t
            }
        };
        let mut known: Vec<Option<Arc<Reach>>>;
        loop {
            known = vec![None; n];
            let writers = self.writers(state, local, &q, &mut known);
            // Every launch that may complete while Q is left alone keeps a
            // running block in Q, so no host runs on, unless its future
            // (the rest of its code and the kernels it launches, cut as
            // above) is followed: it is joined to the others' and checked
            // against Q's actions below. One that reaches everything is
            // not followed.
            let mut grew = false;
            for rank in 0..machine.ranks {
                let host = rank * machine.per_rank;
                let Status::Joining { first, count } = state.threads[host as usize].status else { continue };
                let launch = first..first + count;
                if self.held(state, &q, &known, launch.clone()) {
                    continue;
                }
                if known[host as usize].as_ref().is_some_and(|f| !Self::everything(&f.accesses)) {
                    continue;
                }
                self.note("grow: pin (host future everything)");
                let pick = self.pin(state, local, launch, seed_thread)?;
                debug::trace(|| format!("  pinned {} (its host's future is everything)", self.name(pick)));
                q.threads[pick as usize] = true;
                grew = true;
            }
            if grew {
                continue;
            }
            // What Q's next actions touch: its steps cut at the waits
            // nothing may open, and its landings.
            let (side, nexts) = self.next_steps(state, local, &q, &writers)?;
            // Besides Q's own steps, its actions may run other threads on
            // (the parts below): a host whose last block one of them
            // finishes, a thread outside Q one of them wakes. Along a
            // schedule that leaves Q alone and is taken first, each of
            // those runs where that thread would have got there anyway
            // (its launch's last block finishing, its arrival at the
            // wait), so each part must commute with what the others do
            // after that, and with the other parts.
            let mut parts: Vec<Part> = vec![Part { owner: None, accesses: side }];
            // A next step that may finish its block is the last of its
            // launch unless another block of it cannot finish: one outside
            // Q whose future is cut before its end, or one in Q whose next
            // step does not finish (Q's steps move no other block of Q
            // past that step). The last one's host runs on in the same
            // step, to its next rest.
            self.last_blocks(state, local, &q, &known, &nexts, &mut parts)?;
            // A thread outside Q stopped at a cut wait whose cell Q's
            // actions write, or at a fence of its own whose last unit in
            // flight Q lands, is woken in that action and runs on to its
            // next rest: that run is a part of the action. A run that may
            // finish its block (and so wake its host), or that conflicts
            // with another part, is not followed: the thread joins Q (a
            // block a host would launch: the host is kept joining, below).
            let mut pin_for_wake: Vec<ThreadId> = Vec::new();
            grew |= self.woken_runs(state, &mut q, &known, &mut parts, &mut pin_for_wake);
            // Parts of threads that joined Q instead are not run by Q's
            // actions (the thread's own next step is in the first part).
            parts.retain(|p| p.owner.is_none_or(|(o, _)| !q.threads[o as usize] && !pin_for_wake.contains(&o)));
            // A running block outside Q whose future conflicts with a part
            // joins Q; so does a unit in flight whose landing does.
            for u in 0..n {
                if q.threads[u] {
                    continue;
                }
                if let Some(future) = known[u].as_ref().filter(|_| self.running_block(state, u as ThreadId)) {
                    let conflict = parts.iter().find(|p| {
                        p.owner != Some((u as ThreadId, true)) && p.accesses.conflicts(&future.accesses, &state.caches)
                    });
                    if let Some(part) = conflict {
                        if let Some(debug) = &self.debug {
                            debug.conflict("grow: conflict", &part.accesses, &future.accesses, &state.caches);
                            debug::trace(|| {
                                let pair = debug::first_conflict(&part.accesses, &future.accesses, &state.caches);
                                format!("  {} joins: {pair}", self.name(u as ThreadId))
                            });
                        }
                        q.threads[u] = true;
                        grew = true;
                        continue;
                    }
                }
                for k in 0..state.inflight[u].len() {
                    if q.units[u][k] {
                        continue;
                    }
                    let mut landing = Accesses::new();
                    Self::unit(state, u as ThreadId, k, &mut landing);
                    if let Some(part) = parts.iter().find(|p| p.accesses.conflicts(&landing, &state.caches)) {
                        if let Some(debug) = &self.debug {
                            debug.conflict("grow: landing", &part.accesses, &landing, &state.caches);
                            debug::trace(|| format!("  a unit of {} joins", self.name(u as ThreadId)));
                        }
                        q.units[u][k] = true;
                        grew = true;
                    }
                }
            }
            // A host that may run on and whose future conflicts with a
            // part (or whose launched block's wake is not followed) is
            // kept joining.
            for host in self.unpinned_hosts(state, &q) {
                let Status::Joining { first, count } = state.threads[host as usize].status else { continue };
                let launch = first..first + count;
                if self.held(state, &q, &known, launch.clone()) {
                    continue;
                }
                let conflict = known[host as usize].as_ref().is_none_or(|f| {
                    parts
                        .iter()
                        .any(|p| p.owner != Some((host, true)) && p.accesses.conflicts(&f.accesses, &state.caches))
                });
                if !conflict && !pin_for_wake.contains(&host) {
                    continue;
                }
                self.note("grow: pin (host future conflicts)");
                let pick = self.pin(state, local, launch, seed_thread)?;
                debug::trace(|| {
                    // Which of Q's parts meets which access of the host's future.
                    let why = known[host as usize].as_ref().and_then(|f| {
                        parts.iter().filter(|p| p.owner != Some((host, true))).find_map(|p| {
                            p.accesses.first_conflict(&f.accesses, &state.caches).map(|pair| (p.owner, pair))
                        })
                    });
                    format!("  pinned {} for its host: {why:?}", self.name(pick))
                });
                q.threads[pick as usize] = true;
                grew = true;
            }
            if !grew {
                return Some(q);
            }
        }
    }

    /// What may be written while Q is left alone: the others' futures
    /// (each kept in `known`), cut at the waits no write of theirs opens,
    /// and Q's own next steps and landings.
    fn writers(&self, state: &State, local: &mut Local, q: &Set, known: &mut [Option<Arc<Reach>>]) -> Accesses {
        let n = state.threads.len();
        let drained = q.drained();
        // Q's next steps, uncut, and its landings: what they may write
        // themselves.
        let mut q_next = Accesses::new();
        for t in 0..n as ThreadId {
            if q.threads[t as usize] && self.running_block(state, t) {
                q_next.extend(&self.cut(state, local, t, Horizon::NextRest, Cut::NONE).accesses);
            }
            Self::units(state, t, Some((q, true)), &mut q_next);
        }
        // While Q is left alone only the others act. Their futures
        // are cut at waits that no write of theirs opens: start from
        // every wait their cell does not satisfy now, and drop those
        // whose cell a cut future writes, until none is dropped (no
        // thread passes the first of the rest to be passed: nothing
        // written before it opens it); and at the fences of a thread
        // with a unit in Q. A host whose launch keeps no running block
        // in Q may run on (unless a block of it is cut before its
        // end): its future, the blocks it launches included, is cut
        // the same way.
        let mut free_threads: Vec<ThreadId> =
            (0..n as ThreadId).filter(|u| !q.threads[*u as usize] && self.running_block(state, *u)).collect();
        free_threads.extend(self.unpinned_hosts(state, q));
        // A joining host's future starts once its launch's blocks have
        // finished: where they add to a cell along one known path, the
        // host's waits see the value they leave.
        let launch_adds: Vec<Option<LaunchAdds>> = free_threads
            .iter()
            .map(|u| if self.machine.slot_of(*u) == 0 { self.launch_adds(state, local, *u) } else { None })
            .collect();
        let mut cuts: Vec<Cut> = free_threads
            .iter()
            .zip(&launch_adds)
            .map(|(u, adds)| Cut {
                waits: self.unsatisfied(state, local, *u, Horizon::End, adds.as_ref()),
                drained: self.drained_for(*u, &drained),
            })
            .collect();
        let free = loop {
            let mut all = Accesses::new();
            let mut futures = Vec::with_capacity(free_threads.len());
            for (u, cut) in free_threads.iter().zip(&cuts) {
                let future = self.cut(state, local, *u, Horizon::End, cut);
                all.extend(&future.accesses);
                futures.push((*u, future.clone()));
                known[*u as usize] = Some(future);
            }
            let mut units = Accesses::new();
            for t in 0..n as ThreadId {
                Self::units(state, t, Some((q, false)), &mut units);
            }
            all.extend(&units);
            let mut dropped = false;
            for (cut, adds) in cuts.iter_mut().zip(&launch_adds) {
                // The writers but the launch's blocks, whose adds the
                // value already holds.
                let others = adds.as_ref().map(|adds| {
                    let mut others = units.clone();
                    for (_, future) in futures.iter().filter(|(v, _)| !adds.blocks.contains(v)) {
                        others.extend(&future.accesses);
                    }
                    (others, adds)
                });
                dropped |= Self::keep_unwritten(state, &mut cut.waits, &all, others.as_ref().map(|(o, a)| (o, *a)));
            }
            if !dropped {
                break all;
            }
        };
        // Q's next step runs after those writes, with its own.
        let mut writers = free;
        writers.extend(&q_next);
        writers
    }

    /// What Q's next actions touch (its steps cut at the waits nothing in
    /// `writers` may open, and its landings), and each thread's next step;
    /// `None` if a step may touch everything.
    fn next_steps(
        &self,
        state: &State,
        local: &mut Local,
        q: &Set,
        writers: &Accesses,
    ) -> Option<(Accesses, Vec<Option<Arc<Reach>>>)> {
        let n = state.threads.len();
        let mut side = Accesses::new();
        let mut nexts: Vec<Option<Arc<Reach>>> = vec![None; n];
        for t in 0..n as ThreadId {
            if q.threads[t as usize] && self.running_block(state, t) {
                let mut waits = self.unsatisfied(state, local, t, Horizon::NextRest, None);
                Self::keep_unwritten(state, &mut waits, writers, None);
                let next = self.cut(state, local, t, Horizon::NextRest, &Cut { waits, drained: Vec::new() });
                if Self::everything(&next.accesses) {
                    self.note("fail: next step everything");
                    return None;
                }
                side.extend(&next.accesses);
                nexts[t as usize] = Some(next);
            }
            Self::units(state, t, Some((q, true)), &mut side);
        }
        Some((side, nexts))
    }

    /// The part of each host that one of Q's next steps (`nexts`) may run
    /// on, finishing the last block of its launch; `None` if one may touch
    /// everything or its host is not joining.
    fn last_blocks(
        &self,
        state: &State,
        local: &mut Local,
        q: &Set,
        known: &[Option<Arc<Reach>>],
        nexts: &[Option<Arc<Reach>>],
        parts: &mut Vec<Part>,
    ) -> Option<()> {
        let n = state.threads.len();
        for t in (0..n).filter(|t| nexts[*t].as_ref().is_some_and(|next| next.finishes)) {
            let host = self.machine.rank_of(t as ThreadId) * self.machine.per_rank;
            let Status::Joining { first, count } = state.threads[host as usize].status else {
                self.note("fail: finishing block's host not joining");
                return None;
            };
            let held = (first..first + count).any(|b| {
                let b = b as usize;
                b != t
                    && Self::running(state, b as ThreadId)
                    && match &nexts[b] {
                        _ if !q.threads[b] => known[b].as_ref().is_some_and(|f| !f.finishes),
                        Some(next) => !next.finishes,
                        None => false,
                    }
            });
            if held {
                continue;
            }
            let host_next = self.cut(state, local, host, Horizon::NextRest, Cut::NONE);
            if Self::everything(&host_next.accesses) {
                self.note("fail: last block's host future everything");
                return None;
            }
            self.note("finish: last block's host runs on");
            debug::trace(|| format!("  {} may finish last", self.name(t as ThreadId)));
            if !parts.iter().any(|p| p.owner == Some((host, false))) {
                parts.push(Part { owner: Some((host, false)), accesses: host_next.accesses.clone() });
            }
        }
        Some(())
    }

    /// The runs of threads outside Q that Q's actions wake (from the
    /// futures in `known`, one a thread), as parts; a thread whose run is
    /// not followed joins Q (a block) or is kept in `pin_for_wake` (a
    /// host). Returns whether Q grew.
    fn woken_runs(
        &self,
        state: &State,
        q: &mut Set,
        known: &[Option<Arc<Reach>>],
        parts: &mut Vec<Part>,
        pin_for_wake: &mut Vec<ThreadId>,
    ) -> bool {
        let mut grew = false;
        let mut woken: Vec<(usize, usize)> = Vec::new();
        // (Whether Q grew: a host is kept joining below, if it can
        // run on at all.)
        let mut give_up = |u: usize, q: &mut Set, why: &str| {
            self.note(why);
            debug::trace(|| format!("  woken {}: {why}", self.name(u as ThreadId)));
            if self.running_block(state, u as ThreadId) {
                q.threads[u] = true;
                true
            } else {
                pin_for_wake.push(u as ThreadId);
                false
            }
        };
        loop {
            let mut added = false;
            for (u, future) in known.iter().enumerate() {
                if q.threads[u] {
                    continue;
                }
                let Some(future) = future.clone() else { continue };
                // A block's own future comes before its wake; a host's
                // holds the other blocks of the launch too.
                let own = self.running_block(state, u as ThreadId);
                for (k, wake) in future.wakes.iter().enumerate() {
                    if woken.contains(&(u, k)) {
                        continue;
                    }
                    let opened = match wake.trigger {
                        Trigger::Cell(at) => {
                            let mut probe = Accesses::new();
                            probe.loc(at.cell, false);
                            parts.iter().any(|p| p.accesses.conflicts(&probe, &state.caches))
                        }
                        // Only a thread with a unit in Q is cut there.
                        Trigger::Drain { .. } => true,
                    };
                    if !opened {
                        continue;
                    }
                    woken.push((u, k));
                    if wake.finishes || Self::everything(&wake.accesses) {
                        grew |= give_up(u, q, "grow: woken thread may finish");
                        break;
                    }
                    let clash = parts.iter().any(|p| {
                        p.owner.is_some_and(|(o, _)| o as usize != u)
                            && p.accesses.conflicts(&wake.accesses, &state.caches)
                    });
                    if clash {
                        grew |= give_up(u, q, "grow: woken thread's run conflicts with another's");
                        break;
                    }
                    match parts.iter_mut().find(|p| p.owner == Some((u as ThreadId, own))) {
                        Some(part) => part.accesses.extend(&wake.accesses),
                        None => parts.push(Part { owner: Some((u as ThreadId, own)), accesses: wake.accesses.clone() }),
                    }
                    added = true;
                }
            }
            if !added {
                break;
            }
        }
        grew
    }

    /// Whether a launch cannot complete while Q is left alone: a running
    /// block of it is in Q, or its future is cut before its end.
    fn held(&self, state: &State, q: &Set, known: &[Option<Arc<Reach>>], launch: std::ops::Range<ThreadId>) -> bool {
        launch.into_iter().any(|b| {
            Self::holds_launch(state, q, b)
                || Self::running(state, b) && known[b as usize].as_ref().is_some_and(|f| !f.finishes)
        })
    }

    /// Whether Q keeps block `b`'s launch from completing while it is left
    /// alone: `b` runs and is in Q, or a write `b` sent is in Q (the join
    /// waits until every write of its blocks has landed).
    fn holds_launch(state: &State, q: &Set, b: ThreadId) -> bool {
        (q.threads[b as usize] && Self::running(state, b)) || q.units[b as usize].iter().any(|u| *u)
    }

    /// Joining hosts whose launch Q does not keep from completing.
    fn unpinned_hosts(&self, state: &State, q: &Set) -> Vec<ThreadId> {
        let machine = self.machine;
        (0..machine.ranks)
            .map(|rank| rank * machine.per_rank)
            .filter(|host| match state.threads[*host as usize].status {
                Status::Joining { first, count } => !(first..first + count).any(|b| Self::holds_launch(state, q, b)),
                _ => false,
            })
            .collect()
    }

    /// The block of `launch` to put in Q so that its host stays joining:
    /// preferably one whose next step does not finish, in the seed's slot
    /// (the protocol's blocks of one slot talk to each other, not to the
    /// other slots). `None` if no block of it runs (nothing to pin).
    fn pin(
        &self,
        state: &State,
        local: &mut Local,
        launch: std::ops::Range<ThreadId>,
        seed: ThreadId,
    ) -> Option<ThreadId> {
        let machine = self.machine;
        let seed_slot = machine.slot_of(seed);
        let pick = launch.filter(|b| Self::running(state, *b)).min_by_key(|b| {
            let finishes = self.cut(state, local, *b, Horizon::NextRest, Cut::NONE).finishes;
            (finishes, machine.slot_of(*b) != seed_slot, *b)
        });
        if pick.is_none() {
            self.note("fail: nothing to pin");
        }
        pick
    }

    fn everything(accesses: &Accesses) -> bool {
        accesses.iter().any(|a| a.space == Space::Everything)
    }

    /// A persistent subset of `enabled` (the actions of `state`, in the
    /// machine's order), smaller than it, if one is found: the smallest of
    /// the closed sets grown from each thread with an enabled step and each
    /// unit that may land.
    pub fn persistent(&self, state: &State, enabled: &[Action]) -> Option<Vec<Action>> {
        let best = self.choose(state, enabled);
        if let Some(debug) = &self.debug {
            if best.as_ref().is_none_or(|b| b.len() > 1) && enabled.len() > 1 && debug.dumping() {
                debug::tracing(true);
                self.choose(state, enabled);
                let why = debug::tracing(false);
                debug.dump(self.machine, state, enabled, best.as_deref(), &why);
            }
            match &best {
                Some(set) => debug.count(format!("state: enabled {:2}, chosen {:2}", enabled.len(), set.len())),
                None => debug.count(format!("state: enabled {:2}, all", enabled.len())),
            }
        }
        best
    }

    fn choose(&self, state: &State, enabled: &[Action]) -> Option<Vec<Action>> {
        if enabled.len() < 2 || state.finding.is_some() {
            return None;
        }
        let machine = self.machine;
        // A running host may launch anything next: no thread is safe from it.
        let hosts_running = (0..machine.ranks).any(|r| Self::running(state, r * machine.per_rank));
        if hosts_running || enabled.iter().any(|a| matches!(a, Action::Collective)) {
            self.note("state: a host running");
            return None;
        }
        let mut seeds: Vec<Agent> = enabled
            .iter()
            .map(|a| match a {
                Action::Step(t) => Agent::Thread(*t),
                Action::Land(t, u) => Agent::Unit(*t, *u as usize),
                Action::Collective => unreachable!("no collective without a running host"),
            })
            .collect();
        seeds.sort_unstable();
        seeds.dedup();
        let mut best: Option<Vec<Action>> = None;
        let mut local = Local::new();
        for seed in seeds {
            debug::trace(|| format!("seed {seed:?}"));
            let Some(q) = self.closure(state, &mut local, seed) else {
                debug::trace(|| "  no set".into());
                continue;
            };
            let chosen: Vec<Action> = enabled.iter().copied().filter(|a| q.holds(a)).collect();
            if chosen.is_empty() || chosen.len() == enabled.len() {
                self.note("seed: closed over every enabled action");
                continue;
            }
            if best.as_ref().is_none_or(|b| chosen.len() < b.len()) {
                let single = chosen.len() == 1;
                best = Some(chosen);
                if single {
                    break;
                }
            }
        }
        best
    }
}

/// A measure of how far a state has come, for the cycle proviso: the
/// threads' epochs, writes and launches, then (fewer is further) the dirty
/// lines and the writes in flight, then the cache lines. Any function of
/// the state would do for the proviso's argument; this one grows on the
/// steps persistent sets are made of (a notify ticks its thread's epoch, a
/// landing takes writes out of flight, a read fills a line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Progress(u64, Reverse<u64>, u64);

impl Progress {
    pub fn of(state: &State) -> Progress {
        let epochs: u64 = state.threads.iter().enumerate().map(|(t, thread)| thread.clock[t] as u64).sum();
        let writes: u64 = state.threads.iter().map(|thread| thread.writes as u64).sum();
        let launches: u64 = state.launch_counts.values().map(|n| *n as u64).sum();
        let dirty: u64 = state.dirty_index.0.values().map(|n| *n as u64).sum();
        let in_flight: u64 = state.inflight_index.0.values().map(|n| *n as u64).sum();
        let lines: u64 = state.caches.iter().map(|cache| cache.len() as u64).sum();
        Progress(epochs + writes + launches, Reverse(dirty + in_flight), lines)
    }
}
