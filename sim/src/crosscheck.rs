//! The machine held to the reference semantics: a schedule the machine
//! reports (a race, a deadlock, an error, or a run to the end) is replayed
//! step by step in the reference, and must be an execution of it that ends
//! the same way.
//!
//! The machine's schedule is at its own grain (a step may run other
//! threads' ops eagerly; a landing lands a whole unit at once). Replayed on
//! the machine with a recorder (`trace`), it becomes the sequence of what
//! each thread did, in order; each of those is one action of the reference
//! (an op, a launch, a join, an allocation, a collective), or, for a unit's
//! landing, one landing per write of the unit. Each must be enabled in the
//! reference when its turn comes, and the reference must end where the
//! machine did.

use crate::machine::{self, Action, Finding, Machine, RaceKind};
use crate::reference::{self, Reference, Status};
use crate::trace::{EventKind, Recorder};
use std::sync::Arc;

/// Where a replay in the reference parted from the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The machine's schedule step it happened in (0: the initial state's
    /// eager run).
    pub step: usize,
    pub what: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at the machine's step {}: {}", self.step, self.what)
    }
}

/// What the machine's schedule ended in.
#[derive(Clone, Debug)]
pub enum Ending<'a> {
    Finding(&'a Finding),
    /// Every thread finished (a clean run).
    Finished,
}

/// Replays the machine's `schedule` in the reference, and checks that it
/// ends as `ending` says.
pub fn replay(
    machine: &Machine,
    reference: &Reference,
    schedule: &[Action],
    ending: Ending<'_>,
) -> Result<reference::State, Divergence> {
    let recorder = Arc::new(Recorder::default());
    let mut traced = machine.clone();
    traced.recorder = Some(recorder.clone());
    let mut state = traced.initial();
    let mut mirror = reference.initial();
    follow(reference, &mut mirror, &recorder.take().0, None, 0)?;
    for (n, action) in schedule.iter().enumerate() {
        let unit = match *action {
            Action::Land(t, u) => Some((t, state.inflight[t as usize][u as usize].clone())),
            _ => None,
        };
        recorder.begin_step(n + 1);
        traced.apply(&mut state, *action);
        follow(reference, &mut mirror, &recorder.take().0, unit.as_ref(), n + 1)?;
    }
    let last = schedule.len();
    // An op that fails on its operands (a peer out of range) records no
    // event: its thread, resting at it, takes the step that fails.
    if let Ending::Finding(Finding::Error { site: Some(site), .. }) = ending {
        for t in 0..reference.thread_count() as reference::ThreadId {
            if mirror.finding.is_some() || reference.site_at(&mirror, t) != Some(*site) {
                continue;
            }
            let mut probe = mirror.clone();
            take(reference, &mut probe, reference::Action::Step(t), last)?;
            if matches!(&probe.finding, Some(reference::Finding::Error { site: at, .. }) if at == &Some(*site)) {
                mirror = probe;
            }
        }
    }
    compare(reference, &mirror, ending).map_err(|what| Divergence { step: last, what })?;
    Ok(mirror)
}

/// Takes in `mirror` the reference's actions for the machine's `events`
/// (those of one step); `unit` is the unit the step landed, if it landed one.
fn follow(
    reference: &Reference,
    mirror: &mut reference::State,
    events: &[crate::trace::Event],
    unit: Option<&(machine::ThreadId, machine::Unit)>,
    step: usize,
) -> Result<(), Divergence> {
    let diverged = |what: String| Divergence { step, what };
    for event in events {
        if mirror.finding.is_some() {
            return Err(diverged(format!(
                "the reference ended in {:?} before the machine's {:?} of thread {}",
                mirror.finding, event.kind, event.thread
            )));
        }
        let t = event.thread;
        match &event.kind {
            EventKind::Op | EventKind::Notify { .. } | EventKind::Wait { .. } | EventKind::Memory => {
                let at = reference.site_at(mirror, t);
                if at != event.site || mirror.threads[t as usize].status != Status::Running {
                    return Err(diverged(format!(
                        "the machine's thread {t} ran the op at {:?}; in the reference it is {:?} at {at:?}",
                        event.site.map(|s| reference.program.site(s).loc.to_string()),
                        mirror.threads[t as usize].status
                    )));
                }
                take(reference, mirror, reference::Action::Step(t), step)?;
            }
            // A kernel entry is launched by the reference's initial state.
            EventKind::Launch { .. }
                if step == 0
                    && mirror.threads[t as usize].frames.is_empty()
                    && matches!(mirror.threads[t as usize].status, Status::Joining { .. }) => {}
            EventKind::Launch { .. } => take(reference, mirror, reference::Action::Step(t), step)?,
            EventKind::Join { .. } => {
                if !matches!(mirror.threads[t as usize].status, Status::Joining { .. }) {
                    return Err(diverged(format!("the machine's host {t} joined; in the reference it is not joining")));
                }
                take(reference, mirror, reference::Action::Step(t), step)?;
            }
            EventKind::Collective { .. } => take(reference, mirror, reference::Action::Collective, step)?,
            // The reference finishes a block as soon as it returns, and an op
            // sends its writes in its own step.
            EventKind::Exit | EventKind::Issue { .. } => {}
            EventKind::Land { .. } => {
                let Some((owner, unit)) = unit.filter(|(owner, _)| *owner == t) else {
                    return Err(diverged(format!("a landing of thread {t} outside a landing step")));
                };
                for (loc, cell) in &unit.writes {
                    let seq = cell.writer.map(|w| w.seq);
                    let queue = &mirror.queues[*owner as usize];
                    let found = queue.iter().position(|p| {
                        p.loc == reference_loc(*loc)
                            && matches!(&p.value.origin, reference::Origin::Write { seq: s, .. } if Some(*s) == seq)
                    });
                    let Some(n) = found else {
                        return Err(diverged(format!(
                            "the machine landed a write of {loc:?} (write {seq:?}) that is not in flight in the reference"
                        )));
                    };
                    take(reference, mirror, reference::Action::Land(*owner, n), step)?;
                }
            }
        }
    }
    Ok(())
}

/// Takes `action` in `mirror` if the reference allows it there.
fn take(
    reference: &Reference,
    mirror: &mut reference::State,
    action: reference::Action,
    step: usize,
) -> Result<(), Divergence> {
    if !reference.actions(mirror).contains(&action) {
        let why = match action {
            reference::Action::Step(t) => format!(
                "thread {t} is {:?} at {:?}, its queue holds {} writes",
                mirror.threads[t as usize].status,
                reference.site_at(mirror, t).map(|s| reference.program.site(s).loc.to_string()),
                mirror.queues[t as usize].len()
            ),
            _ => String::new(),
        };
        return Err(Divergence { step, what: format!("the reference cannot take {action:?} here: {why}") });
    }
    reference.apply(mirror, action);
    Ok(())
}

fn reference_loc(loc: machine::Loc) -> reference::Loc {
    reference::Loc { rank: loc.rank, buffer: loc.buffer, index: loc.index }
}

/// Whether the reference's state ends as the machine's schedule did.
fn compare(reference: &Reference, mirror: &reference::State, ending: Ending<'_>) -> Result<(), String> {
    let differ = |machine: String| format!("the machine found {machine}; the reference ended in {:?}", mirror.finding);
    match ending {
        Ending::Finished if mirror.finding.is_none() && reference.finished(mirror) => Ok(()),
        Ending::Finished => Err(differ("a finished run".into())),
        Ending::Finding(Finding::Deadlock) if reference.deadlocked(mirror) => Ok(()),
        Ending::Finding(Finding::Deadlock) => Err(differ("a deadlock".into())),
        Ending::Finding(Finding::Race(race)) => match &mirror.finding {
            Some(reference::Finding::Race { kind, loc, second, .. })
                if *loc == reference_loc(race.loc)
                    && same_kind(*kind, race.kind)
                    && second.thread == race.second.thread
                    && second.site == race.second.site =>
            {
                Ok(())
            }
            _ => Err(differ(format!("{:?} race at {:?}", race.kind, race.loc))),
        },
        Ending::Finding(Finding::Error { site, .. }) => match &mirror.finding {
            Some(reference::Finding::Error { site: at, .. }) if at == site => Ok(()),
            _ => Err(differ(format!("a runtime error at {site:?}"))),
        },
        // A bound of the machine (memory, local steps): nothing to compare.
        Ending::Finding(Finding::Limit { .. }) => Ok(()),
    }
}

fn same_kind(reference: reference::RaceKind, machine: RaceKind) -> bool {
    matches!(
        (reference, machine),
        (reference::RaceKind::StaleRead, RaceKind::StaleRead) | (reference::RaceKind::Unordered, RaceKind::Unordered)
    )
}

/// What a search of the machine concluded, held against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No finding, and the reference has none either.
    Clean,
    /// A finding of this kind, which the reference reaches too, along the
    /// machine's own schedule.
    Found(reference::Kind),
    /// The machine's search reached a bound of its own.
    NoConclusion,
}

/// Holds the machine's `outcome` (a search of `machine`; `exhaustive` if it
/// claims every schedule) to what the reference reached (`explored`,
/// complete): a clean exhaustive outcome where the reference finds nothing
/// (random schedules claim only themselves); a finding of a kind the
/// reference reaches, whose schedule replays in the reference to the same
/// finding. `Err` says how they disagree.
pub fn judge(
    machine: &Machine,
    reference: &Reference,
    explored: &reference::Exploration,
    outcome: &crate::explore::Outcome,
    exhaustive: bool,
) -> Result<Verdict, String> {
    use crate::explore::Outcome;
    let kinds = explored.kinds();
    match outcome {
        Outcome::Limit { .. } => Ok(Verdict::NoConclusion),
        Outcome::Clean { .. } if kinds.is_empty() || !exhaustive => Ok(Verdict::Clean),
        Outcome::Clean { .. } => Err(format!("the machine found nothing; the reference reaches {}", kind_list(&kinds))),
        Outcome::Found { finding, schedule, .. } => {
            let kind = match &**finding {
                Finding::Race(_) => reference::Kind::Race,
                Finding::Deadlock => reference::Kind::Deadlock,
                Finding::Error { .. } => reference::Kind::Error,
                Finding::Limit { .. } => return Ok(Verdict::NoConclusion),
            };
            if !kinds.contains(&kind) {
                return Err(format!(
                    "the machine found {}; the reference reaches {}",
                    kind.name(),
                    if kinds.is_empty() { "nothing".to_string() } else { kind_list(&kinds) }
                ));
            }
            let actions: Vec<Action> = schedule.iter().map(|step| step.action).collect();
            replay(machine, reference, &actions, Ending::Finding(finding)).map_err(|divergence| {
                format!("the machine's schedule to {} does not replay in the reference {divergence}", kind.name())
            })?;
            Ok(Verdict::Found(kind))
        }
    }
}

fn kind_list(kinds: &[reference::Kind]) -> String {
    kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(" and ")
}
