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
use super::machine::{Loc, Machine, State, ThreadId, Unit};
use super::program::{FuncId, SiteId};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// Events a trace keeps at most; a longer replay keeps its last ones.
pub const MAX_EVENTS: usize = 1 << 20;

/// One thing a thread did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The step of the schedule it happened in (1-based; 0 is the eager run
    /// from the initial state).
    pub step: usize,
    pub thread: ThreadId,
    /// The op, where there is one (a join has none).
    pub site: Option<SiteId>,
    /// The thread's own clock entry when it happened: with the thread and
    /// the site, it names an access of a race report.
    pub epoch: u32,
    pub kind: EventKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A ccl op other than a notify or wait, run as a step or eagerly.
    Op,
    /// A `ccl.notify` into `cell`.
    Notify { cell: Loc },
    /// A `ccl.wait` on `cell` that passed.
    Wait { cell: Loc },
    /// The op just before it (same thread) sent `writes` writes toward
    /// memory as one in-flight unit; `unit` names it until it lands.
    Issue { unit: u64, writes: usize },
    /// The in-flight unit `unit` of the thread landed.
    Land { unit: u64, writes: usize },
    /// The host launched `count` blocks (threads `first..first + count`)
    /// running `kernel`.
    Launch { first: ThreadId, count: u16, kernel: FuncId },
    /// The block returned from its kernel.
    Exit,
    /// A `memref.alloc` or `memref.dealloc` (this rank's copy of a buffer
    /// made or freed).
    Memory,
    /// The host joined the blocks `first..first + count` and runs on.
    Join { first: ThreadId, count: u16 },
    /// Every host ran the collective at `site` (the event's thread is rank
    /// 0's host), each in its epoch.
    Collective { hosts: Vec<(ThreadId, u32)> },
}

/// Collects events while a machine that carries it runs.
#[derive(Debug, Default)]
pub struct Recorder {
    inner: Mutex<Recording>,
}

#[derive(Debug, Default)]
struct Recording {
    step: usize,
    events: std::collections::VecDeque<Event>,
    dropped: usize,
}

impl Recorder {
    pub fn record(&self, thread: ThreadId, site: Option<SiteId>, epoch: u32, kind: EventKind) {
        let mut recording = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let step = recording.step;
        if recording.events.len() == MAX_EVENTS {
            recording.events.pop_front();
            recording.dropped += 1;
        }
        recording.events.push_back(Event { step, thread, site, epoch, kind });
    }

    pub(crate) fn begin_step(&self, step: usize) {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).step = step;
    }

    pub(crate) fn take(&self) -> (Vec<Event>, usize) {
        let mut recording = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let events = std::mem::take(&mut recording.events).into();
        (events, recording.dropped)
    }
}

/// The name of an in-flight unit: the same at its issue and its landing.
pub fn unit_key(unit: &Unit) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    unit.hash(&mut hasher);
    hasher.finish()
}

/// The events of one schedule, in the order they happened.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub events: Vec<Event>,
    /// Events before the first kept one, not kept ([`MAX_EVENTS`]).
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
