//! Dynamic partial-order reduction (`--por dpor`): a stateless depth-first
//! search of the executions of the machine that explores at least one of
//! every class of executions equivalent up to swapping adjacent independent
//! actions, by source sets and sleep sets (Abdulla, Aronis, Jonsson and
//! Sagonas, "Optimal dynamic partial order reduction", POPL 2014,
//! Algorithm 1), on every core. docs/ccl-sim.md ("Dynamic partial-order
//! reduction") gives the argument; in short:
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
//!   transitively (`events`).
//! - After each event e', every earlier event e of another process that it
//!   conflicts with directly (not through a third) is a race (`races`): the
//!   search must also try the executions where e' (or what leads to it
//!   independently of e) comes before e. A process that starts such an
//!   execution (an initial of `notdep(e).e'`) joins the backtrack set of the
//!   state before e unless one already is there or asleep there. A race
//!   whose later event cannot run without e cannot be reversed.
//! - A thread resting at a wait that does not hold is disabled until a
//!   change of its cell makes it hold (the one way an event disables
//!   another process: a lowering notify takes a pass away). Its wait is
//!   read where it does not hold, by an event the execution does not take,
//!   and that read's races are reversed like an event's: where an
//!   execution reaches the wait (`Worker::wait_races`), and where a pass's
//!   race would put the pass but the wait does not hold (`block_races`).
//! - Sleep sets: a child started from a state sleeps in the subtrees of the
//!   children started after it until an event conflicting with its own
//!   runs (`tree`).
//! - Workers (`worker`) share the tree: each follows its own execution, and
//!   an idle one takes another's execution up to its shallowest node with a
//!   process not started.
//!
//! The states along each execution are kept in its nodes (copies share
//! every part the steps did not write, `shared`), so backtracking is
//! popping, not replaying.

mod events;
mod races;
mod tree;
mod worker;

use super::{finding_of, replay, Bound, Engine, Outcome, SearchConfig, SearchStats};
use crate::cost::RunCost;
use crate::machine::{Action, Finding, Machine};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tree::{Node, Plan};
use worker::Worker;

/// What stopped the search early.
enum Stop {
    Found(Arc<Finding>, Vec<Action>),
    Bound(Bound),
}

/// What the workers share.
struct Common<'a> {
    machine: &'a Machine,
    config: &'a SearchConfig,
    started: Instant,
    /// Actions taken (`--max-states` counts these).
    transitions: AtomicUsize,
    /// Executions run to their end.
    executions: AtomicUsize,
    /// Executions cut where every enabled process sleeps.
    blocked: AtomicUsize,
    /// Times a worker took over a branch of another's execution.
    taken_over: AtomicUsize,
    max_depth: AtomicUsize,
    stopped: AtomicBool,
    stop: Mutex<Option<Stop>>,
    cost: Mutex<RunCost>,
    /// Each worker's execution, as the nodes along it (what an idle worker
    /// takes work from).
    paths: Vec<Mutex<Vec<Arc<Node>>>>,
    /// Workers with nothing to explore: the search is over when all are.
    idle: Mutex<usize>,
}

impl Common<'_> {
    /// Ends the search; a finding wins over a bound reached at the same time
    /// by another worker.
    fn halt(&self, why: Stop) {
        let mut stop = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        if matches!((&*stop, &why), (None, _) | (Some(Stop::Bound(_)), Stop::Found(..))) {
            *stop = Some(why);
        }
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// Counts a transition about to be taken; the bound reached, if any.
    fn admit(&self) -> Option<Bound> {
        let transitions = self.transitions.fetch_add(1, Ordering::Relaxed) + 1;
        super::bound_reached(transitions, self.config, self.machine, self.started)
    }
}

/// Explores the executions of `machine` (module docs) on `config.threads`
/// workers. `machine` runs without eager wake-ups (the caller's,
/// `lib::run`); the schedule reported is one of its actions.
pub fn search(machine: Machine, config: &SearchConfig) -> Outcome {
    let started = Instant::now();
    let threads = config.threads.max(1);
    let common = Common {
        machine: &machine,
        config,
        started,
        transitions: AtomicUsize::new(0),
        executions: AtomicUsize::new(0),
        blocked: AtomicUsize::new(0),
        taken_over: AtomicUsize::new(0),
        max_depth: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
        stop: Mutex::new(None),
        cost: Mutex::new(RunCost::default()),
        paths: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
        idle: Mutex::new(0),
    };
    let initial = machine.initial();
    let enabled = events::enabled(&machine, &initial);
    let first = worker::first_choice(&events::Index::default(), &enabled, &[]);
    let root = Node::new(initial, enabled, None, Plan { backtrack: first.into_iter().collect(), ..Plan::default() });
    if let Some(finding) = &root.state.finding {
        common.halt(Stop::Found(finding.clone(), Vec::new()));
    } else if root.enabled.is_empty() {
        finish_without_actions(&common, &root);
    } else {
        std::thread::scope(|scope| {
            for id in 0..threads {
                let path = if id == 0 { vec![root.clone()] } else { Vec::new() };
                let common = &common;
                scope.spawn(move || Worker::new(common, id, path).run());
            }
        });
    }
    outcome(&machine, common, threads)
}

/// The initial state has no action of the machine: one execution, finished
/// or deadlocked.
fn finish_without_actions(common: &Common, root: &Node) {
    common.executions.fetch_add(1, Ordering::Relaxed);
    if common.machine.finished(&root.state) {
        common.cost.lock().unwrap_or_else(|e| e.into_inner()).record(&common.machine.program, &root.state.cost);
    } else {
        common.halt(Stop::Found(Arc::new(Finding::Deadlock), Vec::new()));
    }
}

/// The outcome of the search `common` ran.
fn outcome(machine: &Machine, common: Common, threads: usize) -> Outcome {
    let transitions = common.transitions.load(Ordering::Relaxed);
    let stats = Some(SearchStats {
        stored: 0,
        generated: transitions,
        max_depth: common.max_depth.load(Ordering::Relaxed),
        executions: common.executions.load(Ordering::Relaxed),
        sleep_blocked: common.blocked.load(Ordering::Relaxed),
        taken_over: common.taken_over.load(Ordering::Relaxed),
        threads,
        seconds: common.started.elapsed().as_secs_f64(),
        engine: Engine::Dpor,
        ..SearchStats::default()
    });
    let cost = common.cost.into_inner().unwrap_or_else(|e| e.into_inner());
    match common.stop.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(Stop::Found(finding, actions)) => {
            let (schedule, last) = replay(machine, &actions);
            let finding = if last.finding.is_some() { finding_of(machine, &last) } else { finding };
            Outcome::Found {
                finding,
                schedule,
                last: Box::new(last),
                states: transitions,
                run: None,
                schedules: None,
                stats,
            }
        }
        Some(Stop::Bound(bound)) => Outcome::Limit { states: transitions, generated: transitions, bound, stats },
        None => Outcome::Clean { states: transitions, schedules: None, cost, stats },
    }
}
