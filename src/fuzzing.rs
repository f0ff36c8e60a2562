//! The bodies of the cargo-fuzz targets in `fuzz/` (see docs/testing.md).
//! They live here, in the library, so that stable `cargo test` can replay
//! the regression inputs through exactly the code the fuzzer runs
//! (tests/fuzz_regressions.rs), and so the fuzz crate stays three lines per
//! target.
//!
//! Each function takes arbitrary bytes, must never panic, and checks a
//! property on the way (a round trip, an internal-error-free run).

use crate::{
    generator::{self, Config, Rng},
    passes::framework::{split_option_pairs, PassOptions},
    pipeline::grammar,
    Session, SessionConfig,
};
use std::cell::RefCell;

/// The pipeline parser: every input parses or fails with a printable error;
/// what parses prints back to text that parses to the same tree.
pub fn pipeline_grammar(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match grammar::parse(text) {
        Ok(ast) => {
            let printed = ast.to_text();
            let again = grammar::parse(&printed)
                .unwrap_or_else(|error| panic!("printed pipeline {printed:?} does not parse: {error}"));
            assert_eq!(again.to_text(), printed, "printing is not stable");
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
}

/// The option parser: `split_option_pairs`, and `PassOptions::parse` for
/// every registered pass, on the same text; errors must print.
pub fn pass_options(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(pairs) = split_option_pairs(text) {
        for (key, _) in &pairs {
            assert!(!key.is_empty(), "an empty option name from {text:?}");
        }
    }
    for info in crate::passes::all_passes() {
        match PassOptions::parse(info, text) {
            Ok(options) => {
                // Every declared option has a value that prints.
                for (_, value) in options.iter() {
                    let _ = value.to_string();
                }
            }
            Err(error) => {
                let _ = error.to_string();
            }
        }
    }
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// The pipelines the driver target runs, picked by the input.
const PIPELINES: &[&str] = &[
    "builtin.module(ccl-pipeline)",
    "builtin.module(ccl-verify-comm-order)",
    "builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)",
    "builtin.module(ccl-insert-comm-fence,ccl-insert-comm-fence)",
    "builtin.module(ccl-admit-launch-width{lower-dynamic=true},func.func(cse),ccl-verify-comm-order{max-errors=3})",
];

/// The whole path in process (parse, verify, build, run, print) on a
/// generated program that the input mutates, or on the input itself as
/// MLIR. A pass may reject the program; it must not panic (a panic is
/// turned into an "internal error" diagnostic, which fails the target).
pub fn driver(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let pipeline = PIPELINES[(selector as usize >> 1) % PIPELINES.len()];
    let text = if selector & 1 == 0 {
        mutate_generated(rest)
    } else {
        match std::str::from_utf8(rest) {
            Ok(text) => text.to_string(),
            Err(_) => return,
        }
    };
    run_text(&text, pipeline);
}

/// Parses and runs `text` through `pipeline`, panicking only on an internal
/// error of a pass.
pub fn run_text(text: &str, pipeline: &str) {
    SESSION.with(|slot| {
        let mut slot = slot.borrow_mut();
        let session = slot.get_or_insert_with(|| {
            Session::with_config(SessionConfig { threading: false, ..SessionConfig::default() })
        });
        let _ = session.take_diagnostics();
        let Ok(mut program) = session.parse(text, "fuzz.mlir") else {
            return;
        };
        let built = session.pipeline(pipeline).expect("the fuzz pipelines are valid");
        let result = session.run(&built, &mut program);
        let diagnostics = match &result {
            Ok(()) => session.take_diagnostics(),
            Err(error) => error.diagnostics().to_vec(),
        };
        for diagnostic in &diagnostics {
            assert!(
                !diagnostic.message.contains("internal error"),
                "{pipeline} on\n{text}\nreported {}",
                diagnostic.message
            );
        }
        if result.is_ok() {
            let printed = program.to_text();
            drop(program);
            // What a pipeline prints parses again.
            if session.parse(&printed, "printed.mlir").is_err() {
                panic!("{pipeline} printed a program that does not parse:\n{printed}");
            }
        }
        let _ = session.take_diagnostics();
    })
}

/// A small generated program (shape from the first bytes), then line edits
/// driven by the remaining bytes: delete, duplicate, or swap lines. Most
/// mutants stop verifying (the parser rejects them, which is fine); those
/// that verify reach the passes with shapes the generator never makes.
pub fn mutate_generated(data: &[u8]) -> String {
    let mut bytes = data.iter().copied();
    let mut next = || bytes.next().unwrap_or(0);
    let seed = u64::from_le_bytes([next(), next(), next(), next(), 0, 0, 0, 0]);
    let config = Config {
        seed,
        ops: 4 + next() as usize % 60,
        depth: next() as usize % 5,
        functions: Some(1 + next() as usize % 4),
    };
    let text = generator::generate(&config);
    let mut lines: Vec<&str> = text.lines().collect();
    let mut rng = Rng::new(seed);
    let edits: Vec<u8> = data.iter().skip(7).copied().collect();
    for pair in edits.chunks(2) {
        if lines.len() < 3 {
            break;
        }
        let at = 1 + (pair[0] as usize + rng.below(lines.len())) % (lines.len() - 2);
        match pair.get(1).copied().unwrap_or(0) % 3 {
            0 => {
                lines.remove(at);
            }
            1 => {
                let line = lines[at];
                lines.insert(at, line);
            }
            _ => {
                let other = 1 + rng.below(lines.len() - 2);
                lines.swap(at, other);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}
