//! Seeded random schedules, for programs too large to explore: each run
//! takes a random enabled action at every state until the schedule ends or
//! finds something.

use super::{finding_of, Bound, Outcome, Step};
use crate::sim::cost::RunCost;
use crate::sim::machine::Machine;
use crate::sim::memory;

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
                return Outcome::Found { finding, schedule: taken, last: Box::new(state), states, stats: None };
            }
            if states >= max_states {
                return Outcome::Limit { states, generated: states, bound: Bound::States(max_states), stats: None };
            }
            let held = memory::in_use();
            if held > machine.limits.max_memory {
                let bound = Bound::Memory { max: machine.limits.max_memory, held };
                return Outcome::Limit { states, generated: states, bound, stats: None };
            }
            actions.clear();
            machine.actions(&state, &mut actions);
            if actions.is_empty() {
                cost.record(&machine.program, &state.cost);
                break;
            }
            let action = actions[rng.usize(..actions.len())];
            let text = crate::sim::report::step(machine, &state, action);
            if trace {
                eprintln!("  {:>4}. {text}", taken.len() + 1);
            }
            // No earlier state is kept: the step changes this one in place.
            machine.apply(&mut state, action);
            taken.push(Step { action, text });
        }
    }
    Outcome::Clean { states, schedules: Some(runs), cost, stats: None }
}
