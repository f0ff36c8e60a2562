//! `ccl-pipeline-nested-modules`: the first element of `ccl-pipeline`, which
//! runs `ccl-pipeline` (with the same options) on every `builtin.module` in
//! the body of the module it runs on, each as a program of its own
//! (docs/semantics.md, "Nested modules").
//!
//! Why a pass: `ccl-pipeline` runs its per-function passes in a
//! `func.func(...)` adaptor, and MLIR schedules an adaptor on the functions
//! directly in the module, not on those of a nested module. The module
//! passes of the pipeline handle nested modules themselves, but a nested
//! module's functions would go unadmitted and unfenced. MLIR's dynamic
//! pipelines (`Pass::runPipeline`) run the whole pipeline on each nested
//! module instead, before the module's own passes; each nested run starts
//! with this pass again, so modules nested deeper are reached too.

use crate::{
    framework::{Anchor, CclPass, Counters, OptionKind, OptionValues, PassContext, PassFailed, PassInfo},
    ir, PipelineOptions, CCL_PIPELINE,
};
use melior::ir::OperationRef;

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-pipeline-nested-modules",
    name: "CclPipelineNestedModules",
    summary: "Run ccl-pipeline (with these options) on each module nested in this one, as a program of its own",
    description: "The first element of `ccl-pipeline`: runs `ccl-pipeline` (with the same\n\
        options) on every `builtin.module` in the body of the module it runs on,\n\
        each as a program of its own (docs/semantics.md, \"Nested modules\"), through\n\
        MLIR's dynamic pipelines. Each nested run starts with this pass again, so\n\
        modules nested deeper are reached too.",
    anchor: Anchor::Module,
    dependent_dialects: &[],
    options: PipelineOptions::SPECS,
    statistics: &[],
    create,
};

fn create(values: OptionValues<'_>, _: &Counters) -> Box<dyn CclPass> {
    let pipeline = format!("builtin.module({}{{{}}})", CCL_PIPELINE.argument, option_text(values));
    Box::new(NestedModules { pipeline })
}

/// The options of `ccl-pipeline` (and of this pass) with `values` spelled
/// out, as MLIR parses them: `max-blocks=0 lower-collectives=false`.
pub fn option_text(values: OptionValues<'_>) -> String {
    let options: Vec<String> = PipelineOptions::SPECS
        .iter()
        .enumerate()
        .map(|(index, spec)| match spec.kind {
            OptionKind::Bool { .. } => format!("{}={}", spec.name, values.bool(index)),
            OptionKind::Int { .. } => format!("{}={}", spec.name, values.int(index)),
            OptionKind::Choice { .. } => format!("{}={}", spec.name, values.choice(index, PipelineOptions::SPECS)),
        })
        .collect();
    options.join(" ")
}

struct NestedModules {
    /// `builtin.module(ccl-pipeline{...})`.
    pipeline: String,
}

impl CclPass for NestedModules {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let nested: Vec<OperationRef<'_, '_>> =
            ir::regions(module).flat_map(ir::blocks).flat_map(ir::ops).filter(|op| ir::is_module(*op)).collect();
        if nested.is_empty() {
            cx.preserve_all();
            return Ok(());
        }
        // Every nested module runs, so each reports its own errors.
        let mut failed = false;
        for program in nested {
            failed |= cx.run_pipeline(program, &self.pipeline).is_err();
        }
        if failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}
