//! `ccl-reduce`: MLIR's test-case reducer with ccl and the Rust passes.
//!
//! The entry point is C's `main`, not Rust's: Rust's runtime would ignore
//! SIGPIPE and reopen closed standard streams on /dev/null, and mlir-opt
//! does neither (`ccl-opt x.mlir >&-` fails, `ccl-opt --list-passes | head`
//! ends quietly).
#![no_main]

#[no_mangle]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    cclir::tools::reduce_main()
}
