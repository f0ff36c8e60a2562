//! Replays the fuzz targets' inputs on stable, through the same functions
//! the cargo-fuzz targets call (cclir::fuzzing): every file under
//! fuzz/regressions/<target>/ (seed inputs, and every crash the fuzzer ever
//! found), then a few hundred pseudo-random inputs per target.

use cclir::fuzzing;
use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        let data = std::fs::read(&path).expect("readable input");
        run(&data);
        count += 1;
    }
    count
}

/// Inputs from a splitmix64 stream, biased toward the targets' alphabets.
fn random_inputs(seed: u64, count: usize, alphabet: &[u8]) -> Vec<Vec<u8>> {
    let mut rng = cclir::generator::Rng::new(seed);
    (0..count)
        .map(|_| {
            let len = rng.below(64);
            (0..len).map(|_| if rng.chance(80) { *rng.pick(alphabet) } else { rng.below(256) as u8 }).collect()
        })
        .collect()
}

#[test]
fn pipeline_inputs() {
    assert!(replay("pipeline", fuzzing::pipeline) > 0);
    for input in random_inputs(1, 2000, b"builtin.module(func{}=, )cse-\"' \xc3\xa9") {
        fuzzing::pipeline(&input);
    }
}

#[test]
fn pass_options_inputs() {
    assert!(replay("pass_options", fuzzing::pass_options) > 0);
    for input in random_inputs(2, 2000, b"max-blocks=lower-dynamic{}[]()\"' 0123truefalse\xc3\xa9") {
        fuzzing::pass_options(&input);
    }
}

#[test]
fn driver_inputs() {
    assert!(replay("driver", fuzzing::driver) > 0);
    for input in random_inputs(3, 300, b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09") {
        // Even selector: a mutated generated program.
        let mut input = input;
        if let Some(first) = input.first_mut() {
            *first &= !1;
        }
        fuzzing::driver(&input);
    }
}

#[test]
fn mutants_often_still_verify() {
    // The driver target is only useful if many mutants reach the passes.
    let session = cclir::Session::new();
    let mut parsed = 0;
    for input in random_inputs(4, 200, b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09") {
        if session.parse(&fuzzing::mutate_generated(&input), "m.mlir").is_ok() {
            parsed += 1;
        }
        let _ = session.take_diagnostics();
    }
    assert!(parsed >= 20, "only {parsed} of 200 mutants verify");
    println!("{parsed} of 200 mutants verify");
}
