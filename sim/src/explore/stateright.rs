//! stateright's breadth-first checker over the same transitions: no
//! partial-order reduction, its own visited set (fingerprints with parent
//! links) and a frontier of whole states. ccl-sim's own search (`dfs`)
//! replaced it; it stays selectable (`--engine stateright`) so the two can
//! be measured on the same inputs (docs/benchmarks.md).

use super::{finding_of, Bound, Engine, Outcome, SearchStats, Step};
use crate::cost::RunCost;
use crate::machine::{Action, Machine, State};
use crate::memory;
use stateright::{Checker, Model, Property};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

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

/// Explores every schedule breadth-first, stopping after `max_states`
/// generated states or at the memory bound.
pub fn search(machine: Machine, max_states: usize) -> Outcome {
    let started = std::time::Instant::now();
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
    let generated = checker.model().generated.load(Ordering::Relaxed);
    let stats = Some(SearchStats {
        stored: states,
        generated,
        // stateright counts the states of its longest path, the report steps.
        max_depth: checker.max_depth().saturating_sub(1),
        threads: 1,
        seconds: started.elapsed().as_secs_f64(),
        engine: Engine::Stateright,
        ..SearchStats::default()
    });
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
        return Outcome::Found { finding, schedule, last: Box::new(last), states, run: None, schedules: None, stats };
    }
    let model = checker.model();
    if let Some(bound) = *model.bound.lock().unwrap_or_else(|e| e.into_inner()) {
        return Outcome::Limit { states, generated, bound, stats };
    }
    let cost = model.cost.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Outcome::Clean { states, schedules: None, cost, stats }
}
