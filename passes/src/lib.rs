//! The ccl passes. Each pass is a module of its own with its rules, options
//! and statistics; `framework` holds what every pass shares with the driver.

pub mod admit_launch_width;
pub mod framework;
pub mod insert_comm_fence;
pub mod ir;
pub mod names;
pub mod ods;
pub mod strings;
pub mod comm_order;
pub mod verify_comm_order;

#[cfg(test)]
mod test_support;

use framework::{OptionValues, PassInfo, PipelineInfo};

/// The lane mapping of an admitted launch (a library API beside the pass).
pub use admit_launch_width::lanes;

/// Every registered ccl pass, in `--list-passes` order.
pub fn all_passes() -> &'static [&'static PassInfo] {
    static PASSES: &[&PassInfo] = &[&admit_launch_width::INFO, &insert_comm_fence::INFO, &verify_comm_order::INFO];
    PASSES
}

pass_options! {
    /// The options of `ccl-pipeline`, forwarded to its passes.
    pub struct PipelineOptions {
        max_blocks: int("max-blocks", "Forwarded to ccl-admit-launch-width: reject an admitted launch width above N (0: no limit)", default = 0, min = 0),
    }
}

/// The default pipeline: admit launch widths, place the markers, then prove
/// them sufficient.
pub static CCL_PIPELINE: PipelineInfo = PipelineInfo {
    argument: "ccl-pipeline",
    summary: "The ccl passes in order: admission, marker insertion, verification",
    options: PipelineOptions::SPECS,
    build: build_ccl_pipeline,
};

fn build_ccl_pipeline(values: OptionValues<'_>) -> String {
    let options = PipelineOptions::from_values(values);
    format!(
        "{}{{max-blocks={}}},{},{}",
        admit_launch_width::INFO.argument,
        options.max_blocks,
        insert_comm_fence::INFO.argument,
        verify_comm_order::INFO.argument
    )
}

/// Every registered named pipeline.
pub fn all_pipelines() -> &'static [&'static PipelineInfo] {
    static PIPELINES: [&PipelineInfo; 1] = [&CCL_PIPELINE];
    &PIPELINES
}
