//! What a pass reports: diagnostics at MLIR locations, with notes.

use melior::ir::{operation::OperationLike, Location, OperationRef};
use std::fmt;

pub use cclir_support::diagnostics::Severity;

/// A diagnostic a pass emits: at an MLIR location (so MLIR renders it with
/// the source line, and `--verify-diagnostics` matches it), with notes.
#[derive(Clone, Debug)]
pub struct Report<'c> {
    pub severity: Severity,
    pub location: Location<'c>,
    pub message: String,
    pub notes: Vec<(Location<'c>, String)>,
}

impl<'c> Report<'c> {
    pub fn error(location: Location<'c>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Error, location, message: message.into(), notes: Vec::new() }
    }

    /// An error at `op`.
    pub fn error_at(op: OperationRef<'c, '_>, message: impl Into<String>) -> Self {
        Self::error(op.location(), message)
    }

    pub fn with_note(mut self, location: Location<'c>, message: impl Into<String>) -> Self {
        self.notes.push((location, message.into()));
        self
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.severity, self.message)?;
        for (_, note) in &self.notes {
            write!(f, "\n  note: {note}")?;
        }
        Ok(())
    }
}
