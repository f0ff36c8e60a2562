//! The core of `ccl-sim`, without MLIR: an executable model of ccl
//! programs over P ranks that finds the data races the markers exist to
//! prevent (docs/ccl-sim.md).
//!
//! `program` is the flat program the model runs (the root package's
//! `cclir::sim::compile` makes it from an MLIR module), `machine` is the
//! execution model (caches, in-flight writes, signals, vector clocks, race
//! detection), `explore` chooses schedules (an exhaustive search with
//! partial-order reduction, or seeded random ones) and `report`, `summary`,
//! `trace`, `sarif` and `diagram` say what was found. `reference` is the
//! execution model read literally, with no reduction, that every search is
//! held to (`crosscheck`); `analysis` holds the static facts the machine's
//! reductions rest on.
#![forbid(unsafe_code)]

pub mod analysis;
pub mod cost;
pub mod crosscheck;
pub mod diagram;
pub mod explore;
pub mod machine;
pub mod memory;
pub mod ops;
pub mod options;
pub mod program;
pub mod reference;
pub mod report;
pub mod sarif;
pub mod shared;
pub mod summary;
pub mod trace;
pub mod value;
pub mod views;

pub use cost::{Cost, CostRange, RunCost};
pub use explore::{Bound, Engine, Outcome, Sampled, SearchConfig, SearchStats, Shard, Step, Store};
pub use machine::{Finding, Limits, Machine, RaceKind};
pub use options::{available_threads, EntryArg, Options, Search};

use cclir_support::SourceLoc;
use program::{Program, Scalar, Ty};
use std::sync::Arc;
use value::Val;

/// A located error about the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub loc: SourceLoc,
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: error: {}", self.loc, self.message)
    }
}

/// The reference semantics of `program` with the entry's arguments and
/// ranks of `options`, explored up to `options.max_states` distinct states
/// (to the first finding: `stop_at_first`).
pub fn run_reference(
    program: Program,
    options: &Options,
    stop_at_first: bool,
) -> Result<(reference::Reference, reference::Exploration), InputError> {
    let machine = machine_for(program, options)?;
    let mut reference = reference::Reference::new(machine.program.clone(), options.ranks, machine.entry_args.clone());
    reference.max_local_steps = options.limits.max_steps;
    let exploration = reference::explore(&reference, options.max_states, stop_at_first);
    Ok((reference, exploration))
}

/// Explores `program` (its entry's arguments and the search from
/// `options`; `entry` and `source` were the front end's).
pub fn run(program: Program, options: &Options) -> Result<(Machine, Outcome), InputError> {
    let machine = machine_for(program, options)?;
    let (mut machine, outcome) = search(machine, options);
    // Waits taken as soon as they hold lost schedules on some path: the
    // search is run again without the rule (docs/ccl-sim.md).
    if machine.early_waits_broken.load(std::sync::atomic::Ordering::Relaxed) {
        machine.early_waits = false;
        return Ok(search(machine, options));
    }
    Ok((machine, outcome))
}

/// One search of `machine` as `options` ask.
fn search(mut machine: Machine, options: &Options) -> (Machine, Outcome) {
    let outcome = match options.search {
        Search::Exhaustive => {
            // A swarm member's order: the seed and the shard, mixed.
            let swarm = options.swarm.then(|| explore::swarm_seed(options.seed, options.shard));
            let config = SearchConfig { max_states: options.max_states, swarm, ..options.search_config };
            // The dynamic reduction schedules wake-ups as steps of their
            // own; its schedules are replayed (reports, traces) the same way.
            machine.eager_wakeups = config.engine != Engine::Dpor;
            explore::exhaustive(machine.clone(), &config)
        }
        Search::Random { runs, seed } => {
            // `--trace`: each schedule and step on standard error as it runs.
            let show = |traced: explore::Traced| match traced {
                explore::Traced::Schedule(run) => eprintln!("schedule {}:", run + 1),
                explore::Traced::Step { number, state, action } => {
                    eprintln!("  {number:>4}. {}", report::step(&machine, state, action))
                }
            };
            let trace: Option<explore::Tracer> = options.trace.then_some(&show);
            explore::random(
                &machine,
                runs,
                seed,
                options.shard,
                options.max_states,
                trace,
                options.search_config.threads,
            )
        }
    };
    (machine, outcome)
}

/// The machine of `program` with the ranks, limits and entry arguments of
/// `options`, if its threads fit.
fn machine_for(program: Program, options: &Options) -> Result<Machine, InputError> {
    let at = |site: Option<program::SiteId>| match site {
        Some(site) => program.site(site).loc.clone(),
        None => program.site(program.funcs[program.entry as usize].site).loc.clone(),
    };
    let threads = Machine::threads_needed(&program, options.ranks);
    if threads > machine::MAX_THREADS {
        return Err(InputError {
            loc: at(program.widest),
            message: format!(
                "a launch of {} blocks on {} ranks needs {threads} threads (ranks x (blocks + 1)): ccl-sim runs at \
                 most {}: no conclusion",
                program.slots,
                options.ranks,
                machine::MAX_THREADS
            ),
        });
    }
    let entry_args =
        entry_arguments(&program, &options.args).map_err(|message| InputError { loc: at(None), message })?;
    let mut machine = Machine::new(Arc::new(program), options.ranks, options.no_reduction);
    machine.limits = options.limits;
    machine.entry_args = entry_args;
    Ok(machine)
}

/// The values `args` give the entry's parameters, by position.
fn entry_arguments(program: &Program, args: &[EntryArg]) -> Result<Vec<Option<Val>>, String> {
    let entry = &program.funcs[program.entry as usize];
    let mut values: Vec<Option<Val>> = vec![None; entry.param_types.len()];
    let name_of = |n: usize| match program.entry_arg_names.get(n).cloned().flatten() {
        Some(name) => format!("%{name}"),
        None => format!("#{n}"),
    };
    for arg in args {
        let key = arg.key.trim_start_matches('%');
        let position = match key.parse::<usize>() {
            Ok(n) if n < values.len() => n,
            Ok(_) => {
                return Err(format!(
                    "--arg {}: @{} takes {} arguments (positions 0 to {})",
                    arg.key,
                    entry.name,
                    values.len(),
                    values.len().saturating_sub(1)
                ))
            }
            Err(_) => match program.entry_arg_names.iter().position(|name| name.as_deref() == Some(key)) {
                Some(n) => n,
                None if program.entry_arg_names.is_empty() => {
                    return Err(format!(
                        "--arg {}: the argument names of @{} are unknown here (no source text): give its position",
                        arg.key, entry.name
                    ))
                }
                None => {
                    let names: Vec<String> = (0..values.len()).map(name_of).collect();
                    return Err(format!(
                        "--arg {}: @{} has no argument %{key} (it has {})",
                        arg.key,
                        entry.name,
                        names.join(", ")
                    ));
                }
            },
        };
        let what = format!("--arg {}={} (argument {} of @{})", arg.key, arg.value, name_of(position), entry.name);
        let value = match &entry.param_types[position] {
            Ty::Scalar(scalar) => scalar_value(*scalar, &arg.value).map_err(|why| format!("{what}: {why}"))?,
            _ => {
                return Err(format!("{what}: only scalar arguments can be set; memrefs are allocated from their types"))
            }
        };
        if values[position].replace(value).is_some() {
            return Err(format!("{what}: the argument is set twice"));
        }
    }
    Ok(values)
}

/// `text` as a value of `scalar`.
fn scalar_value(scalar: Scalar, text: &str) -> Result<Val, String> {
    match scalar {
        Scalar::Int(bits) => {
            let value: i128 = match text {
                "true" if bits == 1 => 1,
                "false" if bits == 1 => 0,
                _ => text.parse().map_err(|_| format!("'{text}' is not an integer"))?,
            };
            // Signed or unsigned spellings of an i{bits} value.
            let low = -(1i128 << (bits - 1));
            let high = (1i128 << bits) - 1;
            if value < low || value > high {
                return Err(format!("{value} does not fit i{bits}"));
            }
            Ok(Val::Int(value::wrap(value as i64, bits)))
        }
        Scalar::Float(_) => text.parse::<f64>().map(Val::float).map_err(|_| format!("'{text}' is not a number")),
    }
}
