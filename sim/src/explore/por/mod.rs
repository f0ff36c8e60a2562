//! Partial-order reduction: in a state, the search follows a persistent set
//! of the enabled actions instead of all of them, the actions of a set Q of
//! threads (their steps and the landings of their in-flight units) that no
//! action of the other threads, in any schedule that leaves Q alone, can
//! touch. docs/ccl-sim.md ("Partial-order reduction") gives the argument;
//! in short:
//!
//! - `future` over-approximates, by an abstract interpretation of a
//!   thread's code from its concrete frames, what it may touch: within its
//!   next step (`Horizon::NextRest`: the step it rests at and the local
//!   steps it runs eagerly after it) and to its end (`Horizon::End`).
//!   `access` says which parts of the state an access touches (elements of
//!   memory with their shadow, in-flight index, dirty-line index and, for a
//!   signal cell, its clock; the dirty lines a thread's invalidate writes
//!   back) and when two conflict.
//! - Q is closed: every running block outside Q whose whole future (and
//!   in-flight units) conflicts with what Q's next steps (and units) touch
//!   joins Q; every rank's host waits for a launch with a running block in
//!   Q (so no host runs on while Q is left alone), and no host is running;
//!   Q's next steps cannot finish a launch.
//! - Then every action outside Q touches nothing Q's next actions touch
//!   (in either direction), so it commutes with them, neither enables nor
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
use future::{Blocked, Horizon, Reach, WaitSite};
use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::machine::{Action, Frame, Machine, State, Status, ThreadId};

/// Ranks beyond which the reduction is off: rank sets are 64-bit masks.
const MAX_RANKS: u16 = 64;

/// A memoized reach: the thread, horizon, frames and blocked waits it was
/// walked for.
struct Memo {
    thread: ThreadId,
    horizon: Horizon,
    frames: Vec<Frame>,
    blocked: Vec<Blocked>,
    reach: Arc<Reach>,
}

/// Chooses persistent sets for the states of one machine; the reaches of
/// threads are memoized by their frames (and the waits they stop at).
pub struct Reducer<'m> {
    machine: &'m Machine,
    reaches: Mutex<HashMap<u64, Vec<Memo>>>,
    debug: Option<debug::Debug>,
}

/// The reaches of one state's threads, by thread, horizon and blocked
/// waits (the frames are the state's).
type Local = HashMap<(ThreadId, Horizon, Vec<Blocked>), Arc<Reach>>;

/// Per thread of a state, what the closure knows of it.
#[derive(Clone, Default)]
struct Known {
    /// Its reach to the end, cut at the waits nothing outside Q opens.
    future: Option<Arc<Reach>>,
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

    fn memoized(&self, state: &State, t: ThreadId, horizon: Horizon, blocked: &[Blocked]) -> Arc<Reach> {
        use std::hash::{Hash, Hasher};
        let frames = &state.threads[t as usize].frames;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (t, horizon, frames, blocked).hash(&mut hasher);
        let key = hasher.finish();
        let found = |memos: &Vec<Memo>| {
            memos
                .iter()
                .find(|m| m.thread == t && m.horizon == horizon && m.frames == *frames && m.blocked == blocked)
                .map(|m| m.reach.clone())
        };
        if let Some(reach) = self.reaches.lock().unwrap_or_else(|e| e.into_inner()).get(&key).and_then(found) {
            return reach;
        }
        let reach = Arc::new(future::reach(self.machine, t, frames, horizon, blocked));
        let memo = Memo { thread: t, horizon, frames: frames.clone(), blocked: blocked.to_vec(), reach: reach.clone() };
        self.reaches.lock().unwrap_or_else(|e| e.into_inner()).entry(key).or_default().push(memo);
        reach
    }

    /// The reach of running thread `t` going no further than the waits of
    /// `blocked` (sorted).
    fn cut(&self, state: &State, local: &mut Local, t: ThreadId, horizon: Horizon, blocked: &[Blocked]) -> Arc<Reach> {
        if let Some(reach) = local.get(&(t, horizon, blocked.to_vec())) {
            return reach.clone();
        }
        let reach = self.memoized(state, t, horizon, blocked);
        local.insert((t, horizon, blocked.to_vec()), reach.clone());
        reach
    }

    /// The waits `t` may reach (within `horizon`) whose cell's value in
    /// `state` does not satisfy them, sorted.
    fn unsatisfied(&self, state: &State, local: &mut Local, t: ThreadId, horizon: Horizon) -> Vec<Blocked> {
        let whole = self.cut(state, local, t, horizon, &[]);
        // A wait reached with several expected values is blocked only if
        // none of them holds.
        let holds: Vec<Blocked> =
            whole.waits.iter().filter(|wait| Self::may_hold(state, wait)).map(|wait| wait.at).collect();
        let mut waits: Vec<Blocked> = whole.waits.iter().map(|wait| wait.at).filter(|at| !holds.contains(at)).collect();
        waits.sort_unstable();
        waits.dedup();
        waits
    }

    /// Keeps the waits whose cell nothing in `writers` may write.
    fn keep_unwritten(state: &State, waits: &mut Vec<Blocked>, writers: &Accesses) -> bool {
        let before = waits.len();
        waits.retain(|wait| {
            let mut probe = Accesses::new();
            probe.loc(wait.cell, false);
            !writers.conflicts(&probe, &state.caches)
        });
        waits.len() != before
    }

    /// Whether a wait on its cell's value in `state` may hold (any value of
    /// the expected set; a range or any value: may).
    fn may_hold(state: &State, wait: &WaitSite) -> bool {
        let cell = wait.at.cell;
        let Some(value) = state
            .buffers
            .get(cell.buffer as usize)
            .and_then(|b| b.ranks.get(cell.rank as usize))
            .and_then(|copy| copy.get(cell.index as usize))
        else {
            return true;
        };
        let current = value.bits as i64;
        match wait.expected.values() {
            Some(values) => values.iter().any(|e| if wait.equal { current == *e } else { current >= *e }),
            None => true,
        }
    }

    /// The writes of `t`'s in-flight units (what their landings touch).
    fn units(state: &State, t: ThreadId, out: &mut Accesses) {
        for unit in &state.inflight[t as usize] {
            for (loc, _) in &unit.writes {
                out.loc(*loc, true);
            }
        }
    }

    fn running_block(&self, state: &State, t: ThreadId) -> bool {
        self.machine.slot_of(t) != 0 && Self::running(state, t)
    }

    fn running(state: &State, t: ThreadId) -> bool {
        state.threads[t as usize].status == Status::Running
    }

    /// The closed set Q grown from `seed`, as a mask over threads; `None`
    /// where no such set avoids a running host or a finishing step.
    fn closure(&self, state: &State, local: &mut Local, seed: ThreadId) -> Option<Vec<bool>> {
        let machine = self.machine;
        let n = state.threads.len();
        let mut in_q = vec![false; n];
        in_q[seed as usize] = true;
        let mut known;
        loop {
            known = vec![Known::default(); n];
            // Q's next steps, uncut: what they may write themselves.
            let mut q_next = Accesses::new();
            for q in (0..n).filter(|q| in_q[*q]) {
                if self.running_block(state, q as ThreadId) {
                    q_next.extend(&self.cut(state, local, q as ThreadId, Horizon::NextRest, &[]).accesses);
                }
                Self::units(state, q as ThreadId, &mut q_next);
            }
            // While Q is left alone only the others write. Their futures
            // are cut at waits that no write of theirs opens: start from
            // every wait their cell does not satisfy now, and drop those
            // whose cell a cut future writes, until none is dropped (no
            // thread passes the first of the rest to be passed: nothing
            // written before it opens it).
            // A host whose launch keeps no running block in Q may run on
            // (unless a block of it is cut before its end): its future,
            // the blocks it launches included, is cut the same way.
            let mut free_threads: Vec<ThreadId> =
                (0..n as ThreadId).filter(|u| !in_q[*u as usize] && self.running_block(state, *u)).collect();
            free_threads.extend(self.unpinned_hosts(state, &in_q));
            let mut blocked: Vec<Vec<Blocked>> =
                free_threads.iter().map(|u| self.unsatisfied(state, local, *u, Horizon::End)).collect();
            let free = loop {
                let mut all = Accesses::new();
                for (u, waits) in free_threads.iter().zip(&blocked) {
                    let future = self.cut(state, local, *u, Horizon::End, waits);
                    all.extend(&future.accesses);
                    known[*u as usize].future = Some(future);
                }
                for u in (0..n).filter(|u| !in_q[*u]) {
                    Self::units(state, u as ThreadId, &mut all);
                }
                let mut dropped = false;
                for waits in &mut blocked {
                    dropped |= Self::keep_unwritten(state, waits, &all);
                }
                if !dropped {
                    break all;
                }
            };
            // Q's next step runs after those writes, with its own.
            let mut writers = free;
            writers.extend(&q_next);
            // Every launch that may complete while Q is left alone keeps a
            // running block in Q, so no host runs on.
            let mut grew = false;
            for rank in 0..machine.ranks {
                let host = rank * machine.per_rank;
                let Status::Joining { first, count } = state.threads[host as usize].status else { continue };
                let launch = first..first + count;
                let held = launch.clone().any(|b| {
                    Self::running(state, b)
                        && (in_q[b as usize] || known[b as usize].future.as_ref().is_some_and(|f| !f.finishes))
                });
                // A launch that may complete lets its host run on: its
                // future (the rest of its code and the kernels it
                // launches) joins the others' unless it reaches everything
                // or conflicts with Q's next steps (checked below).
                // (A thread of the rank in Q for its landings alone must not
                // be relaunched, nor the host in Q act, while Q is left
                // alone: then the host is kept joining too.)
                if held {
                    continue;
                }
                let rank_in_q = (host..host + machine.per_rank).any(|t| in_q[t as usize]);
                let everything = known[host as usize].future.as_ref().is_none_or(|f| Self::everything(&f.accesses));
                if !rank_in_q && !everything {
                    continue;
                }
                self.note(if rank_in_q { "grow: pin (rank in Q)" } else { "grow: pin (host future everything)" });
                let Some(pick) = self.pin(state, local, launch, seed) else {
                    self.note("fail: nothing to pin");
                    return None;
                };
                in_q[pick as usize] = true;
                grew = true;
            }
            if grew {
                continue;
            }
            // What Q's next actions touch: cut at the waits nothing may
            // open; a step that may finish a launch lets its host run.
            let mut side = Accesses::new();
            let mut nexts: Vec<Option<Arc<Reach>>> = vec![None; n];
            for q in (0..n).filter(|q| in_q[*q]) {
                if self.running_block(state, q as ThreadId) {
                    let mut waits = self.unsatisfied(state, local, q as ThreadId, Horizon::NextRest);
                    Self::keep_unwritten(state, &mut waits, &writers);
                    let next = self.cut(state, local, q as ThreadId, Horizon::NextRest, &waits);
                    if Self::everything(&next.accesses) {
                        self.note("fail: next step everything");
                        return None;
                    }
                    side.extend(&next.accesses);
                    nexts[q] = Some(next);
                }
                Self::units(state, q as ThreadId, &mut side);
            }
            // A next step that may finish its block is safe only while
            // another block of its launch cannot finish: one outside Q
            // whose future is cut before its end, or one in Q whose next
            // step does not finish (Q's steps move no other block of Q
            // past that step). Then no finish in these steps is the last
            // of its launch, and the host stays joining.
            for q in (0..n).filter(|q| nexts[*q].as_ref().is_some_and(|next| next.finishes)) {
                let host = machine.rank_of(q as ThreadId) * machine.per_rank;
                let Status::Joining { first, count } = state.threads[host as usize].status else {
                    self.note("fail: finishing block's host not joining");
                    return None;
                };
                let held = (first..first + count).any(|b| {
                    let b = b as usize;
                    b != q
                        && Self::running(state, b as ThreadId)
                        && match &nexts[b] {
                            _ if !in_q[b] => known[b].future.as_ref().is_some_and(|f| !f.finishes),
                            Some(next) => !next.finishes,
                            None => false,
                        }
                });
                if !held {
                    // The last of its launch to finish: its host runs on
                    // in the same step, to its next rest.
                    let host_future = self.cut(state, local, host, Horizon::NextRest, &[]);
                    if Self::everything(&host_future.accesses) {
                        self.note("fail: last block's host future everything");
                        return None;
                    }
                    self.note("finish: last block's host future joins");
                    side.extend(&host_future.accesses);
                }
            }
            // A thread outside Q stopped at a cut wait whose cell Q's next
            // actions write is woken in that action and runs on to its
            // next rest: that run is part of the action. (A run that may
            // finish its block could wake its host: that thread joins Q
            // instead.)
            let mut woken: Vec<(usize, usize)> = Vec::new();
            let mut pin_for_wake: Vec<ThreadId> = Vec::new();
            loop {
                let mut added = false;
                for u in 0..n {
                    if in_q[u] {
                        continue;
                    }
                    let Some(future) = known[u].future.clone() else { continue };
                    for (k, wake) in future.wakes.iter().enumerate() {
                        if woken.contains(&(u, k)) {
                            continue;
                        }
                        let mut probe = Accesses::new();
                        probe.loc(wake.at.cell, false);
                        if !side.conflicts(&probe, &state.caches) {
                            continue;
                        }
                        if wake.finishes || Self::everything(&wake.accesses) {
                            // (For a block a host of the rank launches, the
                            // host is kept joining instead, below.)
                            self.note("grow: woken thread may finish");
                            if self.running_block(state, u as ThreadId) {
                                in_q[u] = true;
                                grew = true;
                            } else {
                                pin_for_wake.push(u as ThreadId);
                            }
                            break;
                        }
                        side.extend(&wake.accesses);
                        woken.push((u, k));
                        added = true;
                    }
                }
                if !added {
                    break;
                }
            }
            for u in 0..n {
                if in_q[u] {
                    continue;
                }
                let mut future = Accesses::new();
                if let Some(reach) = &known[u].future {
                    future.extend(&reach.accesses);
                }
                Self::units(state, u as ThreadId, &mut future);
                if side.conflicts(&future, &state.caches) {
                    if let Some(debug) = &self.debug {
                        debug.conflict("grow: conflict", &side, &future, &state.caches);
                    }
                    in_q[u] = true;
                    grew = true;
                }
            }
            for host in self.unpinned_hosts(state, &in_q) {
                let Status::Joining { first, count } = state.threads[host as usize].status else { continue };
                let launch = first..first + count;
                let held = launch
                    .clone()
                    .any(|b| Self::running(state, b) && known[b as usize].future.as_ref().is_some_and(|f| !f.finishes));
                let conflicts =
                    known[host as usize].future.as_ref().is_none_or(|f| side.conflicts(&f.accesses, &state.caches));
                if held || !(conflicts || pin_for_wake.contains(&host)) {
                    continue;
                }
                self.note("grow: pin (host future conflicts)");
                let Some(pick) = self.pin(state, local, launch, seed) else {
                    self.note("fail: nothing to pin");
                    return None;
                };
                in_q[pick as usize] = true;
                grew = true;
            }
            if !grew {
                return Some(in_q);
            }
        }
    }

    /// Joining hosts with no running block of their launch in Q.
    fn unpinned_hosts(&self, state: &State, in_q: &[bool]) -> Vec<ThreadId> {
        let machine = self.machine;
        (0..machine.ranks)
            .map(|rank| rank * machine.per_rank)
            .filter(|host| match state.threads[*host as usize].status {
                Status::Joining { first, count } => {
                    !(first..first + count).any(|b| in_q[b as usize] && Self::running(state, b))
                }
                _ => false,
            })
            .collect()
    }

    /// The block of `launch` to put in Q so that its host stays joining:
    /// preferably one whose next step does not finish, in the seed's slot
    /// (the protocol's blocks of one slot talk to each other, not to the
    /// other slots).
    fn pin(
        &self,
        state: &State,
        local: &mut Local,
        launch: std::ops::Range<ThreadId>,
        seed: ThreadId,
    ) -> Option<ThreadId> {
        let machine = self.machine;
        let seed_slot = machine.slot_of(seed);
        launch.filter(|b| Self::running(state, *b)).min_by_key(|b| {
            let finishes = self.cut(state, local, *b, Horizon::NextRest, &[]).finishes;
            (finishes, machine.slot_of(*b) != seed_slot, *b)
        })
    }

    fn everything(accesses: &Accesses) -> bool {
        accesses.iter().any(|a| a.space == Space::Everything)
    }

    /// A persistent subset of `enabled` (the actions of `state`, in the
    /// machine's order), smaller than it, if one is found: the smallest of
    /// the closed sets grown from each thread with an enabled action.
    pub fn persistent(&self, state: &State, enabled: &[Action]) -> Option<Vec<Action>> {
        let best = self.choose(state, enabled);
        if let Some(debug) = &self.debug {
            if best.as_ref().is_none_or(|b| b.len() > 1) && enabled.len() > 1 {
                debug.dump(self.machine, state, enabled, best.as_deref());
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
        let owner = |a: &Action| match a {
            Action::Step(t) | Action::Land(t, _) => *t,
            Action::Collective => unreachable!("no collective without a running host"),
        };
        let mut seeds: Vec<ThreadId> = enabled.iter().map(owner).collect();
        seeds.sort_unstable();
        seeds.dedup();
        let mut best: Option<Vec<Action>> = None;
        let mut local = Local::new();
        for seed in seeds {
            let Some(in_q) = self.closure(state, &mut local, seed) else { continue };
            let chosen: Vec<Action> = enabled.iter().copied().filter(|a| in_q[owner(a) as usize]).collect();
            if chosen.is_empty() || chosen.len() == enabled.len() {
                self.note("seed: closed over every enabled thread");
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
