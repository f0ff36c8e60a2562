//! The machine state of the execution model (docs/semantics.md, "The
//! execution model") and its transitions: P ranks of threads (one host and
//! the block slots), each block slot with a private non-coherent cache and
//! an in-flight queue, memory per rank, signals with vector clocks, and the
//! shadow state that finds data races.
//!
//! A thread rests only at a step other threads can observe (a GM read that
//! misses its cache, a notify, a wait, a fence with writes still in flight,
//! a collective); everything in between runs eagerly inside the step before
//! it, because it touches nothing another thread reads. The schedules the
//! explorer chooses between are these steps and the landings of in-flight
//! writes.

mod cache;
mod ccl;
mod collective;
pub mod footprint;
mod races;
mod schedule;
mod start;
mod state;
mod step;

pub use state::*;

use super::cost::Tally;
use super::memory;
use super::program::*;
use super::shared::Shared;
use super::trace::{self, EventKind, Recorder};
use super::value::{self, Val, View};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The fixed parameters of a run.
#[derive(Clone, Debug)]
pub struct Machine {
    pub program: Arc<Program>,
    pub ranks: u16,
    /// Slots per rank: the host (slot 0) and the block slots.
    pub per_rank: u16,
    /// Every ccl op a scheduling point (no local-step reduction), for
    /// measuring what the reduction saves.
    pub no_reduction: bool,
    pub limits: Limits,
    /// The entry's arguments, where set (`--arg`); the others are zero.
    pub entry_args: Vec<Option<Val>>,
    /// Where the ops run are recorded, on a replay of a reported schedule
    /// (`trace::replay`); `None` while searching.
    pub recorder: Option<Arc<Recorder>>,
    /// Whether a step also runs the threads it made able to move without
    /// being scheduled: a `ge` wait its notify satisfied, a read whose
    /// location its landing made quiet, a fence whose queue it emptied, a
    /// host whose launch's last block it finished (the default). Off
    /// (`--por dpor`), those are steps of their own threads, so a step does
    /// not take on the thread it happened to complete.
    pub eager_wakeups: bool,
    /// What each action touches, recorded for the dynamic partial-order
    /// reduction; `None` otherwise.
    pub footprint: Option<Arc<footprint::Recorder>>,
    /// What the reductions may assume of the program (`analysis`).
    pub facts: Arc<crate::analysis::Facts>,
    /// Whether a `ge` wait is taken as soon as it holds (with eager
    /// wake-ups; docs/ccl-sim.md, "Waits taken as soon as they hold"). A
    /// search that finds its condition broken (`early_waits_broken`) is run
    /// again without it.
    pub early_waits: bool,
    /// Set when a cell a wait passed early on went down afterwards by
    /// another thread's hand: the rule's condition failed on some schedule.
    pub early_waits_broken: Arc<std::sync::atomic::AtomicBool>,
}

/// The bounds of one run (docs/ccl-sim.md, "Limits").
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Local steps a thread may take between two observable steps.
    pub max_steps: u64,
    /// Bytes the process may hold (see `memory::in_use`).
    pub max_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: 1_000_000, max_memory: memory::default_limit() }
    }
}

/// Calls nested deeper than this in one thread are a limit (recursion).
pub const CALL_DEPTH_LIMIT: usize = 256;
/// Threads over all ranks (hosts and block slots): a thread id is 16 bits.
pub const MAX_THREADS: u64 = u16::MAX as u64;
/// Elements of one buffer: a location's index is 32 bits.
pub const MAX_BUFFER_ELEMENTS: i64 = u32::MAX as i64;

type Fail = Finding;

fn fail(site: Option<SiteId>, message: impl Into<String>) -> Fail {
    Finding::Error { site, message: message.into() }
}

fn limit(site: Option<SiteId>, message: impl Into<String>) -> Fail {
    Finding::Limit { site, message: message.into() }
}

impl Finding {
    /// The finding, at `site` if it has no place of its own.
    fn located(self, here: SiteId) -> Finding {
        match self {
            Finding::Error { site: None, message } => Finding::Error { site: Some(here), message },
            Finding::Limit { site: None, message } => Finding::Limit { site: Some(here), message },
            other => other,
        }
    }
}

/// Approximate bytes of one element of a buffer, a cache line, a unit's
/// write and a shadow entry (what an op touching n elements may add).
const BYTES_PER_ELEMENT: u64 = 160;

impl Machine {
    /// The machine of `program` on `ranks` ranks. The caller checks that
    /// the threads fit ([`Machine::threads_needed`]).
    pub fn new(program: Arc<Program>, ranks: u16, no_reduction: bool) -> Machine {
        let per_rank = 1 + program.slots.min(MAX_THREADS - 1) as u16;
        let facts = Arc::new(crate::analysis::facts(&program));
        Machine {
            program,
            ranks,
            per_rank,
            no_reduction,
            limits: Limits::default(),
            entry_args: Vec::new(),
            recorder: None,
            eager_wakeups: true,
            footprint: None,
            facts,
            early_waits: true,
            early_waits_broken: Arc::default(),
        }
    }

    /// Records that the action being taken touched `part` (`footprint`).
    #[inline]
    fn touch(&self, part: footprint::Part, touch: footprint::Touch) {
        if let Some(footprint) = &self.footprint {
            footprint.touch(part, touch);
        }
    }

    /// Records what `t` does, on a replay (`trace::replay`).
    fn note(&self, state: &State, t: ThreadId, site: Option<SiteId>, kind: impl FnOnce() -> EventKind) {
        if let Some(recorder) = &self.recorder {
            let epoch = state.threads[t as usize].clock.get(t as usize).copied().unwrap_or(0);
            recorder.record(t, site, epoch, kind());
        }
    }

    /// Threads `program` needs on `ranks` ranks: a host and the widest
    /// launch's blocks per rank.
    pub fn threads_needed(program: &Program, ranks: u16) -> u64 {
        (ranks as u64).saturating_mul(program.slots.saturating_add(1))
    }

    /// `Err` (a limit) if holding `bytes` more would pass `--max-memory`.
    fn reserve(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), Fail> {
        let held = memory::in_use();
        if held.saturating_add(bytes) > self.limits.max_memory {
            return Err(limit(
                None,
                format!(
                    "{} needs {} with {} already held, more than --max-memory {}: no conclusion",
                    what(),
                    memory::human(bytes),
                    memory::human(held),
                    memory::human(self.limits.max_memory)
                ),
            ));
        }
        Ok(())
    }

    pub fn thread_count(&self) -> usize {
        self.ranks as usize * self.per_rank as usize
    }

    pub fn rank_of(&self, t: ThreadId) -> u16 {
        t / self.per_rank
    }

    /// 0 for the host, 1.. for block slots.
    pub fn slot_of(&self, t: ThreadId) -> u16 {
        t % self.per_rank
    }

    fn host_of(&self, rank: u16) -> ThreadId {
        rank * self.per_rank
    }
}
