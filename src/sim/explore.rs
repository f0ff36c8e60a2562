//! Choosing schedules: every interleaving of observable steps with
//! stateright's breadth-first checker (its visited set merges schedules that
//! reach the same state, and its path is the counterexample), or seeded
//! random schedules for programs too large for that.
//!
//! Both searches check their bounds on every state they make: `--max-states`
//! counts the states generated, `--max-memory` the bytes the process holds
//! (`memory::in_use`). Reaching either ends the search with no conclusion.

use super::cost::RunCost;
use super::machine::{Action, Finding, Machine, State};
use super::memory;
use super::program::SiteId;
use stateright::{Checker, Model, Property};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What a search found.
#[derive(Debug)]
pub enum Outcome {
    /// Every schedule (exhaustive) or every sampled schedule ran to its end
    /// without a finding; `cost` is what they executed.
    Clean { states: usize, schedules: Option<usize>, cost: RunCost },
    /// A race, deadlock, runtime error or located limit, with the schedule
    /// that led there and the state it ended in.
    Found { finding: Arc<Finding>, schedule: Vec<Step>, last: Box<State>, states: usize },
    /// A bound of the whole search was reached first: nothing can be
    /// concluded.
    Limit { states: usize, generated: usize, bound: Bound },
}

/// One step of a reported schedule: the action, the op it took and what it
/// did as the report prints it (read from the state it was taken in, which
/// is not kept).
#[derive(Clone, Debug)]
pub struct Step {
    pub action: Action,
    pub site: Option<SiteId>,
    pub text: String,
}

impl Step {
    fn taken(machine: &Machine, state: &State, action: Action) -> Step {
        let site = super::report::step_site(machine, state, action);
        Step { action, site, text: super::report::step(machine, state, action) }
    }
}

/// The bound a search stopped at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `--max-states`.
    States(usize),
    /// `--max-memory`, with the bytes held when it was reached.
    Memory { max: u64, held: u64 },
}

/// The one property checked: every state is free of findings.
const NO_FINDING: &str = "no race, deadlock or error";

struct SimModel {
    machine: Machine,
    max_states: usize,
    generated: AtomicUsize,
    stopped: AtomicBool,
    bound: Mutex<Option<Bound>>,
    cost: Mutex<RunCost>,
}

impl SimModel {
    /// Counts a state about to be made; `false` once a bound is reached.
    fn admit(&self) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return false;
        }
        let generated = self.generated.fetch_add(1, Ordering::Relaxed) + 1;
        let held = memory::in_use();
        let bound = if generated > self.max_states {
            Bound::States(self.max_states)
        } else if held > self.machine.limits.max_memory {
            Bound::Memory { max: self.machine.limits.max_memory, held }
        } else {
            return true;
        };
        self.stopped.store(true, Ordering::Relaxed);
        self.bound.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(bound);
        false
    }

    /// A schedule that reached its end: its counts join the run's.
    fn record_if_finished(&self, state: &State) {
        if state.finding.is_none() && self.machine.finished(state) {
            self.cost.lock().unwrap_or_else(|e| e.into_inner()).record(&self.machine.program, &state.cost);
        }
    }
}

impl Model for SimModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        let initial = self.machine.initial();
        self.record_if_finished(&initial);
        vec![initial]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        // Past a bound, the queued states are drained without successors.
        if !self.stopped.load(Ordering::Relaxed) {
            self.machine.actions(state, actions)
        }
    }

    fn next_state(&self, state: &State, action: Action) -> Option<State> {
        if !self.admit() {
            return None;
        }
        let next = self.machine.next(state, action);
        self.record_if_finished(&next);
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always(NO_FINDING, |model: &SimModel, state: &State| {
            state.finding.is_none() && !model.machine.deadlocked(state)
        })]
    }
}

fn finding_of(machine: &Machine, state: &State) -> Arc<Finding> {
    match &state.finding {
        Some(finding) => finding.clone(),
        None if machine.deadlocked(state) => Arc::new(Finding::Deadlock),
        None => unreachable!("a discovery has a finding or a deadlock"),
    }
}

/// Explores every schedule, stopping after `max_states` generated states
/// or at the memory bound.
pub fn exhaustive(machine: Machine, max_states: usize) -> Outcome {
    let model = SimModel {
        machine: machine.clone(),
        max_states: max_states.max(1),
        generated: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
        bound: Mutex::new(None),
        cost: Mutex::new(RunCost::default()),
    };
    let checker = model.checker().spawn_bfs().join();
    let states = checker.unique_state_count();
    // A finding is conclusive even if a bound stopped the rest.
    if let Some(path) = checker.discovery(NO_FINDING) {
        let mut steps = path.into_vec();
        let (last, _) = steps.pop().expect("a path has a state");
        let schedule = steps
            .into_iter()
            .map(|(state, action)| {
                let action = action.expect("an action between states");
                Step::taken(&machine, &state, action)
            })
            .collect();
        let finding = finding_of(&machine, &last);
        return Outcome::Found { finding, schedule, last: Box::new(last), states };
    }
    let model = checker.model();
    let generated = model.generated.load(Ordering::Relaxed);
    if let Some(bound) = *model.bound.lock().unwrap_or_else(|e| e.into_inner()) {
        return Outcome::Limit { states, generated, bound };
    }
    let cost = model.cost.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Outcome::Clean { states, schedules: None, cost }
}

/// Runs `runs` random schedules from `seed`, stopping after `max_states`
/// steps in all or at the memory bound.
/// With `trace`, each step of each schedule is printed to stderr as it runs.
pub fn random(machine: &Machine, runs: usize, seed: u64, max_states: usize, trace: bool) -> Outcome {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut states = 0usize;
    let mut actions = Vec::new();
    let mut cost = RunCost::default();
    for run in 0..runs {
        if trace {
            eprintln!("schedule {}:", run + 1);
        }
        let mut state = machine.initial();
        // What each step did, for the report: the states are not kept.
        let mut taken: Vec<Step> = Vec::new();
        loop {
            states += 1;
            if state.finding.is_some() || machine.deadlocked(&state) {
                let finding = finding_of(machine, &state);
                return Outcome::Found { finding, schedule: taken, last: Box::new(state), states };
            }
            if states >= max_states {
                return Outcome::Limit { states, generated: states, bound: Bound::States(max_states) };
            }
            let held = memory::in_use();
            if held > machine.limits.max_memory {
                let bound = Bound::Memory { max: machine.limits.max_memory, held };
                return Outcome::Limit { states, generated: states, bound };
            }
            actions.clear();
            machine.actions(&state, &mut actions);
            if actions.is_empty() {
                cost.record(&machine.program, &state.cost);
                break;
            }
            let action = actions[rng.usize(..actions.len())];
            let step = Step::taken(machine, &state, action);
            if trace {
                eprintln!("  {:>4}. {}", taken.len() + 1, step.text);
            }
            // No earlier state is kept: the step changes this one in place.
            machine.apply(&mut state, action);
            taken.push(step);
        }
    }
    Outcome::Clean { states, schedules: Some(runs), cost }
}
