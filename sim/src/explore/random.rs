//! Seeded random schedules, for programs too large to explore: each run
//! takes a random enabled action at every state until the schedule ends or
//! finds something.
//!
//! Run `i` draws from its own generator, seeded from the seed and `i`, so
//! the schedules are the same whichever thread runs them: the runs are
//! shared out to the threads, and the finding reported is that of the
//! lowest-numbered run that found one (the runs below it all complete).
//!
//! A shard (`--shard K/N`) runs the runs numbered K modulo N, each as the
//! whole search runs it: N shards together run the whole search's
//! schedules, and the lowest-numbered finding among them is the whole
//! search's. Each run that ends is recorded with a digest of its actions,
//! so that two searches can be shown to have run the same schedules.

use super::{finding_of, replay, Bound, Outcome, Sampled, Shard};
use crate::cost::{RunCost, Tally};
use crate::machine::{Action, Machine, State};
use crate::memory;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The generator's seed for run `run`: SplitMix64 of the two, so nearby
/// seeds and runs give unrelated schedules.
pub(super) fn run_seed(seed: u64, run: usize) -> u64 {
    let mut z = seed ^ (run as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a traced search shows as it runs (`--trace`), one call of its
/// tracer each: the search says what happens, its caller how it reads.
pub enum Traced<'a> {
    /// Schedule `run` (from 0) starts.
    Schedule(usize),
    /// Step `number` of the schedule (from 1) takes `action` in `state`.
    Step { number: usize, state: &'a State, action: Action },
}

/// Where a traced search tells what it does.
pub type Tracer<'a> = &'a (dyn Fn(Traced<'_>) + Sync);

/// How one run ended.
enum RunEnd {
    /// It reached its end; what it executed and the digest of its actions.
    Finished(Tally, u64),
    /// A finding, with the actions that led there.
    Found(Vec<Action>),
    Bound(Bound),
    /// Stopped because a lower-numbered run found something.
    Moot,
}

struct Shared<'a> {
    machine: &'a Machine,
    shard: Shard,
    max_states: usize,
    trace: Option<Tracer<'a>>,
    next_run: AtomicUsize,
    steps: AtomicUsize,
    stopped: AtomicBool,
    /// The lowest-numbered run that found something, and its actions.
    found: Mutex<Option<(usize, Vec<Action>)>>,
    bound: Mutex<Option<Bound>>,
    cost: Mutex<RunCost>,
    /// The runs that reached their end, with their digests.
    ended: Mutex<Vec<(usize, u64)>>,
}

impl Shared<'_> {
    /// Runs schedule `run` to its end, a finding or a bound.
    fn run(&self, run: usize, seed: u64) -> RunEnd {
        let machine = self.machine;
        let mut rng = fastrand::Rng::with_seed(run_seed(seed, run));
        if let Some(trace) = self.trace {
            trace(Traced::Schedule(run));
        }
        let mut state = machine.initial();
        // The actions taken: a finding's schedule is replayed from them.
        let mut taken: Vec<Action> = Vec::new();
        let mut actions = Vec::new();
        // The digest of the actions taken (`Sampled`): the same build hashes
        // the same schedule the same way.
        let mut digest = DefaultHasher::new();
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
                return RunEnd::Finished(state.cost.clone(), digest.finish());
            }
            let action = actions[rng.usize(..actions.len())];
            if let Some(trace) = self.trace {
                trace(Traced::Step { number: taken.len() + 1, state: &state, action });
            }
            // No earlier state is kept: the step changes this one in place.
            machine.apply(&mut state, action);
            taken.push(action);
            action.hash(&mut digest);
            // A lower-numbered run's finding makes this one moot (it is not
            // recorded as ended).
            if self.stopped.load(Ordering::Relaxed) && self.found_before(run) {
                return RunEnd::Moot;
            }
        }
    }

    fn found_before(&self, run: usize) -> bool {
        self.found.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|(first, _)| *first < run)
    }

    /// Takes this shard's runs (of `runs`) one after the other until none
    /// is left or the search stopped.
    fn work(&self, runs: usize, seed: u64) {
        let mine = self.shard.runs_of(runs);
        loop {
            let k = self.next_run.fetch_add(1, Ordering::Relaxed);
            let run = self.shard.run(k);
            if k >= mine || (self.stopped.load(Ordering::Relaxed) && (self.found_before(run) || self.bounded())) {
                return;
            }
            match self.run(run, seed) {
                RunEnd::Finished(cost, digest) => {
                    self.cost.lock().unwrap_or_else(|e| e.into_inner()).record(&self.machine.program, &cost);
                    self.ended.lock().unwrap_or_else(|e| e.into_inner()).push((run, digest));
                }
                RunEnd::Moot => {}
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

/// Runs `shard`'s part of `runs` random schedules from `seed` on `threads`
/// threads (one with `trace`, which is told each schedule and each step as
/// it runs), stopping when one schedule reaches `max_states` steps or at
/// the memory bound.
pub fn random(
    machine: &Machine,
    runs: usize,
    seed: u64,
    shard: Shard,
    max_states: usize,
    trace: Option<Tracer<'_>>,
    threads: usize,
) -> Outcome {
    let shared = Shared {
        machine,
        shard,
        max_states,
        trace,
        next_run: AtomicUsize::new(0),
        steps: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
        found: Mutex::new(None),
        bound: Mutex::new(None),
        cost: Mutex::new(RunCost::default()),
        ended: Mutex::new(Vec::new()),
    };
    let threads = if trace.is_some() { 1 } else { threads.clamp(1, shard.runs_of(runs).max(1)) };
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
    let mut ended = shared.ended.into_inner().unwrap_or_else(|e| e.into_inner());
    ended.sort_unstable();
    let schedules = Some(Sampled { runs: ended });
    if let Some((run, actions)) = shared.found.into_inner().unwrap_or_else(|e| e.into_inner()) {
        let (schedule, last) = replay(machine, &actions);
        let finding = finding_of(machine, &last);
        let last = Box::new(last);
        return Outcome::Found { finding, schedule, last, states, run: Some(run), schedules, stats: None };
    }
    if let Some(bound) = shared.bound.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Outcome::Limit { states, generated: states, bound, stats: None };
    }
    let cost = shared.cost.into_inner().unwrap_or_else(|e| e.into_inner());
    Outcome::Clean { states, schedules, cost, stats: None }
}

/// Schedule `run` of `seed` on its own (the one `random` runs as that run),
/// up to `max_steps` actions: the actions taken and the state it ends in
/// (finished, at a finding, deadlocked, or cut at the bound). For holding
/// the random search to the reference semantics (`crate::crosscheck`).
pub fn schedule(machine: &Machine, seed: u64, run: usize, max_steps: usize) -> (Vec<Action>, State) {
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
