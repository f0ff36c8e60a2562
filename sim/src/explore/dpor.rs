//! Dynamic partial-order reduction (`--por dpor`): a stateless depth-first
//! search of the executions of the machine that explores at least one of
//! every class of executions equivalent up to swapping adjacent independent
//! actions, by source sets and sleep sets (Abdulla, Aronis, Jonsson and
//! Sagonas, "Optimal dynamic partial order reduction", POPL 2014,
//! Algorithm 1). docs/ccl-sim.md ("Dynamic partial-order reduction") gives
//! the argument; in short:
//!
//! - The machine runs without eager wake-ups (`Machine::eager_wakeups`): a
//!   `ge` wait, a read of a location that went quiet and a fence whose queue
//!   emptied are steps of their own threads, so an action does not take on
//!   the thread it happened to complete.
//! - Each action is taken with a recorder on (`machine::footprint`): what it
//!   read, added to and wrote, exactly (an element, a thread), including
//!   what decided how far its thread ran eagerly.
//! - Processes are the threads (their steps), the in-flight units (their
//!   landing, one each) and the collectives (one process: they need every
//!   host). Two events of one execution happen one before the other when
//!   they are of one process or their footprints conflict, closed
//!   transitively (a bit set of earlier events per event).
//! - After each event e', every earlier event e of another process that it
//!   conflicts with directly (not through a third) is a race: the search
//!   must also try the executions where e' (or what leads to it
//!   independently of e) comes before e. A process that starts such an
//!   execution (an initial of `notdep(e).e'`) joins the backtrack set of the
//!   state before e unless one already is there. A race whose later event
//!   is not enabled before e (e enabled it) cannot be reversed.
//! - Sleep sets: after exploring process p from a state, p sleeps in the
//!   later siblings' subtrees until an event conflicting with p's runs.
//!
//! The states along the current execution are kept on a stack (copies share
//! every part the steps did not write, `shared`), so backtracking is popping,
//! not replaying.

use super::{finding_of, replay, Bound, Engine, Outcome, SearchConfig, SearchStats};
use crate::cost::RunCost;
use crate::machine::footprint::{Footprint, Part, Recorder, Touch};
use crate::machine::{Action, Finding, Loc, Machine, State, ThreadId};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// Who takes an action: a thread (its steps), an in-flight unit (its
/// landing, named by a digest of the unit: writes carry their writer's
/// count, so two units of one queue differ) or the hosts' collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Proc {
    Thread(ThreadId),
    Unit(ThreadId, u128),
    Collective,
}

/// The processes enabled in `state`, with the action each takes.
fn enabled(machine: &Machine, state: &State) -> Vec<(Proc, Action)> {
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

/// Whether the race of a `ge` wait's pass (`wait`, on `cell`, having read
/// the cell from events of the processes `from`) with a later event of
/// `proc` (`later`) need not be reversed: the later event only adds to the
/// cell without lowering it (so the wait passing after it too acquires
/// more of the cell's clock: every race of that execution is one of this
/// one, docs/ccl-sim.md), it conflicts with the wait nowhere else, and every
/// event the wait read the cell from is of its process (so it comes after
/// them in every execution, and can replace none of them as what lets the
/// wait pass: no race reversal needs it before the wait either) or of the
/// waiting thread (before the wait in every execution).
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

/// A set of events of the current execution, by their position.
#[derive(Clone, Debug, Default)]
struct Events(Vec<u64>);

impl Events {
    fn insert(&mut self, n: usize) {
        if self.0.len() <= n / 64 {
            self.0.resize(n / 64 + 1, 0);
        }
        self.0[n / 64] |= 1 << (n % 64);
    }

    fn contains(&self, n: usize) -> bool {
        self.0.get(n / 64).is_some_and(|word| word & (1 << (n % 64)) != 0)
    }

    fn union(&mut self, other: &Events) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn meets(&self, other: &Events) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

/// An event of the current execution: the action taken at its depth.
struct Event {
    proc: Proc,
    action: Action,
    footprint: Arc<Footprint>,
    /// The events that happen before it.
    past: Events,
    /// For the pass of a `ge` wait: its cell, and the processes of the
    /// events it read the cell's value from (`dominated`).
    waited: Option<(Loc, Vec<Proc>)>,
}

/// A state of the current execution and what the search knows of it.
struct Level {
    /// The state before this depth's event.
    state: State,
    enabled: Vec<(Proc, Action)>,
    /// Processes to explore from here (source-DPOR's backtrack set).
    backtrack: Vec<Proc>,
    done: Vec<Proc>,
    /// Processes explored from an ancestor or an earlier sibling whose
    /// subtrees cover what they would find here, with their footprints.
    sleep: Vec<Slept>,
    /// The event taken from here, while its subtree is explored.
    current: Option<Event>,
}

/// A process asleep: explored from an ancestor or an earlier sibling, as
/// it was taken there.
#[derive(Clone)]
struct Slept {
    proc: Proc,
    footprint: Arc<Footprint>,
}

/// The events of the current execution indexed by what they touched.
#[derive(Default)]
struct Index {
    by_part: HashMap<Part, Vec<(u32, Touch)>>,
    /// Events that touched everything (an allocation).
    everything: Vec<u32>,
    by_proc: HashMap<Proc, Vec<u32>>,
}

impl Index {
    /// The events before `n` that `footprint` of `proc` depends on directly.
    fn dependencies(&self, n: usize, proc: Proc, footprint: &Footprint) -> Vec<usize> {
        let mut deps: Vec<usize> = Vec::new();
        if let Some(last) = self.by_proc.get(&proc).and_then(|events| events.last()) {
            deps.push(*last as usize);
        }
        if footprint.everything() {
            deps.extend(0..n);
        } else {
            deps.extend(self.everything.iter().map(|e| *e as usize));
            for (part, touch) in &footprint.touches {
                let Some(events) = self.by_part.get(part) else { continue };
                // Back to the last write of the part: every touch before it
                // happens before that write, so comes through it.
                for (e, t) in events.iter().rev() {
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

    /// The processes of the events a read of `part` now would read from:
    /// those that touched it back to the last that wrote it.
    fn writers(&self, part: Part) -> Vec<Proc> {
        let mut procs = Vec::new();
        for (e, touch) in self.by_part.get(&part).into_iter().flatten().rev() {
            if *touch != Touch::Read {
                if let Some(proc) = self.proc_of(*e) {
                    procs.push(proc);
                }
            }
            if *touch == Touch::Write {
                break;
            }
        }
        procs
    }

    fn proc_of(&self, event: u32) -> Option<Proc> {
        self.by_proc.iter().find(|(_, events)| events.contains(&event)).map(|(proc, _)| *proc)
    }

    fn add(&mut self, n: usize, event: &Event) {
        for (part, touch) in &event.footprint.touches {
            if *part == Part::Everything {
                self.everything.push(n as u32);
            } else {
                self.by_part.entry(*part).or_default().push((n as u32, *touch));
            }
        }
        self.by_proc.entry(event.proc).or_default().push(n as u32);
    }

    fn remove(&mut self, event: &Event) {
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
    }
}

enum Stop {
    Found(Arc<Finding>, Vec<Action>),
    Bound(Bound),
}

struct Search<'a> {
    machine: &'a Machine,
    recorder: Arc<Recorder>,
    config: &'a SearchConfig,
    started: Instant,
    levels: Vec<Level>,
    index: Index,
    transitions: usize,
    executions: usize,
    blocked: usize,
    max_depth: usize,
    cost: RunCost,
}

impl Search<'_> {
    fn schedule(&self) -> Vec<Action> {
        self.levels.iter().filter_map(|level| level.current.as_ref().map(|event| event.action)).collect()
    }

    /// Counts a transition about to be taken; the bound reached, if any.
    fn admit(&mut self) -> Option<Bound> {
        self.transitions += 1;
        super::bound_reached(self.transitions, self.config, self.machine, self.started)
    }

    /// Records the event just taken at depth `n` and adds, for each race it
    /// ends, a process that reverses it to the backtrack set before the race.
    fn races(&mut self, n: usize, proc: Proc, footprint: &Footprint) -> Events {
        let deps: Vec<usize> = self
            .index
            .dependencies(n, proc, footprint)
            .into_iter()
            .filter(|&d| {
                let earlier = self.levels[d].current.as_ref().expect("an event of the execution");
                earlier.proc == proc || !attempt_only(&earlier.footprint, footprint)
            })
            .collect();
        // A wait's race with this event that is `dominated` is not reversed;
        // what happens before this event only through that wait is then in
        // a race with it of its own (the wait may come after it).
        let dominated_by: Vec<bool> = deps
            .iter()
            .map(|&d| {
                let event = self.levels[d].current.as_ref().expect("an event of the execution");
                event.proc != proc
                    && event.waited.as_ref().is_some_and(|(cell, from)| {
                        dominated(&event.footprint, event.proc, *cell, from, footprint, proc)
                    })
            })
            .collect();
        let mut past = Events::default();
        let mut through = Events::default();
        for (&d, &skipped) in deps.iter().zip(&dominated_by) {
            let event = self.levels[d].current.as_ref().expect("an event of the execution");
            past.union(&event.past);
            if !skipped {
                through.union(&event.past);
            }
            past.insert(d);
        }
        for (&e, _) in deps.iter().zip(&dominated_by).filter(|(e, skipped)| !through.contains(**e) && !**skipped) {
            let earlier = self.levels[e].current.as_ref().expect("an event of the execution");
            if earlier.proc == proc {
                continue;
            }
            // v = notdep(e).e': the events after e that do not happen after
            // it, then this one; its initials are the processes whose first
            // event in v has nothing of v before it.
            let mut v = Events::default();
            let mut members = Vec::new();
            for k in e + 1..n {
                let event = self.levels[k].current.as_ref().expect("an event of the execution");
                if !event.past.contains(e) {
                    v.insert(k);
                    members.push(k);
                }
            }
            let mut initials: Vec<Proc> = Vec::new();
            for &k in &members {
                let event = self.levels[k].current.as_ref().expect("an event of the execution");
                if !event.past.meets(&v) && !initials.contains(&event.proc) {
                    initials.push(event.proc);
                }
            }
            // The race can be reversed only if this event's process can run
            // without e: it is enabled before e, or after the events of v
            // before it (which do not need e).
            if !self.levels[e].enabled.iter().any(|(q, _)| *q == proc) && !self.enabled_without(e, &members, proc) {
                continue;
            }
            if !past.meets(&v) && !initials.contains(&proc) {
                initials.push(proc);
            }
            let level = &mut self.levels[e];
            let enabled_before = |p: &Proc| level.enabled.iter().any(|(q, _)| q == p);
            // Every other initial was enabled before e: nothing before it in
            // v enabled it, and e did not (it would happen after e).
            debug_assert!(initials.iter().all(enabled_before));
            if initials.is_empty() || initials.iter().any(|p| level.backtrack.contains(p)) {
                continue;
            }
            // An initial asleep here: the executions starting with it were
            // explored from where it was taken, and v with it (it is an
            // initial of v: v is equivalent to it first).
            let asleep = |p: &Proc| level.sleep.iter().any(|slept| slept.proc == *p);
            if initials.iter().any(asleep) {
                continue;
            }
            let choice = &initials[0];
            level.backtrack.push(*choice);
        }
        past
    }

    /// The process to explore first from `state`: an awake thread passing a
    /// `ge` wait (taken early, its races with later adds are mostly
    /// `dominated`), else the awake thread that has taken the fewest steps,
    /// else the first awake process. A choice of order only: every other is
    /// explored where a race needs it.
    fn first_choice(&self, state: &State, enabled: &[(Proc, Action)], sleep: &[Slept]) -> Option<Proc> {
        let awake = || enabled.iter().filter(|(p, _)| !sleep.iter().any(|slept| slept.proc == *p));
        let taken = |p: &Proc| self.index.by_proc.get(p).map_or(0, Vec::len);
        awake()
            .find(|(_, action)| matches!(action, Action::Step(t) if self.machine.ge_wait_at(state, *t).is_some()))
            .or_else(|| awake().filter(|(p, _)| matches!(p, Proc::Thread(_))).min_by_key(|(p, _)| taken(p)))
            .or_else(|| awake().next())
            .map(|(p, _)| *p)
    }

    /// Whether `proc` is enabled after the events `members` (after e, not
    /// after it) are taken, in order, from the state before event `e`.
    fn enabled_without(&self, e: usize, members: &[usize], proc: Proc) -> bool {
        // Not "e made it enabled, so it cannot run without e": another
        // event of v may enable it too (a second add to a waited cell).
        let mut state = self.levels[e].state.clone();
        for &k in members {
            let taken = self.levels[k].current.as_ref().expect("an event of the execution").proc;
            let Some(action) = enabled(self.machine, &state).into_iter().find(|(p, _)| *p == taken).map(|(_, a)| a)
            else {
                return true;
            };
            self.machine.apply(&mut state, action);
        }
        self.recorder.take();
        state.finding.is_some() || enabled(self.machine, &state).iter().any(|(p, _)| *p == proc)
    }

    /// Explores every execution from the initial state (module docs).
    fn run(&mut self, initial: State) -> Option<Stop> {
        let enabled0 = enabled(self.machine, &initial);
        if enabled0.is_empty() {
            return self.end_of_execution(&initial);
        }
        let first = self.first_choice(&initial, &enabled0, &[])?;
        self.levels.push(Level {
            state: initial,
            enabled: enabled0,
            backtrack: vec![first],
            done: Vec::new(),
            sleep: Vec::new(),
            current: None,
        });
        while let Some(depth) = self.levels.len().checked_sub(1) {
            let level = self.levels.last_mut().expect("a level");
            if let Some(event) = level.current.take() {
                self.index.remove(&event);
                level.sleep.push(Slept { proc: event.proc, footprint: event.footprint });
            }
            let asleep = |p: &Proc| level.sleep.iter().any(|slept| slept.proc == *p);
            let Some(proc) = level.backtrack.iter().copied().find(|p| !level.done.contains(p) && !asleep(p)) else {
                self.levels.pop();
                continue;
            };
            level.done.push(proc);
            let action = level.enabled.iter().find(|(p, _)| *p == proc).expect("a backtrack process is enabled").1;
            if let Some(bound) = self.admit() {
                return Some(Stop::Bound(bound));
            }
            let level = self.levels.last().expect("a level");
            let waiting = match action {
                Action::Step(t) => self.machine.ge_wait_at(&level.state, t),
                _ => None,
            };
            let mut next = level.state.clone();
            self.machine.apply(&mut next, action);
            let footprint = Arc::new(self.recorder.take());
            if let Some(finding) = &next.finding {
                let mut schedule = self.schedule();
                schedule.push(action);
                return Some(Stop::Found(finding.clone(), schedule));
            }
            let past = self.races(depth, proc, &footprint);
            let level = self.levels.last_mut().expect("a level");
            let sleep: Vec<Slept> =
                level.sleep.iter().filter(|slept| !slept.footprint.conflicts(&footprint)).cloned().collect();
            let waited = waiting.map(|cell| (cell, self.index.writers(Part::Elem(cell))));
            let event = Event { proc, action, footprint, past, waited };
            self.index.add(depth, &event);
            level.current = Some(event);
            self.max_depth = self.max_depth.max(depth + 1);
            let successors = enabled(self.machine, &next);
            if successors.is_empty() {
                if let Some(stop) = self.end_of_execution(&next) {
                    return Some(stop);
                }
                continue;
            }
            if depth + 1 >= self.machine.limits.max_steps as usize {
                return Some(Stop::Bound(Bound::Depth(self.machine.limits.max_steps as usize)));
            }
            let Some(first) = self.first_choice(&next, &successors, &sleep) else {
                // Every enabled process sleeps: what follows was explored.
                self.blocked += 1;
                continue;
            };
            self.levels.push(Level {
                state: next,
                enabled: successors,
                backtrack: vec![first],
                done: Vec::new(),
                sleep,
                current: None,
            });
        }
        None
    }

    /// A state with no action: the end of a schedule, or a deadlock.
    fn end_of_execution(&mut self, state: &State) -> Option<Stop> {
        self.executions += 1;
        if !self.machine.finished(state) {
            return Some(Stop::Found(Arc::new(Finding::Deadlock), self.schedule()));
        }
        self.cost.record(&self.machine.program, &state.cost);
        None
    }
}

/// Explores the executions of `machine` (module docs). `machine` runs
/// without eager wake-ups (the caller's, `lib::run`); the schedule reported
/// is one of its actions.
pub fn search(machine: Machine, config: &SearchConfig) -> Outcome {
    let started = Instant::now();
    let recorder = Arc::new(Recorder::default());
    let mut recording = machine.clone();
    recording.footprint = Some(recorder.clone());
    let initial = recording.initial();
    recorder.take();
    let mut search = Search {
        machine: &recording,
        recorder,
        config,
        started,
        levels: Vec::new(),
        index: Index::default(),
        transitions: 0,
        executions: 0,
        blocked: 0,
        max_depth: 0,
        cost: RunCost::default(),
    };
    let stop = match &initial.finding {
        Some(finding) => Some(Stop::Found(finding.clone(), Vec::new())),
        None => search.run(initial),
    };
    let stats = Some(SearchStats {
        stored: 0,
        generated: search.transitions,
        max_depth: search.max_depth,
        executions: search.executions,
        sleep_blocked: search.blocked,
        threads: 1,
        seconds: started.elapsed().as_secs_f64(),
        engine: Engine::Dpor,
        ..SearchStats::default()
    });
    let states = search.transitions;
    match stop {
        Some(Stop::Found(finding, actions)) => {
            let (schedule, last) = replay(&machine, &actions);
            let finding = if last.finding.is_some() { finding_of(&machine, &last) } else { finding };
            Outcome::Found { finding, schedule, last: Box::new(last), states, stats }
        }
        Some(Stop::Bound(bound)) => Outcome::Limit { states, generated: states, bound, stats },
        None => Outcome::Clean { states, schedules: None, cost: search.cost, stats },
    }
}
