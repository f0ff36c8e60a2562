//! `run_pipeline` and `verify`: MLIR's parser, pass manager and printer, in
//! a session of their own, with the GIL released while they run.

use crate::objects::diagnostic_error;
use cclir::{Diagnostic, Error, Session};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Why a run failed, as owned values: the error's diagnostics and their
/// text as mlir-opt prints it (source lines and carets included).
pub struct Failure {
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
    /// A pipeline MLIR could not parse (a ValueError, not diagnostics).
    pub bad_pipeline: bool,
}

impl Failure {
    pub fn of(session: &Session, error: Error) -> Failure {
        let diagnostics = error.diagnostics().to_vec();
        let bad_pipeline = matches!(error, Error::Pipeline { .. });
        let text = if diagnostics.is_empty() { error.to_string() } else { session.render(&diagnostics) };
        Failure { text: text.trim_end().to_string(), diagnostics, bad_pipeline }
    }

    pub fn into_py(self, py: Python<'_>) -> PyErr {
        if self.bad_pipeline {
            PyValueError::new_err(self.text)
        } else {
            diagnostic_error(py, self.text, &self.diagnostics)
        }
    }
}

/// Parses `text` (locations name `filename`), runs `pipeline` on it
/// (`builtin.module(...)`, MLIR's textual form) and returns the result as
/// MLIR prints it.
///
/// Raises DiagnosticError when the input does not parse or verify or a pass
/// fails, ValueError for a pipeline MLIR cannot parse.
#[pyfunction]
#[pyo3(signature = (text, pipeline, *, filename = "<input>"))]
fn run_pipeline(py: Python<'_>, text: &str, pipeline: &str, filename: &str) -> PyResult<String> {
    let (text, pipeline, filename) = (text.to_string(), pipeline.to_string(), filename.to_string());
    let result = py.detach(move || {
        let session = Session::new();
        let run = || -> Result<String, Error> {
            let mut program = session.parse(&text, &filename)?;
            let pipeline = session.pipeline(&pipeline)?;
            session.run(&pipeline, &mut program)?;
            Ok(program.to_text())
        };
        run().map_err(|error| Failure::of(&session, error))
    });
    result.map_err(|failure| failure.into_py(py))
}

/// Runs the checker alone (ccl-verify-comm-order) on `text`: returns None
/// when the markers are proven sufficient.
///
/// Raises DiagnosticError with the checker's errors (each with a note at
/// the other end of the offending pair), or the parser's.
#[pyfunction]
#[pyo3(signature = (text, *, filename = "<input>"))]
fn verify(py: Python<'_>, text: &str, filename: &str) -> PyResult<()> {
    let (text, filename) = (text.to_string(), filename.to_string());
    let result = py.detach(move || {
        let session = Session::new();
        let run = || -> Result<(), Error> {
            let mut program = session.parse(&text, &filename)?;
            session.verify(&mut program)
        };
        run().map_err(|error| Failure::of(&session, error))
    });
    result.map_err(|failure| failure.into_py(py))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(run_pipeline, module)?)?;
    module.add_function(wrap_pyfunction!(verify, module)?)?;
    Ok(())
}
