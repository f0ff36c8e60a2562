//! ccl-sim's exhaustive search: depth-first, on every core, with visited
//! states stored as fingerprints (or whole).
//!
//! Each worker thread runs a depth-first search on its own stack of states
//! to expand (a LIFO deque); an idle worker steals the oldest entries of
//! another's stack, the roots of the largest unexplored subtrees. A state
//! joins the visited set when it is first made, so every state is expanded
//! once, by one worker. Every state to expand carries the schedule that
//! reached it (a shared list of actions), which is replayed to report a
//! finding.
//!
//! Depth-first, the search holds the states along the schedule it follows
//! and their unexpanded siblings, not a breadth-first frontier: at the sizes
//! where the frontier ran out of memory, the visited set of fingerprints is
//! what grows.

use super::fingerprint::fingerprint;
use super::por::{Progress, Reducer};
use super::visited::Visited;
use super::{finding_of, replay, Bound, Engine, Outcome, SearchConfig, SearchStats};
use crate::cost::RunCost;
use crate::machine::{Action, Finding, Machine, State};
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// States one worker generates before the others join: a small search runs
/// on one thread, so what it reports (which race, along which schedule) is
/// the same in every run. A larger one may report another of the program's
/// findings, or the same along another schedule, from run to run; a clean
/// program is clean in every run.
const SEQUENTIAL_STATES: usize = 20_000;

/// The schedule that reached a state: its last action and the schedule
/// before it, shared by every state that continues it.
struct PathNode {
    action: Action,
    parent: Path,
}

type Path = Option<Arc<PathNode>>;

impl Drop for PathNode {
    // Iterative: a schedule of many thousand steps would otherwise drop its
    // nodes by recursion.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut node) => next = node.parent.take(),
                Err(_) => break,
            }
        }
    }
}

fn actions_of(path: &Path) -> Vec<Action> {
    let mut actions = Vec::new();
    let mut node = path.as_deref();
    while let Some(n) = node {
        actions.push(n.action);
        node = n.parent.as_deref();
    }
    actions.reverse();
    actions
}

/// A state to expand.
struct Task {
    state: State,
    path: Path,
    depth: usize,
}

/// What stopped the search early.
enum Stop {
    Found(Arc<Finding>, Vec<Action>),
    Bound(Bound),
}

struct Search<'a> {
    machine: &'a Machine,
    config: &'a SearchConfig,
    visited: Visited,
    generated: AtomicUsize,
    /// Tasks made and not yet expanded: the search is over at zero.
    pending: AtomicUsize,
    max_depth: AtomicUsize,
    /// Partial-order reduction, when on.
    reducer: Option<Reducer<'a>>,
    reduced: AtomicUsize,
    stopped: AtomicBool,
    stop: Mutex<Option<Stop>>,
    cost: Mutex<RunCost>,
    /// When the search began (`--max-time`).
    started: Instant,
}

impl Search<'_> {
    /// Ends the search; a finding wins over a bound reached at the same time
    /// by another worker.
    fn halt(&self, why: Stop) {
        let mut stop = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        let replace = matches!((&*stop, &why), (None, _) | (Some(Stop::Bound(_)), Stop::Found(..)));
        if replace {
            *stop = Some(why);
        }
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// Counts a state about to be made; `false` (and the search stops) once
    /// a bound is reached.
    fn admit(&self) -> bool {
        let generated = self.generated.fetch_add(1, Ordering::Relaxed) + 1;
        let Some(bound) = super::bound_reached(generated, self.config, self.machine, self.started) else {
            return true;
        };
        self.halt(Stop::Bound(bound));
        false
    }

    /// A schedule that reached its end: its counts join the run's.
    fn record_if_finished(&self, state: &State) {
        if state.finding.is_none() && self.machine.finished(state) {
            self.cost.lock().unwrap_or_else(|e| e.into_inner()).record(&self.machine.program, &state.cost);
        }
    }

    fn push(&self, local: &Worker<Task>, task: Task) {
        self.max_depth.fetch_max(task.depth, Ordering::Relaxed);
        self.pending.fetch_add(1, Ordering::SeqCst);
        local.push(task);
    }

    /// Expands `task`: its successors, each checked for findings and, when
    /// new, pushed to be expanded.
    fn expand(&self, task: Task, local: &Worker<Task>) {
        let Task { state, path, depth } = task;
        let mut enabled = Vec::new();
        self.machine.actions(&state, &mut enabled);
        if enabled.is_empty() {
            if !self.machine.finished(&state) {
                self.halt(Stop::Found(Arc::new(Finding::Deadlock), actions_of(&path)));
            }
            return;
        }
        // A persistent set first; the other actions too unless every
        // successor along it has come further (the cycle proviso, `por`).
        let persistent = self.reducer.as_ref().and_then(|reducer| reducer.persistent(&state, &enabled));
        let (first, rest) = match persistent {
            Some(set) => {
                let rest: Vec<Action> = enabled.iter().copied().filter(|a| !set.contains(a)).collect();
                (set, rest)
            }
            None => (enabled, Vec::new()),
        };
        let mut successors = Vec::with_capacity(first.len() + rest.len());
        if !self.successors(&state, &first, &mut successors) {
            return;
        }
        if !rest.is_empty() {
            let here = Progress::of(&state);
            if successors.iter().all(|(_, next, _)| Progress::of(next) > here) {
                self.reduced.fetch_add(1, Ordering::Relaxed);
            } else if !self.successors(&state, &rest, &mut successors) {
                return;
            }
        }
        // Pushed in reverse, the first successor is expanded first.
        let mut new = Vec::new();
        // A swarm's order depends on the state (its successors' prints
        // name it), so it is the same whichever worker expands it.
        let order =
            self.config.swarm.map(|seed| successors.iter().fold(seed, |mix, (_, _, print)| mix ^ *print as u64));
        for (action, next, print) in successors {
            if next.finding.is_some() {
                let mut actions = actions_of(&path);
                actions.push(action);
                self.halt(Stop::Found(next.finding.clone().expect("a finding"), actions));
                return;
            }
            self.record_if_finished(&next);
            if self.visited.insert(print, &next) {
                new.push((action, next));
            }
        }
        if let Some(order) = order {
            fastrand::Rng::with_seed(order).shuffle(&mut new);
        }
        for (action, next) in new.into_iter().rev() {
            let path = Some(Arc::new(PathNode { action, parent: path.clone() }));
            self.push(local, Task { state: next, path, depth: depth + 1 });
        }
    }

    /// The successors of `state` along `actions`, with their fingerprints;
    /// `false` once a bound stops the search.
    fn successors(&self, state: &State, actions: &[Action], out: &mut Vec<(Action, State, u128)>) -> bool {
        for &action in actions {
            if !self.admit() {
                return false;
            }
            let next = self.machine.next(state, action);
            let print = fingerprint(&next);
            out.push((action, next, print));
        }
        true
    }

    /// One worker: expands its own tasks, steals when it has none, and ends
    /// when no task is left anywhere or the search stopped.
    fn work(&self, local: Worker<Task>, injector: &Injector<Task>, stealers: &[Stealer<Task>], me: usize) {
        // The other workers join once the search is past its first states.
        while me != 0 && self.generated.load(Ordering::Relaxed) < SEQUENTIAL_STATES {
            if self.pending.load(Ordering::SeqCst) == 0 || self.stopped.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let mut idle = 0u32;
        loop {
            if self.stopped.load(Ordering::Relaxed) {
                return;
            }
            let task = local.pop().or_else(|| {
                std::iter::repeat_with(|| {
                    injector.steal_batch_and_pop(&local).or_else(|| {
                        stealers
                            .iter()
                            .enumerate()
                            .filter(|(n, _)| *n != me)
                            .map(|(_, stealer)| stealer.steal_batch_and_pop(&local))
                            .collect()
                    })
                })
                .find(|steal| !steal.is_retry())
                .and_then(Steal::success)
            });
            match task {
                Some(task) => {
                    idle = 0;
                    self.expand(task, &local);
                    self.pending.fetch_sub(1, Ordering::SeqCst);
                }
                None => {
                    if self.pending.load(Ordering::SeqCst) == 0 {
                        return;
                    }
                    idle += 1;
                    if idle < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                }
            }
        }
    }
}

/// Explores the schedules of `machine` (module docs).
pub fn search(machine: Machine, config: &SearchConfig) -> Outcome {
    let started = Instant::now();
    let threads = config.threads.max(1);
    let search = Search {
        machine: &machine,
        config,
        visited: Visited::new(config.store),
        generated: AtomicUsize::new(0),
        pending: AtomicUsize::new(0),
        max_depth: AtomicUsize::new(0),
        reducer: if config.por { Reducer::new(&machine) } else { None },
        reduced: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
        stop: Mutex::new(None),
        cost: Mutex::new(RunCost::default()),
        started,
    };
    let initial = machine.initial();
    if initial.finding.is_some() {
        search.halt(Stop::Found(initial.finding.clone().expect("a finding"), Vec::new()));
    } else {
        search.record_if_finished(&initial);
        search.visited.insert(fingerprint(&initial), &initial);
        let injector = Injector::new();
        search.pending.store(1, Ordering::SeqCst);
        injector.push(Task { state: initial, path: None, depth: 0 });
        let workers: Vec<Worker<Task>> = (0..threads).map(|_| Worker::new_lifo()).collect();
        let stealers: Vec<Stealer<Task>> = workers.iter().map(Worker::stealer).collect();
        std::thread::scope(|scope| {
            for (me, local) in workers.into_iter().enumerate() {
                let (search, injector, stealers) = (&search, &injector, &stealers);
                std::thread::Builder::new()
                    .name(format!("ccl-sim search {me}"))
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, move || search.work(local, injector, stealers, me))
                    .expect("a search thread starts");
            }
        });
    }
    let stats = Some(SearchStats {
        stored: search.visited.len(),
        generated: search.generated.load(Ordering::Relaxed),
        max_depth: search.max_depth.load(Ordering::Relaxed),
        reduced: search.reduced.load(Ordering::Relaxed),
        visited_bytes: search.visited.table_bytes(),
        store: Some(config.store),
        threads,
        seconds: started.elapsed().as_secs_f64(),
        engine: Engine::Dfs,
        ..SearchStats::default()
    });
    let states = search.visited.len();
    let stop = search.stop.into_inner().unwrap_or_else(|e| e.into_inner());
    match stop {
        Some(Stop::Found(finding, actions)) => {
            let (schedule, last) = replay(&machine, &actions);
            // The replayed state is the one found (the machine is
            // deterministic); a deadlock is found where no step is left.
            let finding = if last.finding.is_some() { finding_of(&machine, &last) } else { finding };
            Outcome::Found { finding, schedule, last: Box::new(last), states, run: None, schedules: None, stats }
        }
        Some(Stop::Bound(bound)) => {
            Outcome::Limit { states, generated: search.generated.load(Ordering::Relaxed), bound, stats }
        }
        None => {
            let cost = search.cost.into_inner().unwrap_or_else(|e| e.into_inner());
            Outcome::Clean { states, schedules: None, cost, stats }
        }
    }
}
