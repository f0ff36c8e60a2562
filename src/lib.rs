//! cclir: collective-communication passes on MLIR, as a library.
//!
//! The path of one program: read -> parse (MLIR's parser, with the `ccl`
//! dialect loaded from IRDL) -> verify -> build a pipeline (Rust passes and
//! upstream passes in one MLIR PassManager) -> run -> print.
//!
//! ```no_run
//! let session = cclir::Session::new();
//! let mut program = session.parse_file("examples/moe_dispatch.mlir")?;
//! let pipeline = session.pipeline("builtin.module(ccl-pipeline)")?;
//! session.run(&pipeline, &mut program)?;
//! print!("{}", program.to_text());
//! # Ok::<(), cclir::Error>(())
//! ```

pub mod diagnostics;
pub mod dialect;
pub mod driver;
pub mod generator;
pub mod ffi;
pub mod fuzzing;
pub mod panic;
pub mod pipeline;
pub mod registry;
pub mod source;

pub use cclir_passes as passes;
pub use diagnostics::{Diagnostic, Severity, SourceLoc};
pub use pipeline::{BuiltPipeline, PipelineError, PipelineSpec};

use diagnostics::{DiagnosticSink, SourceMap, SourceText};
use melior::{
    ir::{operation::OperationLike, Operation},
    Context,
};
use std::{cell::RefCell, path::Path};

/// Everything that can go wrong, with MLIR's diagnostics as values.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot open input file '{path}': {message}")]
    Read { path: String, message: String },
    #[error("failed to parse '{buffer}'")]
    Parse { buffer: String, diagnostics: Vec<Diagnostic> },
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    #[error("pass pipeline failed")]
    Pass { diagnostics: Vec<Diagnostic> },
}

impl Error {
    /// The diagnostics behind the error (empty for read and pipeline errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Parse { diagnostics, .. } | Error::Pass { diagnostics } => diagnostics,
            _ => &[],
        }
    }
}

/// How a session's context is made.
#[derive(Clone, Copy, Debug)]
pub struct SessionConfig {
    pub threading: bool,
    pub allow_unregistered_dialects: bool,
    pub verify_each: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self { threading: true, allow_unregistered_dialects: false, verify_each: true }
    }
}

/// An MLIR context with the `ccl` dialect, and the diagnostics it collects.
pub struct Session {
    context: Context,
    sink: DiagnosticSink,
    sources: RefCell<SourceMap>,
    config: SessionConfig,
}

/// A parsed (and verified) top-level operation.
pub struct Program<'c> {
    op: Operation<'c>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    pub fn new() -> Self {
        Self::with_config(SessionConfig::default())
    }

    pub fn with_config(config: SessionConfig) -> Self {
        panic::install_quiet_hook();
        ffi::register_upstream_passes_once();
        let context = dialect::create_context(config.threading, config.allow_unregistered_dialects);
        let sink = DiagnosticSink::default();
        ffi::attach_diagnostic_sink(&context, sink.clone());
        Session { context, sink, sources: RefCell::new(SourceMap::default()), config }
    }

    pub fn context(&self) -> &Context {
        &self.context
    }

    pub fn sink(&self) -> &DiagnosticSink {
        &self.sink
    }

    /// Remembers `text` as the contents of `buffer`, so rendered diagnostics
    /// can show source lines.
    pub fn add_source(&self, buffer: &str, text: &str) {
        self.sources.borrow_mut().add(buffer, text);
    }

    /// Parses and verifies `source`; locations name `buffer`. A buffer that
    /// is not one `builtin.module` is wrapped in an implicit module.
    pub fn parse(&self, source: &str, buffer: &str) -> Result<Program<'_>, Error> {
        self.parse_shared(SourceText::new(source), buffer)
    }

    /// `parse` for a buffer the caller already holds as a `SourceText`: the
    /// session keeps that very text for diagnostics, without a copy.
    pub fn parse_shared(&self, shared: SourceText, buffer: &str) -> Result<Program<'_>, Error> {
        self.sources.borrow_mut().add_shared(buffer, shared.clone());
        let source = shared.text();
        let explicit = source::starts_with_module(source);
        let parsed = if explicit {
            ffi::parse_operation(&self.context, &shared, buffer)
        } else {
            ffi::parse_operation(&self.context, &source::wrap(source), buffer)
        };
        let mut diagnostics = self.sink.take();
        if !explicit {
            diagnostics.iter_mut().for_each(|d| source::unshift(d, buffer));
        }
        if parsed.is_none() && !explicit {
            // The implicit module's braces can change what a syntax error
            // looks like (an unclosed body); the unwrapped parse tells the
            // real error unless its only complaint is the missing module.
            let unwrapped = ffi::parse_operation(&self.context, &shared, buffer);
            let plain = self.sink.take();
            let only_wrapping = plain.len() == 1 && plain[0].message.starts_with("source must contain a single top-level operation");
            if unwrapped.is_none() && !plain.is_empty() && !only_wrapping {
                diagnostics = plain;
            }
        }
        match parsed {
            Some(op) if !diagnostics.iter().any(|d| d.severity == Severity::Error) => {
                if !explicit {
                    source::restore_locations(&self.context, &op, source, buffer);
                }
                // Warnings and remarks stay for the caller to collect.
                diagnostics.into_iter().for_each(|d| self.sink.push(d));
                Ok(Program { op })
            }
            _ => Err(Error::Parse { buffer: buffer.to_string(), diagnostics }),
        }
    }

    pub fn parse_file(&self, path: impl AsRef<Path>) -> Result<Program<'_>, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| Error::Read {
            path: path.display().to_string(),
            message: driver::io_message(&error),
        })?;
        self.parse_shared(SourceText::from(text), &path.display().to_string())
    }

    /// Builds a textual pipeline (`builtin.module(...)`).
    pub fn pipeline(&self, text: &str) -> Result<BuiltPipeline<'_>, Error> {
        self.build(&PipelineSpec::parse(text).map_err(PipelineError::from)?)
    }

    pub fn build(&self, spec: &PipelineSpec) -> Result<BuiltPipeline<'_>, Error> {
        let built = pipeline::build(&self.context, spec.ast(), registry::Registry::global(), &self.sink)?;
        built.set_verify_each(self.config.verify_each);
        Ok(built)
    }

    /// Runs `pipeline` on `program`; on failure the error carries every
    /// diagnostic the run reported.
    pub fn run(&self, pipeline: &BuiltPipeline<'_>, program: &mut Program<'_>) -> Result<(), Error> {
        let ok = ffi::run_pass_manager(&pipeline.manager, program.op.as_operation_ref());
        if ok && !self.sink.has_errors() {
            Ok(())
        } else {
            Err(Error::Pass { diagnostics: self.sink.take() })
        }
    }

    /// Diagnostics reported so far that no error carried (warnings, remarks).
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        self.sink.take()
    }

    /// Renders one diagnostic whose caret underlines `range` characters.
    pub fn render_with_range(&self, diagnostic: &Diagnostic, range: Option<usize>) -> String {
        diagnostics::render_with_range(diagnostic, &self.sources.borrow(), range)
    }

    /// Renders diagnostics as mlir-opt prints them, source lines included.
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        diagnostics::render_all(diagnostics, &self.sources.borrow())
    }
}

impl<'c> Program<'c> {
    pub fn operation(&self) -> &Operation<'c> {
        &self.op
    }

    /// The program in MLIR's textual form, as mlir-opt prints it.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write(&mut out, ffi::PrintOptions::default()).expect("writing to memory");
        String::from_utf8_lossy(&out).into_owned()
    }

    pub fn write(&self, writer: &mut dyn std::io::Write, options: ffi::PrintOptions) -> std::io::Result<()> {
        ffi::print_operation(self.op.as_operation_ref(), options, writer)?;
        writer.write_all(b"\n")
    }
}

trait AsOperationRef<'c> {
    fn as_operation_ref(&self) -> melior::ir::OperationRef<'c, '_>;
}

impl<'c> AsOperationRef<'c> for Operation<'c> {
    fn as_operation_ref(&self) -> melior::ir::OperationRef<'c, '_> {
        unsafe { melior::ir::OperationRef::from_raw(self.to_raw()) }
    }
}
