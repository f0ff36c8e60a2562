//! Races and their reversals: after each event, the earlier events of other
//! processes it depends on directly are its races; for each one the event
//! could have come before, a process that starts the reversal (an initial
//! of the events after the earlier one that do not happen after it, then
//! this one) joins the backtrack set of the state before the earlier event,
//! unless one already is there or asleep there. docs/ccl-sim.md ("Dynamic
//! partial-order reduction") argues each rule.

use super::events::{enabled, play, Event, Events, Proc};
use super::worker::Worker;
use crate::machine::footprint::Footprint;

impl Worker<'_, '_> {
    /// Event `k` of the current execution.
    pub(super) fn event(&self, k: usize) -> &Event {
        self.path[k + 1].event.as_ref().expect("an event of the execution")
    }

    /// Records the races of event `n` (of `proc`, touching `footprint`) and
    /// adds, for each, a process that reverses it to the backtrack set of
    /// the state before the race; what happens before the event.
    pub(super) fn races(&self, n: usize, proc: Proc, footprint: &Footprint) -> Events {
        let deps: Vec<usize> = self.index.dependencies(n, proc, footprint);
        // A dependency in the past of another is not direct: its race is
        // reversed through that one.
        let mut past = Events::default();
        for &d in &deps {
            past.union(&self.event(d).past);
        }
        let direct: Vec<usize> = deps.iter().copied().filter(|&d| !past.contains(d)).collect();
        for &d in &deps {
            past.insert(d);
        }
        for e in direct {
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
        let mut blocked = self.path[e].blocked.clone();
        for &k in members {
            let taken = self.event(k).proc;
            let Some(step) =
                enabled(&self.machine, &state, &blocked).into_iter().find(|(p, _)| *p == taken).map(|(_, a)| a)
            else {
                self.recorder.take();
                return true;
            };
            play(&self.machine, &mut state, &mut blocked, step);
        }
        self.recorder.take();
        state.finding.is_some() || enabled(&self.machine, &state, &blocked).iter().any(|(p, _)| *p == proc)
    }
}
