#![no_main]
//! See cclir::fuzzing::driver.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cclir::fuzzing::driver(data));
