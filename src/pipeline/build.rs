//! Turns a pipeline tree into MLIR pass managers: Rust passes are added as
//! external passes, named pipelines are expanded, and everything else is
//! handed, element by element, to MLIR's own pipeline parser.

use super::grammar::{Element, GrammarError, PipelineAst};
use crate::registry::{Entry, Registry};
use cclir_passes::framework::{Anchor, DiagnosticSink, OptionError, PassInfo, PassOptions, Statistics};
use melior::{pass::{OperationPassManager, PassManager}, Context};
use std::{
    fmt,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

/// A pipeline that could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    #[error("{0}")]
    Grammar(#[from] GrammarError),
    #[error("{error}{}", suggestion.as_ref().map(|s| format!("\ndid you mean '{s}'?")).unwrap_or_default())]
    UnknownPass { error: GrammarError, suggestion: Option<String> },
    #[error("{0}")]
    Options(#[from] OptionError),
    #[error("{0}")]
    Upstream(String),
    #[error("'{pass}' runs on '{required}', but is nested under '{actual}'")]
    Anchor { pass: String, required: String, actual: String },
}

/// One Rust pass instance of a built pipeline, for the statistics report.
#[derive(Clone, Debug)]
pub struct PassRecord {
    pub info: &'static PassInfo,
    /// The nesting it runs under, outermost first (`builtin.module`, ...).
    pub nesting: Vec<String>,
    pub stats: Statistics,
}

/// A pass manager ready to run, and what the Rust passes in it count.
pub struct BuiltPipeline<'c> {
    pub manager: PassManager<'c>,
    pub records: Vec<PassRecord>,
    pub anchor: String,
    /// Whether any upstream pass is in the pipeline.
    pub has_upstream: bool,
    /// Shared by every Rust pass of the pipeline: when set, each verifies
    /// what it changed (MLIR's verify-each being off).
    pub self_verify: Arc<AtomicBool>,
}

impl BuiltPipeline<'_> {
    /// verify-each as MLIR does it, at the cost MLIR has: a pipeline of
    /// Rust passes only turns MLIR's verifier off and verifies just the ops
    /// each pass says it changed (MLIR likewise skips verifying after a
    /// pass that preserved everything, which the C API cannot declare).
    pub fn set_verify_each(&self, enabled: bool) {
        let rust_only = !self.has_upstream;
        crate::ffi::enable_verifier(&self.manager, enabled && !rust_only);
        self.self_verify.store(enabled && rust_only, Ordering::Relaxed);
    }
}

impl fmt::Debug for BuiltPipeline<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltPipeline").field("anchor", &self.anchor).field("records", &self.records).finish()
    }
}

struct Builder<'r> {
    registry: &'r Registry,
    sink: DiagnosticSink,
    text: String,
    /// Where the outermost anchor's elements start in `text`.
    inner_start: usize,
    records: Vec<PassRecord>,
    has_upstream: bool,
    self_verify: Arc<AtomicBool>,
}

/// Builds `ast` into a fresh pass manager anchored on the pipeline's anchor.
pub fn build<'c>(
    context: &'c Context,
    ast: &PipelineAst,
    registry: &Registry,
    sink: &DiagnosticSink,
) -> Result<BuiltPipeline<'c>, PipelineError> {
    crate::ffi::register_upstream_passes_once();
    let manager = crate::ffi::pass_manager_on(context, &ast.anchor);
    let mut builder = Builder {
        registry,
        sink: sink.clone(),
        text: ast.to_text(),
        inner_start: ast.anchor.len() + 1,
        records: Vec::new(),
        has_upstream: false,
        self_verify: Arc::new(AtomicBool::new(false)),
    };
    // Offsets in `ast` refer to the text it was parsed from; re-parse the
    // canonical text so carets point into what we show.
    let canonical = super::grammar::parse(&builder.text)?;
    let mut nesting = vec![canonical.anchor.clone()];
    builder.add_elements(manager.as_operation_pass_manager(), &mut nesting, &canonical.elements)?;
    Ok(BuiltPipeline {
        manager,
        records: builder.records,
        anchor: canonical.anchor,
        has_upstream: builder.has_upstream,
        self_verify: builder.self_verify,
    })
}

impl Builder<'_> {
    fn add_elements(
        &mut self,
        manager: OperationPassManager<'_, '_>,
        nesting: &mut Vec<String>,
        elements: &[Element],
    ) -> Result<(), PipelineError> {
        for element in elements {
            match element {
                Element::Nested { anchor, elements, .. } => {
                    let nested = manager.nested_under(anchor);
                    nesting.push(anchor.clone());
                    self.add_elements(nested, nesting, elements)?;
                    nesting.pop();
                }
                Element::Pass { name, options, offset } => {
                    self.add_pass(manager, nesting, name, options.as_deref(), *offset)?
                }
            }
        }
        Ok(())
    }

    fn add_pass(
        &mut self,
        manager: OperationPassManager<'_, '_>,
        nesting: &mut Vec<String>,
        name: &str,
        options: Option<&str>,
        offset: usize,
    ) -> Result<(), PipelineError> {
        match self.registry.lookup(name) {
            Some(Entry::Pass(info)) => self.add_rust_pass(manager, nesting, info, options.unwrap_or("")),
            Some(Entry::Pipeline(pipeline)) => {
                if let Some(options) = options.filter(|o| !o.trim().is_empty()) {
                    return Err(OptionError::Unknown {
                        pass: pipeline.argument.to_string(),
                        option: options.to_string(),
                        accepted: "none".to_string(),
                    }
                    .into());
                }
                for pass in pipeline.passes {
                    self.add_pass(manager, nesting, pass, None, offset)?;
                }
                Ok(())
            }
            None => {
                let element = match options {
                    Some(options) => format!("{name}{{{options}}}"),
                    None => name.to_string(),
                };
                let unknown = || PipelineError::UnknownPass {
                    // MLIR shows the text inside the outermost anchor.
                    error: GrammarError {
                        text: self.text[self.inner_start..self.text.len() - 1].to_string(),
                        offset: offset.saturating_sub(self.inner_start),
                        message: format!("'{name}' does not refer to a registered pass or pass pipeline"),
                    },
                    suggestion: self.registry.suggest(name).map(str::to_string),
                };
                if name.is_empty() {
                    return Err(unknown());
                }
                self.has_upstream = true;
                crate::ffi::add_upstream_pipeline(manager, &element).map_err(|message| {
                    // MLIR knows the name only if its parser got past the name.
                    if message.contains("does not refer to a registered pass") {
                        unknown()
                    } else {
                        PipelineError::Upstream(message)
                    }
                })
            }
        }
    }

    fn add_rust_pass(
        &mut self,
        manager: OperationPassManager<'_, '_>,
        nesting: &mut Vec<String>,
        info: &'static PassInfo,
        options: &str,
    ) -> Result<(), PipelineError> {
        let options = PassOptions::parse(info, options)?;
        let current = nesting.last().cloned().unwrap_or_default();
        // A pass runs where its anchor is, or under a module (or `any`), from
        // where function steps are nested under `func.func`.
        let anchored = current == info.anchor().op_name() || current == "builtin.module" || current == "any";
        if !anchored {
            return Err(PipelineError::Anchor {
                pass: info.argument.to_string(),
                required: info.anchor().op_name().to_string(),
                actual: current,
            });
        }
        let stats = Statistics::new(info.statistics);
        for step in info.steps {
            let target = if step.anchor == Anchor::Function && current != "func.func" {
                manager.nested_under("func.func")
            } else {
                manager
            };
            crate::ffi::add_rust_pass(
                target,
                step,
                info.argument,
                info.summary,
                options.clone(),
                stats.clone(),
                self.sink.clone(),
                self.self_verify.clone(),
            );
        }
        self.records.push(PassRecord { info, nesting: nesting.clone(), stats });
        Ok(())
    }
}
