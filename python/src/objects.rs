//! The values the package returns: diagnostics (and the `DiagnosticError`
//! that carries them), and a simulation's result with its race, schedule
//! and executed-marker counts. Plain frozen data copied out of the Rust
//! values once the work is done.

use cclir::diagnostics::SourceLoc;
use cclir::sim::summary::{AccessReport, RaceReport, StepKind, StepReport, Summary, ThreadRef};
use cclir::sim::{Cost, CostRange};
use pyo3::create_exception;
use pyo3::prelude::*;
use std::collections::BTreeMap;

create_exception!(
    cclir,
    DiagnosticError,
    pyo3::exceptions::PyException,
    "MLIR rejected the input or a pass failed; `.diagnostics` holds the Diagnostic objects, the message their text as mlir-opt prints it."
);

fn place(loc: &SourceLoc) -> (Option<String>, u32, u32) {
    match loc {
        SourceLoc::File { file, line, col } => (Some(file.clone()), *line, *col),
        SourceLoc::Unknown => (None, 0, 0),
    }
}

/// One diagnostic of MLIR's engine (parser, verifier, passes, the checker),
/// with its notes. `file` is None (line and column 0) at an unknown
/// location.
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
#[derive(Clone)]
pub struct Diagnostic {
    /// "error", "warning", "note" or "remark".
    pub severity: String,
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    pub fn from(diagnostic: &cclir::Diagnostic) -> Diagnostic {
        let (file, line, column) = place(&diagnostic.loc);
        Diagnostic {
            severity: diagnostic.severity.to_string(),
            file,
            line,
            column,
            message: diagnostic.message.clone(),
            notes: diagnostic.notes.iter().map(Diagnostic::from).collect(),
        }
    }

    fn location(&self) -> String {
        match &self.file {
            Some(file) => format!("{file}:{}:{}", self.line, self.column),
            None => "<unknown>:0".to_string(),
        }
    }
}

#[pymethods]
impl Diagnostic {
    /// `file:line:col: severity: message`, one line per note after it.
    fn __str__(&self) -> String {
        let mut text = format!("{}: {}: {}", self.location(), self.severity, self.message);
        for note in &self.notes {
            text.push('\n');
            text.push_str(&note.__str__());
        }
        text
    }

    fn __repr__(&self) -> String {
        format!("<Diagnostic {}: {}: {:?}>", self.location(), self.severity, self.message)
    }
}

/// The `DiagnosticError` for `diagnostics`, its message `text`.
pub fn diagnostic_error(py: Python<'_>, text: String, diagnostics: &[cclir::Diagnostic]) -> PyErr {
    let error = DiagnosticError::new_err(text);
    let values: Vec<Diagnostic> = diagnostics.iter().map(Diagnostic::from).collect();
    if let Err(failed) = values.into_pyobject(py).and_then(|list| error.value(py).setattr("diagnostics", list)) {
        return failed;
    }
    error
}

/// One access of a race: who (rank, and block or None for the host), what
/// op, where, and in which launch of which kernel.
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
#[derive(Clone)]
pub struct Access {
    pub rank: u16,
    pub block: Option<u16>,
    pub write: bool,
    pub op: String,
    /// The protocol step the op's location names (a lowered collective's).
    pub protocol_step: Option<String>,
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    pub kernel: Option<String>,
    pub launch: Option<u32>,
    /// The schedule step it ran in (1-based; 0 for the start).
    pub step: Option<usize>,
    /// As ccl-sim's note says it.
    pub text: String,
}

impl Access {
    fn from(access: &AccessReport) -> Access {
        let (file, line, column) = place(&access.loc);
        Access {
            rank: access.thread.rank,
            block: access.thread.block,
            write: access.write,
            op: access.op.clone(),
            protocol_step: access.protocol_step.clone(),
            file,
            line,
            column,
            kernel: access.kernel.as_ref().map(|(name, _)| name.clone()),
            launch: access.kernel.as_ref().map(|(_, launch)| *launch),
            step: access.in_step,
            text: access.text.clone(),
        }
    }
}

#[pymethods]
impl Access {
    fn __repr__(&self) -> String {
        format!("<Access {}>", self.text)
    }
}

/// A data race: "unordered" (no happens-before edge between the two) or
/// "stale-read" (the read missed a write that happens before it).
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
#[derive(Clone)]
pub struct Race {
    pub kind: String,
    /// The element: "element 1 of argument #1 of @main on rank 0".
    pub place: String,
    /// The earlier access (for a stale read, the write it missed).
    pub first: Access,
    /// The access that found the race.
    pub second: Access,
}

impl Race {
    fn from(race: &RaceReport) -> Race {
        let kind = match race.kind {
            cclir::sim::RaceKind::Unordered => "unordered",
            cclir::sim::RaceKind::StaleRead => "stale-read",
        };
        Race {
            kind: kind.to_string(),
            place: race.place.clone(),
            first: Access::from(&race.first),
            second: Access::from(&race.second),
        }
    }
}

#[pymethods]
impl Race {
    fn __repr__(&self) -> String {
        format!("<Race {} of {}>", self.kind, self.place)
    }
}

/// One step of a reported schedule.
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
#[derive(Clone)]
pub struct Step {
    /// 1-based, as ccl-sim numbers them.
    pub number: usize,
    /// "step" (a thread's observable step), "land" (an in-flight write
    /// lands) or "collective" (every host).
    pub kind: String,
    /// (rank, block) of each thread that took it; block None is the host.
    pub threads: Vec<(u16, Option<u16>)>,
    pub op: Option<String>,
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    /// As ccl-sim prints the step.
    pub text: String,
}

impl Step {
    fn from(step: &StepReport) -> Step {
        let (file, line, column) = step.loc.as_ref().map_or((None, 0, 0), place);
        let kind = match step.kind {
            StepKind::Step => "step",
            StepKind::Land => "land",
            StepKind::Collective => "collective",
        };
        Step {
            number: step.number,
            kind: kind.to_string(),
            threads: step.threads.iter().map(|ThreadRef { rank, block }| (*rank, *block)).collect(),
            op: step.op.clone(),
            file,
            line,
            column,
            text: step.text.clone(),
        }
    }
}

#[pymethods]
impl Step {
    fn __repr__(&self) -> String {
        format!("<Step {}. {}>", self.number, self.text)
    }
}

/// What one kernel (or the entry's host code) executed on one schedule.
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
#[derive(Clone)]
pub struct MarkerCounts {
    pub launches: u64,
    pub fences: u64,
    pub region_invalidates: u64,
    pub whole_invalidates: u64,
    pub lines_written_back: u64,
    /// Fences and invalidates of both kinds.
    pub markers: u64,
}

impl MarkerCounts {
    fn from(cost: &Cost) -> MarkerCounts {
        MarkerCounts {
            launches: cost.launches,
            fences: cost.fences,
            region_invalidates: cost.region_invalidates,
            whole_invalidates: cost.whole_invalidates,
            lines_written_back: cost.lines_written_back,
            markers: cost.markers(),
        }
    }
}

#[pymethods]
impl MarkerCounts {
    fn __repr__(&self) -> String {
        format!(
            "<MarkerCounts launches={} fences={} region_invalidates={} whole_invalidates={} lines_written_back={}>",
            self.launches, self.fences, self.region_invalidates, self.whole_invalidates, self.lines_written_back
        )
    }
}

/// The least and the most of each count over the schedules explored.
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
#[derive(Clone)]
pub struct Executed {
    pub min: MarkerCounts,
    pub max: MarkerCounts,
}

impl Executed {
    fn from(range: &CostRange) -> Executed {
        Executed { min: MarkerCounts::from(&range.min), max: MarkerCounts::from(&range.max) }
    }
}

#[pymethods]
impl Executed {
    fn __repr__(&self) -> String {
        format!("<Executed min={} max={}>", self.min.__repr__(), self.max.__repr__())
    }
}

/// What `simulate` found.
#[pyclass(frozen, get_all, skip_from_py_object, module = "cclir")]
pub struct SimulationResult {
    /// "clean", "race", "deadlock", "runtime-error" or "no-conclusion".
    pub verdict: String,
    /// ccl-sim's exit code for the verdict (0, 3 or 1).
    pub exit_code: u8,
    /// Distinct states (exhaustive) or states stepped through (random).
    pub states: usize,
    /// Random schedules run to their end; None for the exhaustive search
    /// and for a finding.
    pub schedules: Option<usize>,
    /// Each random schedule that ran to its end (before a finding too), by
    /// number from 0: a digest of the actions it took. The shards of a
    /// search together have the whole search's.
    pub schedule_digests: BTreeMap<usize, u64>,
    /// The number (from 0) of the random schedule that found the finding.
    pub run: Option<usize>,
    /// The finding (or the bound reached) as ccl-sim reports it.
    pub diagnostic: Option<Diagnostic>,
    pub race: Option<Race>,
    pub schedule: Vec<Step>,
    /// What a clean run executed in all, and per kernel (the entry's host
    /// code under the entry's name); None unless the verdict is "clean".
    pub executed: Option<Executed>,
    pub executed_by_kernel: BTreeMap<String, Executed>,
}

impl SimulationResult {
    pub fn from(summary: &Summary) -> SimulationResult {
        let cost = summary.cost.as_ref();
        SimulationResult {
            verdict: summary.verdict.name().to_string(),
            exit_code: summary.verdict.exit_code(),
            states: summary.states,
            schedules: summary.schedules,
            schedule_digests: summary.digests.iter().copied().collect(),
            run: summary.run,
            diagnostic: summary.diagnostic.as_ref().map(Diagnostic::from),
            race: summary.race.as_ref().map(Race::from),
            schedule: summary.schedule.iter().map(Step::from).collect(),
            executed: cost.and_then(|c| c.total.as_ref()).map(Executed::from),
            executed_by_kernel: cost
                .map(|c| c.kernels.iter().map(|(name, range)| (name.clone(), Executed::from(range))).collect())
                .unwrap_or_default(),
        }
    }
}

#[pymethods]
impl SimulationResult {
    fn __repr__(&self) -> String {
        format!("<SimulationResult {} after {} states>", self.verdict, self.states)
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("DiagnosticError", module.py().get_type::<DiagnosticError>())?;
    module.add_class::<Diagnostic>()?;
    module.add_class::<Access>()?;
    module.add_class::<Race>()?;
    module.add_class::<Step>()?;
    module.add_class::<MarkerCounts>()?;
    module.add_class::<Executed>()?;
    module.add_class::<SimulationResult>()?;
    Ok(())
}
