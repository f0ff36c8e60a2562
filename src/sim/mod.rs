//! `ccl-sim`: an executable model of ccl programs over P ranks that finds
//! the data races the markers exist to prevent (docs/ccl-sim.md).
//!
//! `compile` turns the MLIR module into the simulator's program, `machine`
//! is the execution model (caches, in-flight writes, signals, vector clocks,
//! race detection), `explore` chooses schedules (stateright's exhaustive
//! search, or seeded random ones) and `report` prints what was found.

pub mod compile;
pub mod explore;
pub mod machine;
pub mod program;
pub mod report;
pub mod value;

pub use compile::{compile, InputError};
pub use explore::Outcome;
pub use machine::{Finding, Machine, RaceKind};

use std::sync::Arc;

/// How to search.
#[derive(Clone, Debug)]
pub enum Search {
    Exhaustive,
    Random { runs: usize, seed: u64 },
}

/// Options of one simulation.
#[derive(Clone, Debug)]
pub struct Options {
    pub ranks: u16,
    pub entry: Option<String>,
    pub search: Search,
    pub max_states: usize,
    /// Every ccl op its own scheduling point (for measuring the reduction).
    pub no_reduction: bool,
    /// Print each random schedule's steps as they run.
    pub trace: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ranks: 2,
            entry: None,
            search: Search::Exhaustive,
            max_states: 2_000_000,
            no_reduction: false,
            trace: false,
        }
    }
}

/// Compiles `module` and explores it.
pub fn simulate(module: melior::ir::OperationRef<'_, '_>, options: &Options) -> Result<(Machine, Outcome), InputError> {
    let program = compile(module, options.entry.as_deref())?;
    let machine = Machine::new(Arc::new(program), options.ranks, options.no_reduction);
    let outcome = match options.search {
        Search::Exhaustive => explore::exhaustive(machine.clone(), options.max_states),
        Search::Random { runs, seed } => explore::random(&machine, runs, seed, options.max_states, options.trace),
    };
    Ok((machine, outcome))
}
