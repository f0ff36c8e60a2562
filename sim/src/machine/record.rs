//! What a machine that carries a [`Recorder`] records as it runs: each
//! thing a thread did, as an [`Event`]. Only a replay of a reported schedule
//! carries one (`crate::trace` makes it into a trace); a search runs
//! without (one `None` test per recorded op).

use super::{Loc, ThreadId, Unit};
use crate::program::{FuncId, SiteId};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

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
