//! A search's outcome as plain data, for the readers that are not a
//! terminal (the SARIF log, the race diagram, the Python package): the
//! verdict, the finding as a diagnostic, a race's two accesses with their
//! ranks, blocks and places, and the schedule step by step. The texts are
//! the text report's own (`report`), so every reader says the same.

use super::cost::RunCost;
use super::explore::{Outcome, Step};
use super::machine::{Access, Action, Finding, Machine, RaceKind, ThreadId};
use super::program::SiteId;
use super::report;
use super::trace::Trace;
use cclir_support::diagnostics::{Diagnostic, SourceLoc};
use std::fmt;

/// What a search concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No schedule explored races or deadlocks.
    Clean,
    Race,
    Deadlock,
    /// The program did something undefined (an index out of bounds, a peer
    /// that is not a rank, undefined arithmetic).
    RuntimeError,
    /// A bound was reached first (`--max-states`, `--max-memory`, a bound
    /// of the modelled sizes): nothing is concluded.
    NoConclusion,
}

impl Verdict {
    /// The name the SARIF rules and the Python package use.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Race => "race",
            Verdict::Deadlock => "deadlock",
            Verdict::RuntimeError => "runtime-error",
            Verdict::NoConclusion => "no-conclusion",
        }
    }

    /// ccl-sim's exit code for it.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => 0,
            Verdict::Race | Verdict::Deadlock => 3,
            Verdict::RuntimeError | Verdict::NoConclusion => 1,
        }
    }
}

/// A thread: a rank's host, or one of its block slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadRef {
    pub rank: u16,
    /// The block, `None` for the host.
    pub block: Option<u16>,
}

impl ThreadRef {
    pub fn of(machine: &Machine, t: ThreadId) -> ThreadRef {
        let slot = machine.slot_of(t);
        ThreadRef { rank: machine.rank_of(t), block: slot.checked_sub(1) }
    }
}

impl fmt::Display for ThreadRef {
    /// `rank 1 block 0`, `rank 1 host`: the text report's words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.block {
            Some(block) => write!(f, "rank {} block {block}", self.rank),
            None => write!(f, "rank {} host", self.rank),
        }
    }
}

/// One access of a race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessReport {
    pub thread: ThreadRef,
    pub write: bool,
    /// The op (`ccl.remote_load`) and the protocol step its location names.
    pub op: String,
    pub protocol_step: Option<String>,
    pub loc: SourceLoc,
    /// The kernel the block ran and which launch of it (1-based per rank),
    /// `None` for host code.
    pub kernel: Option<(String, u32)>,
    /// The schedule step it ran in (1-based, 0 for the eager start), where
    /// a replay told ([`trace::replay`](super::trace::replay)).
    pub in_step: Option<usize>,
    /// The text report's words for it (`read by rank 1 block 0 ...`).
    pub text: String,
}

/// A data race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceReport {
    pub kind: RaceKind,
    /// `element 1 of argument #1 of @main on rank 0`.
    pub place: String,
    /// The earlier access (for a stale read, the write it missed).
    pub first: AccessReport,
    /// The access that found the race.
    pub second: AccessReport,
}

/// What kind of step of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// A thread took the observable step it rested at.
    Step,
    /// An in-flight unit of a thread landed in memory.
    Land,
    /// Every host ran the collective they rested at.
    Collective,
}

/// One step of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepReport {
    /// 1-based, as the text report numbers it.
    pub number: usize,
    pub kind: StepKind,
    /// The thread that took it (every host for a collective).
    pub threads: Vec<ThreadRef>,
    pub op: Option<String>,
    pub loc: Option<SourceLoc>,
    /// The text report's line.
    pub text: String,
}

/// A search's outcome as data.
#[derive(Clone, Debug)]
pub struct Summary {
    pub verdict: Verdict,
    /// Distinct states (exhaustive) or states stepped through (random).
    pub states: usize,
    /// Random schedules run to their end, `None` for the exhaustive search
    /// and for a finding.
    pub schedules: Option<usize>,
    /// Each random schedule run to its end (before a finding too): its
    /// number (from 0) and digest ([`crate::Sampled`]).
    pub digests: Vec<(usize, u64)>,
    /// The number (from 0) of the random schedule that found the finding.
    pub run: Option<usize>,
    /// The finding or the bound, as the text report's diagnostics.
    pub diagnostic: Option<Diagnostic>,
    pub race: Option<RaceReport>,
    pub schedule: Vec<StepReport>,
    /// What a clean run executed.
    pub cost: Option<RunCost>,
}

fn access(machine: &Machine, access: &Access, trace: Option<&Trace>) -> AccessReport {
    let site = machine.program.site(access.site);
    AccessReport {
        thread: ThreadRef::of(machine, access.thread),
        write: access.write,
        op: site.op.clone(),
        protocol_step: site.step.clone(),
        loc: site.loc.clone(),
        kernel: access.kernel.map(|k| (machine.program.funcs[k as usize].name.clone(), access.launch)),
        in_step: trace
            .and_then(|trace| trace.access_event(access.thread, access.site, access.epoch))
            .map(|n| trace.expect("an event comes from the trace").events[n].step),
        text: report::access_text(machine, access),
    }
}

/// The threads that take `action`.
pub fn step_threads(machine: &Machine, action: Action) -> Vec<ThreadId> {
    match action {
        Action::Step(t) | Action::Land(t, _) => vec![t],
        Action::Collective => (0..machine.ranks).map(|rank| rank * machine.per_rank).collect(),
    }
}

fn step_report(machine: &Machine, number: usize, step: &Step) -> StepReport {
    let kind = match step.action {
        Action::Step(_) => StepKind::Step,
        Action::Land(..) => StepKind::Land,
        Action::Collective => StepKind::Collective,
    };
    let site = step.site.map(|site: SiteId| machine.program.site(site));
    StepReport {
        number,
        kind,
        threads: step_threads(machine, step.action).into_iter().map(|t| ThreadRef::of(machine, t)).collect(),
        op: site.map(|s| s.op.clone()),
        loc: site.map(|s| s.loc.clone()),
        text: report::step_text(machine, step),
    }
}

/// `outcome` as data; `trace` (a replay of its schedule) places a race's
/// accesses in the schedule.
pub fn summarize(machine: &Machine, outcome: &Outcome, trace: Option<&Trace>) -> Summary {
    match outcome {
        Outcome::Clean { states, schedules, cost, .. } => Summary {
            verdict: Verdict::Clean,
            states: *states,
            schedules: schedules.as_ref().map(|sampled| sampled.runs.len()),
            digests: schedules.as_ref().map(|sampled| sampled.runs.clone()).unwrap_or_default(),
            run: None,
            diagnostic: None,
            race: None,
            schedule: Vec::new(),
            cost: Some(cost.clone()),
        },
        Outcome::Limit { states, generated, bound, .. } => Summary {
            verdict: Verdict::NoConclusion,
            states: *states,
            schedules: None,
            digests: Vec::new(),
            run: None,
            diagnostic: Some(report::search_limit(machine, *bound, *states, *generated)),
            race: None,
            schedule: Vec::new(),
            cost: None,
        },
        Outcome::Found { finding, schedule, last, states, run, schedules, .. } => {
            let verdict = match &**finding {
                Finding::Race(_) => Verdict::Race,
                Finding::Deadlock => Verdict::Deadlock,
                Finding::Error { .. } => Verdict::RuntimeError,
                Finding::Limit { .. } => Verdict::NoConclusion,
            };
            let race = match &**finding {
                Finding::Race(race) => Some(RaceReport {
                    kind: race.kind,
                    place: report::race_place(machine, race, last),
                    first: access(machine, &race.first, trace),
                    second: access(machine, &race.second, trace),
                }),
                _ => None,
            };
            Summary {
                verdict,
                states: *states,
                schedules: None,
                digests: schedules.as_ref().map(|sampled| sampled.runs.clone()).unwrap_or_default(),
                run: *run,
                diagnostic: Some(report::finding_diagnostic(machine, finding, last)),
                race,
                schedule: schedule.iter().enumerate().map(|(n, step)| step_report(machine, n + 1, step)).collect(),
                cost: None,
            }
        }
    }
}
