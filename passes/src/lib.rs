//! The ccl passes. Each pass is a module of its own with its rules, options
//! and statistics; `framework` holds what every pass shares with the driver.

pub mod admit_launch_width;
pub mod framework;
pub mod insert_comm_fence;
pub mod ir;
pub mod names;
pub mod ods;
pub mod verify_comm_order;

#[cfg(test)]
mod test_support;

use framework::{PassInfo, PipelineInfo};

/// The lane mapping of an admitted launch (a library API beside the pass).
pub use admit_launch_width::lanes;

/// Every registered ccl pass, in `--list-passes` order.
pub fn all_passes() -> &'static [&'static PassInfo] {
    static PASSES: &[&PassInfo] = &[&admit_launch_width::INFO, &insert_comm_fence::INFO, &verify_comm_order::INFO];
    PASSES
}

/// The default pipeline: admit launch widths, place the markers, then prove
/// them sufficient.
pub static CCL_PIPELINE: PipelineInfo = PipelineInfo {
    argument: "ccl-pipeline",
    summary: "The ccl passes in order: admission, marker insertion, verification",
    passes: &["ccl-admit-launch-width", "ccl-insert-comm-fence", "ccl-verify-comm-order"],
};

/// Every registered named pipeline.
pub fn all_pipelines() -> &'static [&'static PipelineInfo] {
    static PIPELINES: [&PipelineInfo; 1] = [&CCL_PIPELINE];
    &PIPELINES
}
