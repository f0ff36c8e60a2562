//! `ccl-opt`: MLIR's mlir-opt with the ccl dialect and the Rust passes.
//!
//! Its entry point is C's `main` (`cclir_process::c_main!`, which says why).
#![no_main]
#![forbid(unsafe_code)]

cclir::process::c_main!(cclir::tools::opt_main);
