#![no_main]
//! See cclir::fuzzing::pass_options.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cclir::fuzzing::pass_options(data));
