#![no_main]
//! See cclir::fuzzing::pipeline_grammar.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cclir::fuzzing::pipeline_grammar(data));
