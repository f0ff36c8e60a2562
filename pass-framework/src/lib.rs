//! What a ccl pass is, independent of any driver: its description (name,
//! anchor, typed options, typed statistics: [`PassInfo`]), the trait it
//! implements ([`CclPass`]), what it sees of MLIR while it runs
//! ([`PassContext`]: diagnostics, the thread pool, the analysis manager,
//! dynamic pipelines, erasing ops) and what it reports ([`Report`]).
//!
//! The passes (`cclir-passes`) are written against this crate, and the pass
//! bridge (`cclir-dialect`'s `ffi::bridge`) turns every [`PassInfo`] into one
//! C++ `mlir::Pass` registered with MLIR, so MLIR's pipeline parser,
//! `--help`, `--list-passes` and `--dump-pass-pipeline` know it like an
//! upstream pass. Neither needs the other's crate, and this one needs no
//! FFI: the bridge implements [`Host`] over MLIR.
//!
//! - [`options`]: option types, values, range checks, `pass_options!`;
//! - [`statistics`]: counters shared by a pass's clones, `pass_statistics!`;
//! - [`report`]: diagnostics at MLIR locations;
//! - [`pass`]: `PassInfo`, `CclPass`, `PassContext`, `Host`, `Eraser`.
#![forbid(unsafe_code)]

pub mod options;
pub mod pass;
pub mod report;
pub mod statistics;

pub use options::{check_options, choice_index, OptionKind, OptionSpec, OptionValues};
pub use pass::{Analysis, Anchor, CclPass, Eraser, Host, PassContext, PassFailed, PassInfo, PipelineInfo};
pub use report::{Report, Severity};
pub use statistics::{Counter, Counters, StatisticSpec};
