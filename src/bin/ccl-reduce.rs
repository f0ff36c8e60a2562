//! `ccl-reduce`: MLIR's test-case reducer with ccl and the Rust passes.
//!
//! Its entry point is C's `main` (`cclir_process::c_main!`, which says why).
#![no_main]
#![forbid(unsafe_code)]

cclir::process::c_main!(cclir::tools::reduce_main);
