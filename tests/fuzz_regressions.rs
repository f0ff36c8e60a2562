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

#[test]
fn bytecode_inputs() {
    assert!(replay("bytecode", fuzzing::bytecode) > 0);
    // The seeds are bytecode that reads back (the fuzzer mutates from them).
    let session = cclir::Session::new();
    for name in ["upstream", "moe-dispatch", "moe-dispatch-fenced"] {
        let data = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/bytecode").join(name))
            .expect("a seed");
        assert!(data.starts_with(b"ML\xefR"), "{name} is not bytecode");
        let program = session.parse_bytes(&data, name).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(program.to_text().contains("func.func"), "{name}");
    }
    // Every prefix of a seed: truncated bytecode is a reader error, never a
    // crash. (Corrupted bytes that crash MLIR's reader itself, upstream's
    // too, are lit tests against mlir-opt: Driver/corrupted-bytecode.test.)
    let seed = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/bytecode/upstream"))
        .expect("the upstream seed");
    for end in 0..seed.len() {
        fuzzing::bytecode(&seed[..end]);
    }
    // Not bytecode: the magic number is put in front.
    fuzzing::bytecode(b"module {}");
}

/// The corruptions MLIR's reader does not survive (a heap overflow, a read
/// past the buffer, a table sized by a corrupted count) are rejected
/// before it runs, in the library as in ccl-opt, and the fuzz target
/// replays them in process.
#[test]
fn bytecode_the_reader_would_not_survive_is_rejected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lit-tests/Driver/Inputs/bytecode");
    let session = cclir::Session::new();
    for (name, section) in [
        ("offsets-overflow-end.mlirbc", "AttrTypeOffset (3)"),
        ("offsets-overflow-past-section.mlirbc", "AttrTypeOffset (3)"),
        ("offsets-overflow-malloc-abort.mlirbc", "AttrTypeOffset (3)"),
        ("offsets-count-past-section.mlirbc", "AttrTypeOffset (3)"),
        ("string-size-zero.mlirbc", "String (0)"),
    ] {
        let data = std::fs::read(dir.join(name)).expect("a reproducer");
        let Err(cclir::Error::Parse { diagnostics, .. }) = session.parse_bytes(&data, name) else {
            panic!("{name} is not rejected");
        };
        let text = diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert!(text.starts_with(&format!("{name}:0:0: error: ")) && text.contains(section), "{text}");
        assert!(text.ends_with(&format!("{name}:0:0: note: in bytecode version 6 produced by: MLIR22.1.8")), "{text}");
        fuzzing::bytecode(&data);
    }
}
