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
mod future;
mod iset;

use access::{Accesses, Space};
use future::{Horizon, Reach};
use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::machine::{Action, Frame, Machine, State, Status, ThreadId};

/// Ranks beyond which the reduction is off: rank sets are 64-bit masks.
const MAX_RANKS: u16 = 64;

/// Chooses persistent sets for the states of one machine; the reaches of
/// threads are memoized by their frames.
pub struct Reducer<'m> {
    machine: &'m Machine,
    reaches: Mutex<HashMap<(ThreadId, Horizon, Vec<Frame>), Arc<Reach>>>,
}

impl<'m> Reducer<'m> {
    /// The reducer of `machine`, if the reduction applies to it.
    pub fn new(machine: &'m Machine) -> Option<Reducer<'m>> {
        (machine.ranks <= MAX_RANKS).then(|| Reducer { machine, reaches: Mutex::new(HashMap::new()) })
    }

    fn reach(&self, state: &State, t: ThreadId, horizon: Horizon) -> Arc<Reach> {
        let frames = &state.threads[t as usize].frames;
        let key = (t, horizon, frames.clone());
        if let Some(reach) = self.reaches.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return reach.clone();
        }
        let reach = Arc::new(future::reach(self.machine, t, frames, horizon));
        self.reaches.lock().unwrap_or_else(|e| e.into_inner()).insert(key, reach.clone());
        reach
    }

    /// The writes of `t`'s in-flight units (what their landings touch).
    fn units(state: &State, t: ThreadId, out: &mut Accesses) {
        for unit in &state.inflight[t as usize] {
            for (loc, _) in &unit.writes {
                out.loc(*loc, true);
            }
        }
    }

    fn is_block(&self, t: ThreadId) -> bool {
        self.machine.slot_of(t) != 0
    }

    fn running(state: &State, t: ThreadId) -> bool {
        state.threads[t as usize].status == Status::Running
    }

    /// What Q's next actions may touch, from thread `q`: its next step and
    /// the local steps after it, and its units' landings. `None` if the
    /// step may finish its launch (its host may then run anything).
    fn next_of(&self, state: &State, q: ThreadId, out: &mut Accesses) -> Option<()> {
        if self.is_block(q) && Self::running(state, q) {
            let reach = self.reach(state, q, Horizon::NextRest);
            if reach.finishes || reach.accesses.iter().any(|a| a.space == Space::Everything) {
                return None;
            }
            out.extend(&reach.accesses);
        }
        Self::units(state, q, out);
        Some(())
    }

    /// What thread `u` outside Q may still touch: its whole future and its
    /// units' landings. (Its finish reads its siblings' status and may
    /// wake its host: Q holds a running block of every launch, so no block
    /// outside Q finishes a launch, and Q's next steps never finish one.)
    fn future_of(&self, state: &State, u: ThreadId) -> Accesses {
        let mut out = Accesses::new();
        if self.is_block(u) && Self::running(state, u) {
            out.extend(&self.reach(state, u, Horizon::End).accesses);
        }
        Self::units(state, u, &mut out);
        out
    }

    /// The closed set Q grown from `seed`, as a mask over threads; `None`
    /// where no such set avoids a running host or a finishing step.
    fn closure(&self, state: &State, seed: ThreadId) -> Option<Vec<bool>> {
        let machine = self.machine;
        let n = state.threads.len();
        let mut in_q = vec![false; n];
        in_q[seed as usize] = true;
        let mut futures: Vec<Option<Accesses>> = vec![None; n];
        loop {
            // Every launch keeps a running block in Q: its host stays
            // joining while Q is left alone.
            let mut grew = false;
            for rank in 0..machine.ranks {
                let host = rank * machine.per_rank;
                let Status::Joining { first, count } = state.threads[host as usize].status else { continue };
                let launch = first..first + count;
                if launch.clone().any(|b| in_q[b as usize] && Self::running(state, b)) {
                    continue;
                }
                let running = |b: ThreadId| Self::running(state, b);
                let same_slot = first + machine.slot_of(seed).max(1) - 1;
                let pick = if launch.contains(&same_slot) && running(same_slot) {
                    Some(same_slot)
                } else {
                    launch.clone().find(|b| running(*b))
                };
                in_q[pick? as usize] = true;
                grew = true;
            }
            let mut side = Accesses::new();
            for q in (0..n).filter(|q| in_q[*q]) {
                self.next_of(state, q as ThreadId, &mut side)?;
            }
            for u in 0..n {
                if in_q[u] {
                    continue;
                }
                let future = futures[u].get_or_insert_with(|| self.future_of(state, u as ThreadId));
                if side.conflicts(future, state) {
                    in_q[u] = true;
                    grew = true;
                }
            }
            if !grew {
                return Some(in_q);
            }
        }
    }

    /// A persistent subset of `enabled` (the actions of `state`, in the
    /// machine's order), smaller than it, if one is found: the smallest of
    /// the closed sets grown from each thread with an enabled action.
    pub fn persistent(&self, state: &State, enabled: &[Action]) -> Option<Vec<Action>> {
        if enabled.len() < 2 || state.finding.is_some() {
            return None;
        }
        let machine = self.machine;
        // A running host may launch anything next: no thread is safe from it.
        let hosts_running = (0..machine.ranks).any(|r| Self::running(state, r * machine.per_rank));
        if hosts_running || enabled.iter().any(|a| matches!(a, Action::Collective)) {
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
        for seed in seeds {
            let Some(in_q) = self.closure(state, seed) else { continue };
            let chosen: Vec<Action> = enabled.iter().copied().filter(|a| in_q[owner(a) as usize]).collect();
            if chosen.is_empty() || chosen.len() == enabled.len() {
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
