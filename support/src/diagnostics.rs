//! Diagnostics as values: what MLIR's diagnostic engine reports (parser,
//! verifier, upstream and Rust passes) with its notes, and where in the
//! source a location points. The FFI layer makes them from MLIR's
//! (`ffi::diagnostics`, `ffi::locations`); the tools render them.

use std::{
    fmt,
    sync::{Arc, Mutex},
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        })
    }
}

/// A source position, as MLIR's `FileLineColLoc` carries it (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceLoc {
    Unknown,
    File { file: String, line: u32, col: u32 },
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceLoc::Unknown => f.write_str("<unknown>:0"),
            SourceLoc::File { file, line, col } => write!(f, "{file}:{line}:{col}"),
        }
    }
}

/// One diagnostic with its attached notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: SourceLoc,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: severity: message`, one line per note after it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.loc, self.severity, self.message)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// Where a session's diagnostics go, in the order they were reported.
#[derive(Clone, Default, Debug)]
pub struct DiagnosticSink(Arc<Mutex<Vec<Diagnostic>>>);

impl DiagnosticSink {
    pub fn push(&self, diagnostic: Diagnostic) {
        self.0.lock().unwrap_or_else(|poison| poison.into_inner()).push(diagnostic);
    }

    pub fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|poison| poison.into_inner()))
    }
}
