//! `ccl-opt --sarif=FILE`: the hooks through which the C++ main hands over
//! each diagnostic of the run ([`record`], as a [`Diagnostic`] with its
//! notes) and asks for the log at the end ([`write_sarif`]). The log itself
//! is `crate::sarif`'s.

use crate::diagnostics::Diagnostic;
use crate::sarif::{self, Invocation, Log};
use std::sync::Mutex;

/// The run's diagnostics, in the order MLIR reported them (a process runs
/// one ccl-opt main).
static RECORDED: Mutex<Vec<Diagnostic>> = Mutex::new(Vec::new());

/// Keeps `diagnostic` for the log.
pub fn record(diagnostic: Diagnostic) {
    RECORDED.lock().unwrap_or_else(|e| e.into_inner()).push(diagnostic);
}

/// The log of a run that ended with `exit_code`: one result per diagnostic
/// (its notes as related locations).
pub fn log(diagnostics: &[Diagnostic], exit_code: i32) -> Log {
    let results: Vec<_> = diagnostics.iter().map(|d| sarif::result(d, Some(RULE))).collect();
    // A run that fails without reporting why did not run to its end.
    let successful = exit_code == 0 || results.iter().any(|r| r.level == "error");
    let rules =
        vec![sarif::rule(RULE, "A diagnostic of MLIR's engine: the parser, the verifier, a pass or the checker")];
    Log::new(
        "ccl-opt",
        rules,
        results,
        Invocation {
            execution_successful: successful,
            exit_code: Some(exit_code),
            tool_execution_notifications: Vec::new(),
        },
    )
}

const RULE: &str = "mlir-diagnostic";

/// The `write_sarif` hook: the log of the diagnostics kept so far.
pub(super) fn write_sarif(path: &str, exit_code: i32) -> Result<(), String> {
    let diagnostics = std::mem::take(&mut *RECORDED.lock().unwrap_or_else(|e| e.into_inner()));
    super::output::write_whole(path, log(&diagnostics, exit_code).to_json().as_bytes())
}
