//! The ccl passes. Each pass is a module of its own with its rules, options
//! and statistics; `framework` holds what every pass shares with the tool
//! layer, `comm_order` the program model insert and verify share, and `ir`
//! the IR vocabulary they all use.
//!
//! The crate is safe Rust: what it does with MLIR that melior does not wrap
//! goes through the dialect crate's FFI layer (`cclir_dialect::ffi`).
#![forbid(unsafe_code)]

pub mod admit_launch_width;
pub mod check_signals;
pub mod comm_order;
pub mod drop_adjacent_fences;
pub mod insert_comm_fence;
pub mod ir;
pub mod lower_all_to_all_v;
pub mod nested_modules;
pub mod sink_comm_markers;
pub mod verify_comm_order;

/// What a pass is (`cclir-pass-framework`, which the pass bridge registers
/// with MLIR).
pub use cclir_pass_framework as framework;
/// The macros that declare a pass's options and statistics.
pub use cclir_pass_framework::{pass_options, pass_statistics};

#[cfg(test)]
mod test_support;

use framework::{OptionValues, PassInfo, PipelineInfo};

/// The lane mapping of an admitted launch (a library API beside the pass).
pub use admit_launch_width::lanes;

/// Every registered ccl pass, in `--list-passes` order (by argument, as
/// MLIR lists them; the test below keeps it so).
pub fn all_passes() -> &'static [&'static PassInfo] {
    static PASSES: &[&PassInfo] = &[
        &admit_launch_width::INFO,
        &check_signals::INFO,
        &drop_adjacent_fences::INFO,
        &insert_comm_fence::nested::FIND_INFO,
        &insert_comm_fence::INFO,
        &insert_comm_fence::nested::KERNEL_INFO,
        &lower_all_to_all_v::INFO,
        &nested_modules::INFO,
        &sink_comm_markers::INFO,
        &verify_comm_order::INFO,
    ];
    PASSES
}

pass_options! {
    /// The options of `ccl-pipeline`, forwarded to its passes.
    pub struct PipelineOptions {
        max_blocks: int("max-blocks", "Forwarded to ccl-admit-launch-width: reject an admitted launch width above N (0: no limit)", default = 0, min = 0),
        lower_collectives: bool("lower-collectives", "Lower each ccl.all_to_all_v to its kernel (ccl-lower-all-to-all-v) between admission and insertion", default = false),
        placement: choice("placement", "Where the markers go", choices = [
            "rules" => "right after each publish and wait, as ccl-insert-comm-fence places them",
            "minimal" => "placed by those rules, then moved by ccl-sink-comm-markers to where they are needed",
        ], default = "rules"),
        sync: bool("sync", "Forwarded to ccl-verify-comm-order: prove the synchronisation too (off: the markers alone)", default = true),
        ranks: int("ranks", "Forwarded to ccl-verify-comm-order: the rank count of the run whose synchronisation it checks", default = 2, min = 1),
    }
}

/// The default pipeline: admit launch widths, place the markers, then prove
/// them sufficient; with `lower-collectives=true`, the collectives become
/// kernels after admission (and get their markers like any kernel); with
/// `placement=minimal`, the markers move to where they are needed before
/// the proof.
pub static CCL_PIPELINE: PipelineInfo = PipelineInfo {
    argument: "ccl-pipeline",
    summary: "The ccl passes in order: admission, (lowering,) marker insertion, (sinking,) verification",
    options: PipelineOptions::SPECS,
    build: build_ccl_pipeline,
};

fn build_ccl_pipeline(values: OptionValues<'_>) -> String {
    let options = PipelineOptions::from_values(values);
    let admit = format!("{}{{max-blocks={}}}", admit_launch_width::INFO.argument, options.max_blocks);
    let find = match options.placement {
        // The scan also finds what the minimal placement adds beyond the
        // rules, for the sink (docs/passes/sink-comm-markers.md).
        "minimal" => format!("{}{{sound-placement=true}}", insert_comm_fence::nested::FIND_INFO.argument),
        _ => insert_comm_fence::nested::FIND_INFO.argument.to_string(),
    };
    let insert = match options.placement {
        // The sink runs on each kernel right after its insertion, in the
        // same adaptor (it reads and changes only that kernel).
        "minimal" => {
            format!("{},{}", insert_comm_fence::nested::KERNEL_INFO.argument, sink_comm_markers::INFO.argument)
        }
        _ => insert_comm_fence::nested::KERNEL_INFO.argument.to_string(),
    };
    let verify = format!("{}{{sync={} ranks={}}}", verify_comm_order::INFO.argument, options.sync, options.ranks);
    // Admission and the insertions run per function, the insert pass's scan
    // on its own (docs/passes/insert-comm-fence.md): a module pass that
    // rewrites anything makes MLIR re-verify the whole module, and so does
    // every `func.func(...)` adaptor that changes a function (the module's
    // symbol table check walks every op). Admission rewrites orchestration
    // functions only and the insertions kernels only, and the scan reads
    // neither the cal ops nor the widths, so without the lowering the scan
    // goes first and both share one adaptor. The lowering needs admitted
    // widths and makes kernels the scan must see: then the order is strict.
    // Nested modules first, each a program of its own (nested_modules.rs).
    let nested = format!("{}{{{}}}", nested_modules::INFO.argument, nested_modules::option_text(values));
    if options.lower_collectives {
        let lower = lower_all_to_all_v::INFO.argument;
        format!("{nested},func.func({admit}),{lower},{find},func.func({insert}),{verify}")
    } else {
        format!("{nested},{find},func.func({admit},{insert}),{verify}")
    }
}

/// Every registered named pipeline.
pub fn all_pipelines() -> &'static [&'static PipelineInfo] {
    static PIPELINES: [&PipelineInfo; 1] = [&CCL_PIPELINE];
    &PIPELINES
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_passes_are_in_list_passes_order() {
        let arguments: Vec<&str> = super::all_passes().iter().map(|info| info.argument).collect();
        let mut sorted = arguments.clone();
        sorted.sort_unstable();
        assert_eq!(arguments, sorted, "all_passes() lists the passes by argument, as --list-passes does");
    }
}
