//! Seeded random schedules, for programs too large to explore: each run
//! takes a random enabled action at every state until the schedule ends or
//! finds something.
//!
//! Run `i` draws from its own generator, seeded from the seed and `i`, so
//! the schedules are the same whichever thread runs them: the runs are
//! shared out to the threads, and the finding reported is that of the
//! lowest-numbered run that found one (the runs below it all complete).

use super::{finding_of, replay, Bound, Outcome};
use crate::cost::{RunCost, Tally};
use crate::machine::{Action, Machine};
use crate::memory;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The generator's seed for run `run`: SplitMix64 of the two, so nearby
/// seeds and runs give unrelated schedules.
fn run_seed(seed: u64, run: usize) -> u64 {
    let mut z = seed ^ (run as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How one run ended.
enum RunEnd {
    /// It reached its end; what it executed.
    Finished(Tally),
    /// A finding, with the actions that led there.
    Found(Vec<Action>),
    Bound(Bound),
}

struct Shared<'a> {
    machine: &'a Machine,
    max_states: usize,
    trace: bool,
    next_run: AtomicUsize,
    steps: AtomicUsize,
    stopped: AtomicBool,
    /// The lowest-numbered run that found something, and its actions.
    found: Mutex<Option<(usize, Vec<Action>)>>,
    bound: Mutex<Option<Bound>>,
    cost: Mutex<RunCost>,
}

impl Shared<'_> {
    /// Runs schedule `run` to its end, a finding or a bound.
    fn run(&self, run: usize, seed: u64) -> RunEnd {
        let machine = self.machine;
        let mut rng = fastrand::Rng::with_seed(run_seed(seed, run));
        if self.trace {
            eprintln!("schedule {}:", run + 1);
        }
        let mut state = machine.initial();
        // The actions taken: a finding's schedule is replayed from them.
        let mut taken: Vec<Action> = Vec::new();
        let mut actions = Vec::new();
        loop {
            // Every run's steps, for the report's total.
            self.steps.fetch_add(1, Ordering::Relaxed);
            // The actions are listed once a step: a deadlock is a state
            // with none that has not finished (`Machine::deadlocked`).
            actions.clear();
            machine.actions(&state, &mut actions);
            if state.finding.is_some() || (actions.is_empty() && !machine.finished(&state)) {
                return RunEnd::Found(taken);
            }
            // The bound is each schedule's: N runs of a program that
            // takes S steps need S, not N x S (what users read the bound as).
            if taken.len() >= self.max_states {
                return RunEnd::Bound(Bound::States(self.max_states));
            }
            let held = memory::in_use();
            if held > machine.limits.max_memory {
                return RunEnd::Bound(Bound::Memory { max: machine.limits.max_memory, held });
            }
            if actions.is_empty() {
                return RunEnd::Finished(state.cost.clone());
            }
            let action = actions[rng.usize(..actions.len())];
            if self.trace {
                eprintln!("  {:>4}. {}", taken.len() + 1, crate::report::step(machine, &state, action));
            }
            // No earlier state is kept: the step changes this one in place.
            machine.apply(&mut state, action);
            taken.push(action);
            // A lower-numbered run's finding makes this one moot.
            if self.stopped.load(Ordering::Relaxed) && self.found_before(run) {
                return RunEnd::Finished(state.cost.clone());
            }
        }
    }

    fn found_before(&self, run: usize) -> bool {
        self.found.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|(first, _)| *first < run)
    }

    fn work(&self, runs: usize, seed: u64) {
        loop {
            let run = self.next_run.fetch_add(1, Ordering::Relaxed);
            if run >= runs || (self.stopped.load(Ordering::Relaxed) && (self.found_before(run) || self.bounded())) {
                return;
            }
            match self.run(run, seed) {
                RunEnd::Finished(cost) => {
                    self.cost.lock().unwrap_or_else(|e| e.into_inner()).record(&self.machine.program, &cost)
                }
                RunEnd::Found(actions) => {
                    let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
                    if found.as_ref().is_none_or(|(first, _)| run < *first) {
                        *found = Some((run, actions));
                    }
                    self.stopped.store(true, Ordering::Relaxed);
                }
                RunEnd::Bound(bound) => {
                    self.bound.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(bound);
                    self.stopped.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    fn bounded(&self) -> bool {
        self.bound.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

/// Runs `runs` random schedules from `seed` on `threads` threads (one with
/// `trace`, which prints each step of each schedule to stderr as it runs),
/// stopping when one schedule reaches `max_states` steps or at the memory
/// bound.
pub fn random(machine: &Machine, runs: usize, seed: u64, max_states: usize, trace: bool, threads: usize) -> Outcome {
    let shared = Shared {
        machine,
        max_states,
        trace,
        next_run: AtomicUsize::new(0),
        steps: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
        found: Mutex::new(None),
        bound: Mutex::new(None),
        cost: Mutex::new(RunCost::default()),
    };
    let threads = if trace { 1 } else { threads.clamp(1, runs.max(1)) };
    if threads == 1 {
        shared.work(runs, seed);
    } else {
        std::thread::scope(|scope| {
            for me in 0..threads {
                let shared = &shared;
                std::thread::Builder::new()
                    .name(format!("ccl-sim random {me}"))
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, move || shared.work(runs, seed))
                    .expect("a schedule thread starts");
            }
        });
    }
    let states = shared.steps.load(Ordering::Relaxed);
    // A finding is conclusive even if a bound stopped another run.
    if let Some((_, actions)) = shared.found.into_inner().unwrap_or_else(|e| e.into_inner()) {
        let (schedule, last) = replay(machine, &actions);
        let finding = finding_of(machine, &last);
        return Outcome::Found { finding, schedule, last: Box::new(last), states, stats: None };
    }
    if let Some(bound) = shared.bound.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Outcome::Limit { states, generated: states, bound, stats: None };
    }
    let cost = shared.cost.into_inner().unwrap_or_else(|e| e.into_inner());
    Outcome::Clean { states, schedules: Some(runs), cost, stats: None }
}

/// Schedule `run` of `seed` on its own (the one `random` runs as that run),
/// up to `max_steps` actions: the actions taken and the state it ends in
/// (finished, at a finding, deadlocked, or cut at the bound). For holding
/// the random search to the reference semantics (`crate::crosscheck`).
pub fn schedule(machine: &Machine, seed: u64, run: usize, max_steps: usize) -> (Vec<Action>, crate::machine::State) {
    let mut rng = fastrand::Rng::with_seed(run_seed(seed, run));
    let mut state = machine.initial();
    let mut taken = Vec::new();
    let mut actions = Vec::new();
    while taken.len() < max_steps && state.finding.is_none() {
        actions.clear();
        machine.actions(&state, &mut actions);
        if actions.is_empty() {
            break;
        }
        let action = actions[rng.usize(..actions.len())];
        machine.apply(&mut state, action);
        taken.push(action);
    }
    (taken, state)
}
