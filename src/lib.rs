//! cclir: collective-communication passes on MLIR, as a library.
//!
//! The path of one program: read -> parse (MLIR's parser, with the ODS
//! `ccl` dialect) -> verify -> build a pipeline (MLIR's pipeline parser;
//! the Rust passes are in MLIR's registry) -> run -> print. `ccl-opt` is
//! MLIR's `MlirOptMain` over the same registry ([`tools`]).
//!
//! The crate is safe Rust (`forbid(unsafe_code)`): what it does with MLIR
//! that melior does not wrap goes through the dialect crate's FFI layer
//! (`cclir_dialect::ffi`), the one place cclir has `unsafe` code.
//!
//! ```no_run
//! let session = cclir::Session::new();
//! let mut program = session.parse_file("examples/moe_dispatch.mlir")?;
//! let pipeline = session.pipeline("builtin.module(ccl-pipeline)")?;
//! session.run(&pipeline, &mut program)?;
//! print!("{}", program.to_text());
//! # Ok::<(), cclir::Error>(())
//! ```

#![forbid(unsafe_code)]

pub mod diagnostics;
pub mod fuzzing;
pub mod pipeline;
pub mod sim;
pub mod tools;

pub use cclir_dialect as dialect;
pub use cclir_dialect::{ffi::driver::PrintOptions, panic};
pub use cclir_gen as generator;
pub use cclir_passes as passes;
pub use cclir_process as process;
pub use cclir_support::sarif;
pub use diagnostics::{Diagnostic, Severity, SourceLoc};
pub use pipeline::PipelineSpec;
pub use tools::{
    output,
    statistics::{Display, PassStatistics},
};

use cclir_dialect::ffi::{bridge, driver, operations};
use diagnostics::{DiagnosticSink, SourceMap};
use melior::{ir::Operation, pass::PassManager, Context};
use std::{cell::RefCell, path::Path, sync::Arc};

/// docs/writing-a-pass.md: its example is a whole pass, compiled and run
/// as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../docs/writing-a-pass.md")]
pub struct WritingAPass;

/// Registers one more Rust pass (a downstream crate's own) with MLIR's
/// registry, next to the ccl passes: pipelines then name it like any pass.
/// Fails if a pass of that argument is registered already.
pub fn register_pass(info: &'static passes::framework::PassInfo) -> Result<(), String> {
    bridge::register_pass(info, &tools::CATALOG)
}

/// Every pass and pipeline name MLIR's registry holds: upstream's, the ccl
/// passes and any registered with [`register_pass`] (what a pipeline may
/// name).
pub fn registered_pass_names() -> Vec<String> {
    driver::registered_pass_names(&tools::CATALOG)
}

/// Everything that can go wrong, with MLIR's diagnostics as values.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot open input file '{path}': {message}")]
    Read { path: String, message: String },
    #[error("failed to parse '{buffer}'")]
    Parse { buffer: String, diagnostics: Vec<Diagnostic> },
    /// MLIR's pipeline parser rejected the pipeline (its message), with the
    /// registered name nearest to an unknown one.
    #[error("{message}{}", suggestion.as_ref().map(|s| format!("\ndid you mean '{s}'?")).unwrap_or_default())]
    Pipeline { message: String, suggestion: Option<String> },
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
    /// The deepest bracket nesting `parse` accepts: MLIR's parser recurses
    /// per level on the caller's stack. The default fits Rust's 8 MiB main
    /// thread; a thread with a bigger stack can raise it.
    pub max_nesting: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self { threading: true, allow_unregistered_dialects: false, verify_each: true, max_nesting: 2_000 }
    }
}

/// An MLIR context with every upstream dialect and ccl, and the
/// diagnostics it collects.
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

/// A pass manager ready to run, and the Rust passes in it.
pub struct BuiltPipeline<'c> {
    manager: PassManager<'c>,
    passes: Vec<driver::BuiltPass>,
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
        bridge::register_all_passes(&tools::CATALOG);
        let context = dialect::create_context(config.threading, config.allow_unregistered_dialects);
        let sink = DiagnosticSink::default();
        driver::attach_diagnostic_sink(&context, sink.clone());
        Session { context, sink, sources: RefCell::new(SourceMap::default()), config }
    }

    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Parses and verifies `source` as mlir-opt reads a file; locations
    /// name `buffer`.
    pub fn parse(&self, source: &str, buffer: &str) -> Result<Program<'_>, Error> {
        self.parse_bytes(source.as_bytes(), buffer)
    }

    /// Parses and verifies `source`, MLIR text or bytecode (told apart by
    /// bytecode's magic number, as mlir-opt does); locations name `buffer`.
    pub fn parse_bytes(&self, source: &[u8], buffer: &str) -> Result<Program<'_>, Error> {
        let text: Arc<str> = Arc::from(String::from_utf8_lossy(source));
        self.sources.borrow_mut().add(buffer, text);
        if let Err(deep) = tools::input::check_nesting(source, self.config.max_nesting) {
            return Err(Error::Parse {
                buffer: buffer.to_string(),
                diagnostics: vec![Diagnostic {
                    severity: Severity::Error,
                    loc: SourceLoc::File { file: buffer.to_string(), line: deep.line as u32, col: deep.col as u32 },
                    message: format!("nesting deeper than {} levels (SessionConfig::max_nesting)", deep.limit),
                    notes: Vec::new(),
                }],
            });
        }
        if let Err(corrupt) = tools::input::bytecode::check(source) {
            return Err(Error::Parse { buffer: buffer.to_string(), diagnostics: vec![corrupt.diagnostic(buffer)] });
        }
        let parsed = driver::parse_for_tool(&self.context, source, buffer);
        let diagnostics = self.sink.take();
        match parsed {
            Some(op) if !diagnostics.iter().any(|d| d.severity == Severity::Error) => {
                // Warnings and remarks stay for `take_diagnostics`.
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
            message: tools::output::io_message(&error),
        })?;
        self.parse(&text, &path.display().to_string())
    }

    /// Builds a textual pipeline (`builtin.module(...)`) with MLIR's parser.
    pub fn pipeline(&self, text: &str) -> Result<BuiltPipeline<'_>, Error> {
        let (manager, passes) =
            driver::build_pass_manager(&self.context, text, &tools::CATALOG).map_err(|message| {
                let suggestion = unknown_pass(&message).and_then(|unknown| {
                    let names = registered_pass_names();
                    tools::suggest::nearest(unknown, names.iter().map(String::as_str)).map(str::to_string)
                });
                Error::Pipeline { message, suggestion }
            })?;
        driver::enable_verifier(&manager, self.config.verify_each);
        Ok(BuiltPipeline { manager, passes })
    }

    pub fn build(&self, spec: &PipelineSpec) -> Result<BuiltPipeline<'_>, Error> {
        self.pipeline(&spec.to_text())
    }

    /// Runs `pipeline` on `program`; on failure the error carries every
    /// diagnostic the run reported.
    pub fn run(&self, pipeline: &BuiltPipeline<'_>, program: &mut Program<'_>) -> Result<(), Error> {
        let ok = driver::run_pass_manager(&pipeline.manager, operations::as_ref(&program.op));
        if ok {
            Ok(())
        } else {
            Err(Error::Pass { diagnostics: self.sink.take() })
        }
    }

    /// Runs the checker alone (`ccl-verify-comm-order`) on `program`: `Ok`
    /// when its markers are proven sufficient, else the checker's errors
    /// (each with the note naming the other end of the pair).
    pub fn verify(&self, program: &mut Program<'_>) -> Result<(), Error> {
        let checker = self.pipeline("builtin.module(ccl-verify-comm-order)")?;
        self.run(&checker, program)
    }

    /// Diagnostics reported so far that no error carried (warnings, remarks).
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        self.sink.take()
    }

    /// Renders diagnostics as mlir-opt prints them, source lines included.
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        self.sources.borrow().render_all(diagnostics)
    }
}

/// The name in MLIR's "'x' does not refer to a registered pass" message.
fn unknown_pass(message: &str) -> Option<&str> {
    let end = message.find("' does not refer to a registered pass")?;
    let start = message[..end].rfind('\'')? + 1;
    Some(&message[start..end])
}

impl BuiltPipeline<'_> {
    /// The pipeline as MLIR prints it (`--dump-pass-pipeline`'s text).
    pub fn to_text(&self) -> String {
        driver::pipeline_text(&self.manager)
    }

    /// What each Rust pass of the pipeline counted so far.
    pub fn statistics(&self) -> Vec<PassStatistics> {
        let arguments: Vec<&str> = self.passes.iter().map(|p| p.argument.as_str()).collect();
        let nesting = tools::statistics::nesting_of(&self.to_text(), &arguments);
        self.passes
            .iter()
            .zip(nesting)
            .map(|(pass, nesting)| PassStatistics {
                argument: pass.argument.clone(),
                name: pass.name.clone(),
                nesting,
                counters: pass.counters.clone(),
            })
            .collect()
    }

    /// The statistics as `--mlir-pass-statistics` prints them.
    pub fn statistics_report(&self, display: Display) -> String {
        tools::statistics::report(&self.statistics(), display)
    }
}

impl<'c> Program<'c> {
    pub fn operation(&self) -> &Operation<'c> {
        &self.op
    }

    /// The module as a borrowed op, the form the model and the passes read.
    pub fn operation_ref(&self) -> melior::ir::OperationRef<'c, '_> {
        operations::as_ref(&self.op)
    }

    /// The program in MLIR's textual form, as mlir-opt prints it.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write(&mut out, PrintOptions::default()).expect("writing to memory");
        String::from_utf8_lossy(&out).into_owned()
    }

    pub fn write(&self, writer: &mut dyn std::io::Write, options: PrintOptions) -> std::io::Result<()> {
        driver::print_operation(operations::as_ref(&self.op), options, writer)?;
        writer.write_all(b"\n")
    }
}
