//! `ccl-check-signals` held against the reference semantics
//! (`cclir::sim::reference`): on the litmus programs of `ccl-gen --litmus`
//! (signals that go up and down, `set` after `add`, `ge` and `eq` waits,
//! writes in flight, launches and collectives), every finding the analysis
//! reports must be a race or a deadlock some execution of the reference
//! reaches, of the same kind. The analysis reports a bug only with a
//! schedule that shows it, so an alarm on a program the reference calls
//! clean is a false alarm and fails the test. Each program runs raw and
//! with the rules' markers (`ccl-insert-comm-fence`), which leave mostly
//! the signals' own bugs. Its misses (the reference
//! finds something, the analysis nothing) are its recall, printed, not
//! asserted: the analysis checks signal discipline, not markers.
//!
//! `CCLIR_SIGNALS_LITMUS` sets how many litmus seeds.

use cclir::generator::litmus::litmus_program;
use cclir::sim::{self, Options, SearchConfig};
use cclir::{Session, Severity};
use std::collections::BTreeMap;

/// States the reference may visit per program before the program is left
/// out (and counted).
const REFERENCE_STATES: usize = 300_000;

fn seeds() -> u64 {
    std::env::var("CCLIR_SIGNALS_LITMUS").ok().and_then(|v| v.parse().ok()).unwrap_or(if cfg!(debug_assertions) {
        20
    } else {
        300
    })
}

/// What the reference reaches on one program: (race, deadlock), or `None`
/// when it did not finish.
fn reference(program: &cclir::Program<'_>, ranks: u16) -> Option<(bool, bool)> {
    let text = program.to_text();
    let compiled = sim::compile(program.operation_ref(), None, Some(&text)).expect("ccl-sim compiles a litmus program");
    let options = Options {
        ranks,
        max_states: REFERENCE_STATES,
        search_config: SearchConfig { threads: 1, ..Options::default().search_config },
        ..Options::default()
    };
    let (_, explored) = sim::run_reference(compiled, &options, false).ok()?;
    if !explored.complete {
        return None;
    }
    let kinds = explored.kinds();
    Some((kinds.contains(&sim::reference::Kind::Race), kinds.contains(&sim::reference::Kind::Deadlock)))
}

#[test]
fn every_finding_of_check_signals_is_a_race_or_deadlock_of_the_reference() {
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let (mut programs, mut unfinished, mut no_conclusion) = (0, 0, 0);
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    let mut false_alarms = Vec::new();
    let insert = session.pipeline("builtin.module(ccl-insert-comm-fence)").expect("the rules' pipeline");
    for (seed, placed) in (0..seeds()).flat_map(|seed| [(seed, false), (seed, true)]) {
        let litmus = litmus_program(seed);
        let mut program = session.parse(&litmus.text, "litmus.mlir").expect("a litmus program parses");
        // With the rules' markers, most of the races the markers exist for
        // go: what remains is the signals' own.
        if placed && session.run(&insert, &mut program).is_err() {
            let _ = session.take_diagnostics();
            continue;
        }
        let Some((race, deadlock)) = reference(&program, litmus.ranks) else {
            unfinished += 1;
            continue;
        };
        programs += 1;
        let pipeline = session
            .pipeline(&format!("builtin.module(ccl-check-signals{{ranks={}}})", litmus.ranks))
            .expect("the analysis's pipeline");
        // A checker: it leaves the program as it was.
        let (failed, mut diagnostics) = match session.run(&pipeline, &mut program) {
            Ok(()) => (false, Vec::new()),
            Err(cclir::Error::Pass { diagnostics }) => (true, diagnostics),
            Err(other) => panic!("seed {seed}: the analysis did not run: {other}"),
        };
        diagnostics.extend(session.take_diagnostics());
        let errors: Vec<String> =
            diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| d.message.clone()).collect();
        if diagnostics.iter().any(|d| d.message.contains("no conclusion")) {
            no_conclusion += 1;
        }
        assert_eq!(failed, !errors.is_empty(), "seed {seed}: the pass fails exactly when it reports an error");
        for message in &errors {
            let explained = if message.contains("data race") || message.contains("R6") || message.contains("R7") {
                race
            } else {
                race || deadlock
            };
            if !explained {
                false_alarms.push(format!("ccl-gen --litmus {seed} (markers placed: {placed}): {message} (reference: race {race}, deadlock {deadlock})"));
            }
        }
        let verdict = match (errors.is_empty(), race || deadlock) {
            (false, true) => "found (the reference agrees)",
            (false, false) => "false alarm",
            (true, true) => "missed (the reference finds a race or deadlock)",
            (true, false) => "clean (the reference agrees)",
        };
        *tally.entry(verdict).or_default() += 1;
    }
    println!(
        "ccl-check-signals vs the reference: {programs} litmus programs ({unfinished} beyond the reference's bound, \
         {no_conclusion} without a conclusion from the analysis)"
    );
    for (verdict, count) in &tally {
        println!("  {verdict}: {count}");
    }
    assert!(programs >= seeds() as usize, "only {programs} programs held: the reference finished too few");
    assert!(false_alarms.is_empty(), "findings the reference does not reach:\n{}", false_alarms.join("\n"));
}
