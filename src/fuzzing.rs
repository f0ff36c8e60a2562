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
    tools::input::bytecode::MAGIC,
    Session, SessionConfig,
};
use std::cell::RefCell;

/// MLIR's pipeline parser with the Rust passes in its registry: every text
/// builds or fails with a printable error, and what builds prints back to
/// a pipeline that builds to the same text.
pub fn pipeline(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    with_session(|session| match session.pipeline(text) {
        Ok(built) => {
            let printed = built.to_text();
            let again = session
                .pipeline(&printed)
                .unwrap_or_else(|error| panic!("printed pipeline {printed:?} does not build: {error}"));
            assert_eq!(again.to_text(), printed, "printing is not stable");
        }
        Err(error) => {
            let _ = error.to_string();
        }
    })
}

/// The options of every Rust pass and named pipeline, as MLIR parses them
/// and the passes check them: each text is accepted or fails with a
/// printable error.
pub fn pass_options(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let names = crate::passes::all_passes()
        .iter()
        .map(|info| info.argument)
        .chain(crate::passes::all_pipelines().iter().map(|info| info.argument));
    with_session(|session| {
        for name in names {
            if let Err(error) = session.pipeline(&format!("builtin.module({name}{{{text}}})")) {
                let _ = error.to_string();
            }
        }
    })
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's session (one per thread: a context is
/// costly to make for every input).
fn with_session(f: impl FnOnce(&Session)) {
    SESSION.with(|slot| {
        let mut slot = slot.borrow_mut();
        let session = slot.get_or_insert_with(|| {
            Session::with_config(SessionConfig { threading: false, ..SessionConfig::default() })
        });
        f(session)
    })
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
    run_input(text.as_bytes(), "fuzz.mlir", pipeline)
}

/// MLIR's bytecode reader with every dialect ccl-opt has: any bytes, read
/// as bytecode (the magic number is put in front where it is missing),
/// are rejected with a diagnostic, or read into IR that verifies, runs
/// through `ccl-pipeline` without an internal error and prints. Seeds are
/// files `ccl-opt --emit-bytecode` wrote (fuzz/regressions/bytecode/).
///
/// The corruptions MLIR's reader does not survive in its header, string
/// table and attribute/type offsets are rejected before it runs
/// (`input::bytecode`); a few others crash or exhaust the reader itself,
/// in mlir-opt as in ccl-opt (docs/ccl-opt.md, "Limits"): those are kept
/// as lit tests, not replayed in process.
pub fn bytecode(data: &[u8]) {
    let input = if data.starts_with(MAGIC) { data.to_vec() } else { [MAGIC, data].concat() };
    run_input(&input, "fuzz.mlirbc", "builtin.module(ccl-pipeline)")
}

/// Parses `input` (text or bytecode) as buffer `name` and runs it through
/// `pipeline`, panicking only on an internal error of a pass or on printed
/// IR that does not parse again.
fn run_input(input: &[u8], name: &str, pipeline: &str) {
    let text = || String::from_utf8_lossy(input).into_owned();
    with_session(|session| {
        let _ = session.take_diagnostics();
        let Ok(mut program) = session.parse_bytes(input, name) else {
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
                "{pipeline} on\n{}\nreported {}",
                text(),
                diagnostic.message
            );
        }
        if result.is_ok() {
            let printed = program.to_text();
            drop(program);
            // What a pipeline prints parses again, where the input itself
            // prints text that parses: MLIR's bytecode reader accepts some
            // IR its text parser rejects (a memref whose memory space is a
            // location), and prints it as mlir-opt does.
            if session.parse(&printed, "printed.mlir").is_err() && input_round_trips(session, input, name) {
                panic!("{pipeline} printed a program that does not parse:\n{printed}");
            }
        }
        let _ = session.take_diagnostics();
    })
}

/// Whether `input`, parsed and printed with no pass run, parses again.
fn input_round_trips(session: &Session, input: &[u8], name: &str) -> bool {
    let Ok(program) = session.parse_bytes(input, name) else {
        return false;
    };
    let printed = program.to_text();
    drop(program);
    let parses = session.parse(&printed, "input-printed.mlir").is_ok();
    let _ = session.take_diagnostics();
    parses
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
