//! Races and their reversals: after each event, the earlier events of other
//! processes it depends on directly are its races; for each one the event
//! could have come before, a process that starts the reversal (an initial
//! of the events after the earlier one that do not happen after it, then
//! this one) joins the backtrack set of the state before the earlier event,
//! unless one already is there or asleep there; and the same for the reads
//! of the waits that do not hold, which no execution takes as events.
//! docs/ccl-sim.md ("Dynamic partial-order reduction") argues each rule.

use super::events::{enabled, Event, Events, Proc};
use super::worker::Worker;
use crate::machine::footprint::{Footprint, Part, Touch};
use crate::machine::{Loc, State, ThreadId};

impl Worker<'_, '_> {
    /// Event `k` of the current execution.
    pub(super) fn event(&self, k: usize) -> &Event {
        self.path[k + 1].event.as_ref().expect("an event of the execution")
    }

    /// Records the races of event `n` (of `proc`, touching `footprint`) and
    /// adds, for each, a process that reverses it to the backtrack set of
    /// the state before the race; what happens before the event.
    pub(super) fn races(&self, n: usize, proc: Proc, footprint: &Footprint) -> Events {
        let deps: Vec<usize> = self.index.dependencies(n, proc, footprint, &Events::default());
        self.reverse_direct(&deps, n, proc, n, &Events::default())
    }

    /// Reverses the races of the event or read at `n` (of `proc`) with
    /// those of its dependencies `deps` that are direct and before `before`,
    /// in the execution without the events `excluded`; what happens before
    /// it.
    fn reverse_direct(&self, deps: &[usize], n: usize, proc: Proc, before: usize, excluded: &Events) -> Events {
        // A dependency in the past of another is not direct: its race is
        // reversed through that one.
        let mut past = Events::default();
        for &d in deps {
            past.union(&self.event(d).past);
        }
        let direct: Vec<usize> = deps.iter().copied().filter(|&d| !past.contains(d)).collect();
        for &d in deps {
            past.insert(d);
        }
        for e in direct {
            if e < before && self.event(e).proc != proc {
                self.reverse(e, n, proc, &past, excluded);
            }
        }
        past
    }

    /// The races of the waits that do not hold in the state the execution
    /// has reached, after its event `n - 1` (of `last`, touching
    /// `footprint`): each such wait is read there, as its pass would read
    /// it, by an event of its thread that the execution does not take, and
    /// that event's races are reversed like any other's. So a pass that a
    /// lowering notify disabled is tried before the lowering although no
    /// execution blocks its thread. A wait's races change only when its
    /// cell or its thread does: they are found after the event that
    /// brought its thread to the wait and after each event touching its
    /// cell (found again later, the reversal would only have more events
    /// after the race, none of them before the read, so the same initial
    /// starts it).
    pub(super) fn wait_races(&self, n: usize, last: Proc, footprint: &Footprint) {
        let state = &self.path[n].state;
        for t in 0..state.threads.len() as ThreadId {
            let Some(cell) = self.machine.failing_wait_at(state, t) else { continue };
            if last != Proc::Thread(t) && !footprint.touches(Part::Elem(cell)) {
                continue;
            }
            self.races(n, Proc::Thread(t), &wait_read(t, cell));
        }
    }

    /// The races of thread `t`'s read of its wait's cell where the race of
    /// event `e` with its pass (at `n`) would put the pass: in `state`,
    /// after the events of the reversal before the pass, without `e`, where
    /// the wait does not hold. In the execution of every event before the
    /// pass but `e` and what happens after `e`, the changes of the cell
    /// before the read that it conflicts with directly are each reversed
    /// (and, where the wait does not hold before one either, the same again
    /// further back). The read is an event no execution takes;
    /// docs/ccl-sim.md ("Waits") argues why its races are the ones to
    /// reverse.
    fn block_races(&self, e: usize, n: usize, t: ThreadId, state: &State) {
        let Some(cell) = self.machine.failing_wait_at(state, t) else { return };
        let proc = Proc::Thread(t);
        let mut excluded = Events::default();
        for k in e..n {
            if k == e || self.event(k).past.contains(e) {
                excluded.insert(k);
            }
        }
        let deps = self.index.dependencies(n, proc, &wait_read(t, cell), &excluded);
        self.reverse_direct(&deps, n, proc, e, &excluded);
    }

    /// Reverses the race of event `e` with the event at `n` (of `proc`,
    /// whose past is `past`) in the execution without the events
    /// `excluded` (a block race's: `block_races`), if it can be: a process
    /// starting v = notdep(e).e' joins the backtrack set before `e`.
    fn reverse(&self, e: usize, n: usize, proc: Proc, past: &Events, excluded: &Events) {
        // v: the events after e that do not happen after it, then this one;
        // its initials are the processes whose first event in v has nothing
        // of v before it.
        let mut v = Events::default();
        let mut members = Vec::new();
        for k in e + 1..n {
            if !self.event(k).past.contains(e) && !excluded.contains(k) {
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
        if !node.enabled.iter().any(|(q, _)| *q == proc) {
            // Not "e made it enabled, so it cannot run without e": another
            // event of v may enable it too (a second add to a waited cell).
            // Where a member cannot run (a pass that e's absence disables),
            // the race counts as reversible.
            if let Some(state) = self.without(e, &members) {
                if state.finding.is_none() && !enabled(&self.machine, &state).iter().any(|(p, _)| *p == proc) {
                    if let Proc::Thread(t) = proc {
                        self.block_races(e, n, t, &state);
                    }
                    return;
                }
            }
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

    /// The state after the events `members` (after e, not after it) are
    /// taken, in order, from the state before event `e`; `None` where one
    /// of them cannot run there.
    fn without(&self, e: usize, members: &[usize]) -> Option<State> {
        let mut state = self.path[e].state.clone();
        let mut ran = true;
        for &k in members {
            let taken = self.event(k).proc;
            let Some(action) = enabled(&self.machine, &state).into_iter().find(|(p, _)| *p == taken).map(|(_, a)| a)
            else {
                ran = false;
                break;
            };
            self.machine.apply(&mut state, action);
        }
        // What the replay recorded belongs to no event.
        self.recorder.take();
        ran.then_some(state)
    }
}

/// The read of `cell` by thread `t` resting at a wait there, as its pass
/// would read it: an event no execution takes.
fn wait_read(t: ThreadId, cell: Loc) -> Footprint {
    Footprint::from_raw(vec![(Part::Elem(cell), Touch::Read), (Part::Thread(t), Touch::Write)])
}
