//! `ccl-gen --litmus`'s programs (`cclir::generator::litmus`) are input
//! every tool of the differential tests accepts: each parses and verifies
//! with the real MLIR, and compiles for the simulator as generated, after
//! `ccl-insert-comm-fence` (the rules' markers) and after the minimal
//! placement (`ccl-sink-comm-markers` on the rules' output). The run prints
//! the coverage of the programs it checked, and every feature occurs in them.
//! (Running them, against the reference semantics, is the differential
//! tests' job; `bench/litmus_survey.py` measures them.)
//!
//! `CCLIR_LITMUS_CASES` (default 300) programs from seed
//! `CCLIR_LITMUS_SEED` (default 0).

use cclir::generator::litmus::{litmus_program, Coverage};
use cclir::Session;

const INSERT: &str = "builtin.module(ccl-insert-comm-fence)";
const SINK: &str = "builtin.module(func.func(ccl-sink-comm-markers))";

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Compiles `program` for the simulator (the entry `@main`, found by
/// default), or fails naming what did not compile.
fn compiles(program: &cclir::Program<'_>, what: &str, text: &str) {
    if let Err(e) = cclir::sim::compile(program.operation_ref(), None, None) {
        panic!("{what}: ccl-sim cannot compile it: {e:?}\n{text}");
    }
}

#[test]
fn litmus_programs_verify_and_compile_for_the_simulator() {
    let cases = env_u64("CCLIR_LITMUS_CASES", 300);
    let base = env_u64("CCLIR_LITMUS_SEED", 0);
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let insert = session.pipeline(INSERT).expect("the insert pipeline");
    let sink = session.pipeline(SINK).expect("the sink pipeline");
    let mut coverage = Coverage::default();
    let mut ranks = [0usize; 2];
    for seed in base..base + cases {
        let litmus = litmus_program(seed);
        let what = format!("ccl-gen --litmus {seed}");
        let header = format!("// ccl-gen --litmus {seed}: run with ccl-sim --ranks {}\n", litmus.ranks);
        assert!(litmus.text.starts_with(&header), "{what}: the first line does not name the rank count");
        assert!(matches!(litmus.ranks, 2 | 3), "{what}: {} ranks", litmus.ranks);
        ranks[litmus.ranks as usize - 2] += 1;
        let mut program = session.parse(&litmus.text, "litmus.mlir").unwrap_or_else(|e| {
            panic!("{what} does not verify:\n{}\n{}", session.render(e.diagnostics()), litmus.text)
        });
        compiles(&program, &what, &litmus.text);
        session
            .run(&insert, &mut program)
            .unwrap_or_else(|e| panic!("{what}: insert failed:\n{}", session.render(e.diagnostics())));
        let inserted = program.to_text();
        compiles(&program, &format!("{what}, inserted"), &inserted);
        session
            .run(&sink, &mut program)
            .unwrap_or_else(|e| panic!("{what}: sink failed:\n{}\n{inserted}", session.render(e.diagnostics())));
        compiles(&program, &format!("{what}, minimal placement"), &program.to_text());
        let _ = session.take_diagnostics();
        coverage.add(&litmus.features);
    }
    println!("litmus_generated: {cases} programs ({} on 2 ranks, {} on 3) from seed {base}", ranks[0], ranks[1]);
    print!("{}", coverage.table());
    assert_eq!(coverage.programs as u64, cases);
    if cases >= 300 {
        let missing: Vec<&str> = coverage.below(f64::MIN_POSITIVE).iter().map(|f| f.name()).collect();
        assert!(missing.is_empty(), "features no program of the run has: {missing:?}");
    }
}
