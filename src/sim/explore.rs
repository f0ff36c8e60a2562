//! Choosing schedules: every interleaving of observable steps with
//! stateright's breadth-first checker (its visited set merges schedules that
//! reach the same state, and its path is the counterexample), or seeded
//! random schedules for programs too large for that.

use super::machine::{Action, Finding, Machine, State};
use stateright::{Checker, Model, Property};
use std::sync::Arc;

/// What a search found.
#[derive(Debug)]
pub enum Outcome {
    /// Every schedule (exhaustive) or every sampled schedule ran to its end
    /// without a finding.
    Clean { states: usize, schedules: Option<usize> },
    /// A race, deadlock or runtime error, with the schedule that led there:
    /// each action with the state it was taken in, then the final state.
    Found { finding: Arc<Finding>, schedule: Vec<(State, Action)>, last: Box<State>, states: usize },
    /// The bound was reached first: nothing can be concluded.
    Limit { states: usize, generated: usize },
}

/// The one property checked: every state is free of findings.
const NO_FINDING: &str = "no race, deadlock or error";

struct SimModel {
    machine: Machine,
}

impl Model for SimModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![self.machine.initial()]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        self.machine.actions(state, actions)
    }

    fn next_state(&self, state: &State, action: Action) -> Option<State> {
        Some(self.machine.next(state, action))
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

/// Explores every schedule, stopping after `max_states` generated states.
pub fn exhaustive(machine: Machine, max_states: usize) -> Outcome {
    let checker =
        SimModel { machine: machine.clone() }.checker().target_state_count(max_states.max(1)).spawn_bfs().join();
    let states = checker.unique_state_count();
    if let Some(path) = checker.discovery(NO_FINDING) {
        let mut steps = path.into_vec();
        let (last, _) = steps.pop().expect("a path has a state");
        let schedule = steps.into_iter().map(|(s, a)| (s, a.expect("an action between states"))).collect();
        let finding = finding_of(&machine, &last);
        return Outcome::Found { finding, schedule, last: Box::new(last), states };
    }
    if checker.state_count() >= max_states {
        return Outcome::Limit { states, generated: checker.state_count() };
    }
    Outcome::Clean { states, schedules: None }
}

/// Runs `runs` random schedules from `seed`, stopping after `max_states`
/// steps in all.
/// With `trace`, each step of each schedule is printed to stderr as it runs.
pub fn random(machine: &Machine, runs: usize, seed: u64, max_states: usize, trace: bool) -> Outcome {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut states = 0usize;
    let mut actions = Vec::new();
    for run in 0..runs {
        if trace {
            eprintln!("schedule {}:", run + 1);
        }
        let mut state = machine.initial();
        // Actions only: the states of a schedule are replayed if it is the
        // one reported.
        let mut taken: Vec<Action> = Vec::new();
        loop {
            states += 1;
            if state.finding.is_some() || machine.deadlocked(&state) {
                let finding = finding_of(machine, &state);
                return Outcome::Found { finding, schedule: replay(machine, &taken), last: Box::new(state), states };
            }
            if states >= max_states {
                return Outcome::Limit { states, generated: states };
            }
            actions.clear();
            machine.actions(&state, &mut actions);
            if actions.is_empty() {
                break;
            }
            let action = actions[rng.usize(..actions.len())];
            if trace {
                eprintln!("  {:>4}. {}", taken.len() + 1, super::report::step(machine, &state, action));
            }
            state = machine.next(&state, action);
            taken.push(action);
        }
    }
    Outcome::Clean { states, schedules: Some(runs) }
}

fn replay(machine: &Machine, actions: &[Action]) -> Vec<(State, Action)> {
    let mut state = machine.initial();
    let mut schedule = Vec::with_capacity(actions.len());
    for action in actions {
        let next = machine.next(&state, *action);
        schedule.push((state, *action));
        state = next;
    }
    schedule
}
