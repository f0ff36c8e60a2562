//! What cclir's crates share that needs no MLIR, as LLVM's `Support`
//! library is for LLVM: the simulator's core (`cclir-sim`) builds on it
//! without linking MLIR, and the dialect, the passes and the tools use the
//! same definitions.
//! - [`diagnostics`]: diagnostics as values (severity, location, message,
//!   notes), which the dialect's FFI layer makes from MLIR's and the
//!   simulator makes from what it finds;
//! - [`sarif`]: those diagnostics as a SARIF 2.1.0 log (`--sarif`);
//! - [`formula`]: `CalAllToAllVBlocks(P, L)`, the one definition the
//!   launch-width pass folds and lowers and the simulator evaluates.
#![forbid(unsafe_code)]

pub mod diagnostics;
pub mod formula;
pub mod sarif;

pub use diagnostics::{Diagnostic, Severity, SourceLoc};
