//! The events of an execution as the dynamic search sees them: who took
//! each (its process), what it touched (its footprint), which earlier
//! events happen before it, and an index of the execution by part and by
//! process that finds an event's direct dependencies.

use crate::machine::footprint::{Footprint, Part, Touch};
use crate::machine::{Action, Machine, State, ThreadId};
use std::collections::HashMap;
use std::sync::Arc;

/// Who takes an action: a thread (its steps), an in-flight unit (its
/// landing, named by a digest of the unit: writes carry their writer's
/// count, so two units of one queue differ) or the hosts' collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Proc {
    Thread(ThreadId),
    Unit(ThreadId, u128),
    Collective,
}

/// The processes enabled in a state, with the action each takes next. A
/// thread resting at a wait that does not hold is not among them: its
/// wait's races are those of `Worker::wait_races`.
pub(super) type Enabled = Vec<(Proc, Action)>;

/// The processes enabled in `state`, with the action each takes next.
pub(super) fn enabled(machine: &Machine, state: &State) -> Enabled {
    let mut actions = Vec::new();
    machine.actions(state, &mut actions);
    actions
        .into_iter()
        .map(|action| {
            let proc = match action {
                Action::Step(t) => Proc::Thread(t),
                Action::Land(t, u) => Proc::Unit(t, crate::shared::digest(&state.inflight[t as usize][u as usize])),
                Action::Collective => Proc::Collective,
            };
            (proc, action)
        })
        .collect()
}

/// A process's event as a sleep set holds it: the process and what its
/// event touched where it was taken.
#[derive(Clone, Debug)]
pub(super) struct Slept {
    pub proc: Proc,
    pub footprint: Arc<Footprint>,
}

/// A set of events of the current execution, by their position.
#[derive(Clone, Debug, Default)]
pub(super) struct Events(Vec<u64>);

impl Events {
    pub fn insert(&mut self, n: usize) {
        if self.0.len() <= n / 64 {
            self.0.resize(n / 64 + 1, 0);
        }
        self.0[n / 64] |= 1 << (n % 64);
    }

    pub fn contains(&self, n: usize) -> bool {
        self.0.get(n / 64).is_some_and(|word| word & (1 << (n % 64)) != 0)
    }

    pub fn union(&mut self, other: &Events) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    pub fn meets(&self, other: &Events) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

/// An event of an execution: the action taken at its depth.
pub(super) struct Event {
    pub proc: Proc,
    pub action: Action,
    pub footprint: Arc<Footprint>,
    /// The events that happen before it.
    pub past: Events,
}

/// The events of the current execution indexed by what they touched.
#[derive(Default)]
pub(super) struct Index {
    by_part: HashMap<Part, Vec<(u32, Touch)>>,
    /// Events that touched everything (an allocation).
    everything: Vec<u32>,
    by_proc: HashMap<Proc, Vec<u32>>,
    /// Each event's process, by position.
    procs: Vec<Proc>,
}

impl Index {
    /// The events before `n` that `footprint` of `proc` depends on directly,
    /// in the execution without the events `excluded`: the last event of
    /// `proc`, and for each part it touched the earlier touches it conflicts
    /// with, back to the last write of the part.
    pub fn dependencies(&self, n: usize, proc: Proc, footprint: &Footprint, excluded: &Events) -> Vec<usize> {
        let kept = |e: &u32| !excluded.contains(*e as usize);
        let mut deps: Vec<usize> = Vec::new();
        if let Some(last) = self.by_proc.get(&proc).and_then(|events| events.iter().rev().find(|e| kept(e))) {
            deps.push(*last as usize);
        }
        if footprint.everything() {
            deps.extend((0..n).filter(|e| !excluded.contains(*e)));
        } else {
            deps.extend(self.everything.iter().filter(|e| kept(e)).map(|e| *e as usize));
            for (part, touch) in &footprint.touches {
                let Some(events) = self.by_part.get(part) else { continue };
                // Back to the last write of the part: every touch before it
                // happens before that write, so comes through it.
                for (e, t) in events.iter().rev().filter(|(e, _)| kept(e)) {
                    if t.conflicts(*touch) {
                        deps.push(*e as usize);
                    }
                    if *t == Touch::Write {
                        break;
                    }
                }
            }
        }
        deps.sort_unstable();
        deps.dedup();
        deps
    }

    /// How many events `proc` has taken.
    pub fn taken(&self, proc: Proc) -> usize {
        self.by_proc.get(&proc).map_or(0, Vec::len)
    }

    /// Adds event `n`, the next of the execution.
    pub fn add(&mut self, n: usize, event: &Event) {
        debug_assert_eq!(n, self.procs.len());
        for (part, touch) in &event.footprint.touches {
            if *part == Part::Everything {
                self.everything.push(n as u32);
            } else {
                self.by_part.entry(*part).or_default().push((n as u32, *touch));
            }
        }
        self.by_proc.entry(event.proc).or_default().push(n as u32);
        self.procs.push(event.proc);
    }

    /// Removes `event`, the last of the execution.
    pub fn remove(&mut self, event: &Event) {
        for (part, _) in &event.footprint.touches {
            if *part == Part::Everything {
                self.everything.pop();
            } else if let Some(events) = self.by_part.get_mut(part) {
                events.pop();
            }
        }
        if let Some(events) = self.by_proc.get_mut(&event.proc) {
            events.pop();
        }
        self.procs.pop();
    }
}
