//! `simulate`: ccl-sim's search on a program's text, with the GIL released
//! while it runs; the result as data (`objects::SimulationResult`).

use crate::objects::SimulationResult;
use crate::pipeline::Failure;
use cclir::sim::{self, summary, EntryArg, Options, Search};
use cclir::{Diagnostic, Session, Severity};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

/// An entry argument's value as ccl-sim's `--arg` reads it.
fn arg_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyBool>() {
        Ok(if value.extract::<bool>()? { "true" } else { "false" }.to_string())
    } else if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyString>()
    {
        Ok(value.str()?.to_string())
    } else {
        Err(PyTypeError::new_err(format!(
            "simulate: an entry argument must be an int, float, bool or str, got {}",
            value.get_type().name()?
        )))
    }
}

/// Runs ccl-sim on `text` over `ranks` ranks and returns what it found.
///
/// The search is every schedule (`exhaustive`, the default) or `random`
/// seeded random schedules from `seed`; it stops with the verdict
/// "no-conclusion" after `max_states` states (exhaustive) or steps
/// (random), `max_steps` local steps of one thread, or `max_memory` bytes.
/// `entry` names the function every rank runs; `args` sets its scalar
/// arguments by name or position (`{"rows": 1024}`).
///
/// Raises DiagnosticError when the text does not parse or uses what ccl-sim
/// does not model, ValueError for bad options.
#[pyfunction]
#[pyo3(signature = (
    text, ranks, *, exhaustive = true, random = None, seed = 0, max_states = 2_000_000, max_steps = 1_000_000,
    max_memory = None, entry = None, args = None, filename = "<input>"
))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    text: &str,
    ranks: u16,
    exhaustive: bool,
    random: Option<usize>,
    seed: u64,
    max_states: usize,
    max_steps: u64,
    max_memory: Option<u64>,
    entry: Option<String>,
    args: Option<&Bound<'_, PyDict>>,
    filename: &str,
) -> PyResult<SimulationResult> {
    if ranks == 0 || ranks > 64 {
        return Err(PyValueError::new_err(format!("simulate: ranks must be between 1 and 64, not {ranks}")));
    }
    let search = match random {
        Some(0) => return Err(PyValueError::new_err("simulate: random needs at least one schedule")),
        Some(runs) => Search::Random { runs, seed },
        None if exhaustive => Search::Exhaustive,
        None => return Err(PyValueError::new_err("simulate: exhaustive=False needs random=N schedules")),
    };
    let mut options = Options { ranks, search, max_states, ..Options::default() };
    options.entry = entry.map(|name| name.trim_start_matches('@').to_string());
    options.limits.max_steps = max_steps;
    if let Some(bytes) = max_memory {
        options.limits.max_memory = bytes;
    }
    for (key, value) in args.into_iter().flat_map(|dict| dict.iter()) {
        options.args.push(EntryArg { key: key.str()?.to_string(), value: arg_text(&value)? });
    }
    let (text, filename) = (text.to_string(), filename.to_string());
    let result = py.detach(move || {
        let session = Session::new();
        let program = session.parse(&text, &filename).map_err(|error| Failure::of(&session, error))?;
        options.source = Some(text.into());
        let (machine, outcome) = sim::simulate(program.operation_ref(), &options).map_err(|error| {
            let text = error.to_string();
            let diagnostic =
                Diagnostic { severity: Severity::Error, loc: error.loc, message: error.message, notes: Vec::new() };
            Failure { text, diagnostics: vec![diagnostic], bad_pipeline: false }
        })?;
        // A replay of the schedule places the race's accesses in it.
        let trace = match &outcome {
            sim::Outcome::Found { schedule, .. } => Some(sim::trace::replay(&machine, schedule).0),
            _ => None,
        };
        Ok::<_, Failure>(summary::summarize(&machine, &outcome, trace.as_ref()))
    });
    match result {
        Ok(summary) => Ok(SimulationResult::from(&summary)),
        Err(failure) => Err(failure.into_py(py)),
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(simulate, module)?)?;
    Ok(())
}
