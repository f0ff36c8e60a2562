//! `ccl-opt`: MLIR's mlir-opt with the ccl dialect and the Rust passes.
//!
//! Its entry point is C's `main` (`cclir_dialect::c_main!`, which says why).
#![no_main]
#![forbid(unsafe_code)]

cclir::dialect::c_main!(cclir::tools::opt_main);
