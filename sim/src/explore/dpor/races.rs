//! Races and their reversals: after each event, the earlier events of other
//! processes it depends on directly are its races; for each one the event
//! could have come before, a process that starts the reversal (an initial
//! of the events after the earlier one that do not happen after it, then
//! this one) joins the backtrack set of the state before the earlier event,
//! unless one already is there or asleep there. docs/ccl-sim.md ("Dynamic
//! partial-order reduction") argues each rule.

use super::events::{enabled, Event, Events, Proc};
use super::worker::Worker;
use crate::machine::footprint::{Footprint, Part, Touch};
use crate::machine::Loc;

/// Whether the race of a `ge` wait's pass (`wait`, by `waiter`, on `cell`,
/// having read the cell from events of the processes `from`) with a later
/// event of `proc` (`later`) need not be reversed: the later event only
/// adds to the cell without lowering it (so the wait passing after it too
/// acquires more of the cell's clock: every race of that execution is one
/// of this one, docs/ccl-sim.md), it conflicts with the wait nowhere else,
/// and every event the wait read the cell from is of its process (so it
/// comes after them in every execution, and can replace none of them as
/// what lets the wait pass: no race reversal needs it before the wait
/// either) or of the waiting thread (before the wait in every execution).
fn dominated(wait: &Footprint, waiter: Proc, cell: Loc, from: &[Proc], later: &Footprint, proc: Proc) -> bool {
    if wait.everything() || later.everything() || from.iter().any(|p| *p != proc && *p != waiter) {
        return false;
    }
    let adds = later.touches.contains(&(Part::Elem(cell), Touch::Add));
    let lowers = later.touches.iter().any(|(part, _)| *part == Part::Lowers(cell));
    let elsewhere = wait.touches.iter().any(|(part, touch)| {
        *part != Part::Elem(cell)
            && later.touches.iter().any(|(other, theirs)| other == part && touch.conflicts(*theirs))
    });
    adds && !lowers && !elsewhere
}

/// Whether the only conflict of `earlier` with `later` is a failed attempt
/// of `earlier`'s at a wait (`Part::Attempt`) that `later` changes the cell
/// of. The two are independent: either way round the thread rests at the
/// wait (its pass is a step of its own, ordered with every change by its
/// own races) and the state is the same; the attempt records its read only
/// so that a change before it is in a race with it (the thread might have
/// got there first, and passed before the change).
fn attempt_only(earlier: &Footprint, later: &Footprint) -> bool {
    !earlier.everything()
        && !later.everything()
        && earlier.touches.iter().all(|(part, touch)| {
            later.touches.iter().filter(|(other, _)| other == part).all(|(_, theirs)| {
                !touch.conflicts(*theirs) || (matches!(part, Part::Attempt(_)) && *touch == Touch::Read)
            })
        })
}

impl Worker<'_, '_> {
    /// Event `k` of the current execution.
    pub(super) fn event(&self, k: usize) -> &Event {
        self.path[k + 1].event.as_ref().expect("an event of the execution")
    }

    /// Records the races of event `n` (of `proc`, touching `footprint`) and
    /// adds, for each, a process that reverses it to the backtrack set of
    /// the state before the race; what happens before the event.
    pub(super) fn races(&self, n: usize, proc: Proc, footprint: &Footprint) -> Events {
        let deps: Vec<usize> = self
            .index
            .dependencies(n, proc, footprint)
            .into_iter()
            .filter(|&d| {
                let earlier = self.event(d);
                earlier.proc == proc || !attempt_only(&earlier.footprint, footprint)
            })
            .collect();
        // A wait's race with this event that is `dominated` is not reversed;
        // what happens before this event only through that wait is then in
        // a race with it of its own (the wait may come after it).
        let skipped: Vec<bool> = deps
            .iter()
            .map(|&d| {
                let event = self.event(d);
                event.proc != proc
                    && event.waited.as_ref().is_some_and(|(cell, from)| {
                        dominated(&event.footprint, event.proc, *cell, from, footprint, proc)
                    })
            })
            .collect();
        let mut past = Events::default();
        let mut through = Events::default();
        for (&d, &skip) in deps.iter().zip(&skipped) {
            let event = self.event(d);
            past.union(&event.past);
            if !skip {
                through.union(&event.past);
            }
            past.insert(d);
        }
        for (&e, _) in deps.iter().zip(&skipped).filter(|(e, skip)| !through.contains(**e) && !**skip) {
            if self.event(e).proc != proc {
                self.reverse(e, n, proc, &past);
            }
        }
        past
    }

    /// Reverses the race of event `e` with the event at `n` (of `proc`,
    /// whose past is `past`), if it can be: a process starting
    /// v = notdep(e).e' joins the backtrack set before `e`.
    fn reverse(&self, e: usize, n: usize, proc: Proc, past: &Events) {
        // v: the events after e that do not happen after it, then this one;
        // its initials are the processes whose first event in v has nothing
        // of v before it.
        let mut v = Events::default();
        let mut members = Vec::new();
        for k in e + 1..n {
            if !self.event(k).past.contains(e) {
                v.insert(k);
                members.push(k);
            }
        }
        let mut initials: Vec<Proc> = Vec::new();
        for &k in &members {
            let event = self.event(k);
            if !event.past.meets(&v) && !initials.contains(&event.proc) {
                initials.push(event.proc);
            }
        }
        // The race can be reversed only if this event's process can run
        // without e: it is enabled before e, or after the events of v
        // before it (which do not need e).
        let node = &self.path[e];
        if !node.enabled.iter().any(|(q, _)| *q == proc) && !self.enabled_without(e, &members, proc) {
            return;
        }
        if !past.meets(&v) && !initials.contains(&proc) {
            initials.push(proc);
        }
        // Every other initial was enabled before e: nothing before it in v
        // enabled it, and e did not (it would happen after e).
        debug_assert!(initials.iter().all(|p| node.enabled.iter().any(|(q, _)| q == p)));
        let mut plan = node.plan();
        if initials.is_empty() || initials.iter().any(|p| plan.backtrack.contains(p)) {
            return;
        }
        // An initial asleep here: the executions starting with it are
        // explored from where it was taken, and v with it (it is an initial
        // of v: v is equivalent to it first).
        if initials.iter().any(|p| plan.asleep(*p)) {
            return;
        }
        plan.backtrack.push(initials[0]);
    }

    /// Whether `proc` is enabled after the events `members` (after e, not
    /// after it) are taken, in order, from the state before event `e`.
    fn enabled_without(&self, e: usize, members: &[usize], proc: Proc) -> bool {
        // Not "e made it enabled, so it cannot run without e": another
        // event of v may enable it too (a second add to a waited cell).
        let mut state = self.path[e].state.clone();
        for &k in members {
            let taken = self.event(k).proc;
            let Some(action) = enabled(&self.machine, &state).into_iter().find(|(p, _)| *p == taken).map(|(_, a)| a)
            else {
                self.recorder.take();
                return true;
            };
            self.machine.apply(&mut state, action);
        }
        self.recorder.take();
        state.finding.is_some() || enabled(&self.machine, &state).iter().any(|(p, _)| *p == proc)
    }
}
