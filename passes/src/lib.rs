//! The ccl passes. Each pass is a module of its own with its rules, options
//! and statistics; `framework` holds what every pass shares with the driver.

pub mod framework;
pub mod insert_comm_fence;
pub mod ir;
pub mod names;
pub mod verify_comm_order;

use framework::{PassInfo, PipelineInfo};

/// Every registered ccl pass, in `--list-passes` order.
pub fn all_passes() -> &'static [&'static PassInfo] {
    static PASSES: &[&PassInfo] = &[&insert_comm_fence::INFO, &verify_comm_order::INFO];
    PASSES
}

/// Every registered named pipeline.
pub fn all_pipelines() -> &'static [&'static PipelineInfo] {
    &[]
}
