//! `simulate`: ccl-sim's search on a program's text, with the GIL released
//! while it runs; the result as data (`objects::SimulationResult`).

use crate::objects::SimulationResult;
use crate::pipeline::Failure;
use cclir::sim::options::{self, DefaultValue, Setting, Syntax};
use cclir::sim::{self, summary, Options};
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

/// The settings the keyword arguments give, each with its value as text,
/// as the command line gives them: `None` and `False` give nothing, `True`
/// gives a flag, a mapping gives one `KEY=VALUE` per item.
fn given(ranks: &Bound<'_, PyAny>, keywords: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(&'static Setting, String)>> {
    let ranks_setting = options::setting("ranks").expect("ranks is a setting");
    let mut given = vec![(ranks_setting, arg_text(ranks)?)];
    for (key, value) in keywords.into_iter().flat_map(|dict| dict.iter()) {
        let keyword = key.str()?.to_string();
        let Some(setting) = options::SETTINGS
            .iter()
            .find(|s| s.python && s.default != DefaultValue::Required && s.keyword() == keyword)
        else {
            return Err(PyTypeError::new_err(format!("simulate() got an unexpected keyword argument '{keyword}'")));
        };
        if value.is_none() {
            continue;
        }
        match setting.syntax {
            Syntax::Flag if value.extract::<bool>()? => given.push((setting, "true".to_string())),
            Syntax::Flag => {}
            Syntax::Value { .. } => given.push((setting, arg_text(&value)?)),
            Syntax::Pairs { .. } => {
                for (key, value) in value.cast::<PyDict>()?.iter() {
                    given.push((setting, format!("{}={}", key.str()?, arg_text(&value)?)));
                }
            }
        }
    }
    Ok(given)
}

/// Runs ccl-sim on `text` over `ranks` ranks and returns what it found.
///
/// The keyword arguments are ccl-sim's settings (`ccl-sim --help`), by
/// their Python names (`max_states=1000`, `random=50, seed=3`,
/// `args={"rows": 1024}`), with the same defaults: the search is every
/// schedule unless `random` asks for seeded random ones; it stops with the
/// verdict "no-conclusion" after `max_states` states (exhaustive) or steps
/// (random), `max_steps` local steps of one thread, or `max_memory` bytes.
///
/// Raises DiagnosticError when the text does not parse or uses what ccl-sim
/// does not model, ValueError for bad settings, TypeError for an unknown
/// keyword.
#[pyfunction]
#[pyo3(signature = (text, ranks, *, filename = "<input>", **settings))]
fn simulate(
    py: Python<'_>,
    text: &str,
    ranks: &Bound<'_, PyAny>,
    filename: &str,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<SimulationResult> {
    let given = given(ranks, settings)?;
    let mut options = Options::from_settings(&given, |setting| setting.keyword())
        .map_err(|message| PyValueError::new_err(format!("simulate: {message}")))?;
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

/// The keyword arguments of `simulate` after `text` and `ranks`, with
/// their defaults as Python literals: what its stub must declare.
#[pyfunction]
fn simulate_keywords() -> Vec<String> {
    options::python_stub()
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(simulate, module)?)?;
    module.add_function(wrap_pyfunction!(simulate_keywords, module)?)?;
    Ok(())
}
