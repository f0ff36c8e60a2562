//! What a reported schedule did, op by op: the ccl ops every thread ran
//! (observable steps and those run eagerly inside them), the signal cell of
//! each notify and wait, the in-flight units from issue to landing, launches,
//! joins and collectives. The race diagram and the SARIF code flows are drawn
//! from it.
//!
//! The search keeps none of this: a trace is made afterwards, by replaying
//! the reported schedule's actions from the initial state on a copy of the
//! machine that carries a [`Recorder`]. The machine is deterministic, so the
//! replay takes the same transitions; the search itself runs without a
//! recorder (one `None` test per recorded op), and the states, their hashing
//! and the counts explored are untouched.

use super::explore::Step;
use super::machine::record::{Event, EventKind, Recorder};
use super::machine::{Machine, State, ThreadId};
use super::program::SiteId;
use std::sync::Arc;

/// The events of one schedule, in the order they happened.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub events: Vec<Event>,
    /// Events before the first kept one, not kept
    /// ([`MAX_EVENTS`](crate::machine::record::MAX_EVENTS)).
    pub dropped: usize,
    /// Steps in the schedule replayed.
    pub steps: usize,
}

/// Replays `schedule` from the initial state on a copy of `machine` that
/// records what each thread does; returns the trace and the state reached.
pub fn replay(machine: &Machine, schedule: &[Step]) -> (Trace, State) {
    let recorder = Arc::new(Recorder::default());
    let mut traced = machine.clone();
    traced.recorder = Some(recorder.clone());
    let mut state = traced.initial();
    for (n, step) in schedule.iter().enumerate() {
        recorder.begin_step(n + 1);
        traced.apply(&mut state, step.action);
    }
    let (events, dropped) = recorder.take();
    (Trace { events, dropped, steps: schedule.len() }, state)
}

impl Trace {
    /// The event of an access a race report names: the last op of `thread`
    /// at `site` in `epoch` (a collective's, for a host's access in one).
    pub fn access_event(&self, thread: ThreadId, site: SiteId, epoch: u32) -> Option<usize> {
        self.events.iter().rposition(|e| {
            e.site == Some(site)
                && match &e.kind {
                    EventKind::Collective { hosts } => hosts.contains(&(thread, epoch)),
                    EventKind::Issue { .. } | EventKind::Land { .. } => false,
                    _ => e.thread == thread && e.epoch == epoch,
                }
        })
    }

    /// The notifies wait `wait` observed: those into its cell since the
    /// waiting thread's previous wait on that cell.
    pub fn observed_notifies(&self, wait: usize) -> Vec<usize> {
        let EventKind::Wait { cell } = self.events[wait].kind else { return Vec::new() };
        let waiter = self.events[wait].thread;
        let since = self.events[..wait]
            .iter()
            .rposition(|e| e.thread == waiter && e.kind == EventKind::Wait { cell })
            .map_or(0, |previous| previous + 1);
        (since..wait).filter(|n| self.events[*n].kind == EventKind::Notify { cell }).collect()
    }

    /// Where the unit issued at event `issue` landed, if it did.
    pub fn landing(&self, issue: usize) -> Option<usize> {
        let EventKind::Issue { unit, .. } = self.events[issue].kind else { return None };
        let thread = self.events[issue].thread;
        // Two equal units of one thread land in the order they were issued.
        let earlier_equal = self.events[..issue]
            .iter()
            .filter(|e| e.thread == thread && matches!(e.kind, EventKind::Issue { unit: u, .. } if u == unit))
            .count();
        self.events
            .iter()
            .enumerate()
            .skip(issue + 1)
            .filter(|(_, e)| e.thread == thread && matches!(e.kind, EventKind::Land { unit: u, .. } if u == unit))
            .map(|(n, _)| n)
            .nth(earlier_equal.saturating_sub(self.landed_before(issue, thread, unit)))
    }

    /// Landings of `unit` by `thread` before event `issue`.
    fn landed_before(&self, issue: usize, thread: ThreadId, unit: u64) -> usize {
        self.events[..issue]
            .iter()
            .filter(|e| e.thread == thread && matches!(e.kind, EventKind::Land { unit: u, .. } if u == unit))
            .count()
    }
}
