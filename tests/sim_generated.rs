//! ccl-sim as the dynamic ground truth of the insert pass and the checker,
//! on generated programs (`ccl-gen --exchange`: message passing that is
//! synchronized by construction, so the only races left are the ones the
//! markers exist to prevent).
//!
//! For every program:
//! 1. the raw program (no markers) is simulated; how many race is counted;
//! 2. `ccl-insert-comm-fence` output passes the checker and never races on
//!    any schedule (exhaustive search): no exception, since a block's own
//!    accesses are coherent (SEMANTICS.md);
//! 3. each inserted marker is deleted, one at a time. A deletion the checker
//!    accepts must not race either (else the checker is unsound). A deletion
//!    the checker rejects is *dynamic* when some schedule races and
//!    *static-only* when none does: the rules ask for that marker here, but
//!    this program cannot observe its absence. The static-only share is a
//!    measure of how conservative the rules are; it is printed per kind of
//!    marker. Every kind must be dynamic somewhere.
//!
//! `CCLIR_SIM_CASES` (default 300) programs; `CCLIR_SIM_SEED` moves the
//! window of seeds.

mod common;

use cclir::generator::exchange::exchange_program;
use cclir::sim::{self, report, Finding, Options, Outcome, Search};
use cclir::Session;
use common::inserted_lines;
use std::collections::BTreeMap;

const INSERT: &str = "builtin.module(ccl-insert-comm-fence)";
/// The checker on the run at `ranks` ranks.
fn verify_text(ranks: u16) -> String {
    format!("builtin.module(ccl-verify-comm-order{{ranks={ranks}}})")
}
/// Far above what these programs need (tens to a few thousand states), so
/// reaching it is a failure, not a skip.
const MAX_STATES: usize = 1_000_000;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// What a marker is there for, from the line it is and the line before it.
fn marker_kind(line: &str, before: &str) -> &'static str {
    let before = before.trim();
    let at_kernel_start = before.starts_with("func.func") || before == "ccl.cacheinvalid";
    match line.trim() {
        "ccl.cacheinvalid" if before.starts_with("func.func") => "prologue ccl.cacheinvalid",
        "ccl.fence" if at_kernel_start => "prologue ccl.fence",
        "ccl.cacheinvalid" => "ccl.cacheinvalid after a wait",
        "ccl.fence" => "ccl.fence after a publish",
        other if other.starts_with("ccl.cacheinvalid %") => "ccl.cacheinvalid %w after a local publish",
        other => panic!("an inserted line that is no marker: {other}"),
    }
}

/// Races, deadlocks and bounds of one search, for the asserts.
enum Verdict {
    Clean(usize),
    Race(String),
    Other(String),
}

/// Simulates `program` (already parsed and checked by the caller).
fn simulate(program: &cclir::Program<'_>, ranks: u16) -> Verdict {
    let options = Options { ranks, search: Search::Exhaustive, max_states: MAX_STATES, ..Options::default() };
    let (machine, outcome) = sim::simulate(program.operation_ref(), &options)
        .unwrap_or_else(|e| panic!("ccl-sim cannot run it: {e:?}\n{}", program.to_text()));
    match outcome {
        Outcome::Clean { states, .. } => Verdict::Clean(states),
        Outcome::Found { finding, last, .. } => {
            let text = report::finding(&machine, &finding, &last);
            match &*finding {
                Finding::Race(_) => Verdict::Race(text),
                _ => Verdict::Other(text),
            }
        }
        Outcome::Limit { states, .. } => Verdict::Other(format!("the search hit its bound at {states} states")),
    }
}

#[derive(Default)]
struct Counts {
    programs: usize,
    raw_races: usize,
    states: usize,
    max_states: usize,
    /// Per kind of marker: [deleted, rejected by the checker, raced].
    by_kind: BTreeMap<&'static str, [usize; 3]>,
}

fn run_case(
    session: &Session,
    insert: &cclir::BuiltPipeline<'_>,
    verify: &[cclir::BuiltPipeline<'_>],
    seed: u64,
    counts: &mut Counts,
) {
    let exchange = exchange_program(seed);
    counts.programs += 1;
    let (raw, ranks) = (&exchange.text, exchange.ranks);
    let verify = &verify[usize::from(ranks)];
    let what = format!("ccl-gen --exchange {seed} (P = {ranks})");

    // 1. The raw program.
    let mut program = session.parse(raw, "exchange.mlir").unwrap_or_else(|e| panic!("{what}: {e:?}\n{raw}"));
    let printed = program.to_text();
    match simulate(&program, ranks) {
        Verdict::Race(_) => counts.raw_races += 1,
        Verdict::Clean(_) => {}
        Verdict::Other(text) => panic!("{what}: the raw program: {text}\n{raw}"),
    }

    // 2. The inserted program: accepted, and clean on every schedule.
    session.run(insert, &mut program).unwrap_or_else(|e| panic!("{what}: insert failed: {:?}", e.diagnostics()));
    let inserted = program.to_text();
    let mut checked = session.parse(&inserted, "inserted.mlir").expect("insert(p) verifies");
    if let Err(e) = session.run(verify, &mut checked) {
        panic!("{what}: the checker rejects insert(p):\n{}\n{inserted}", session.render(e.diagnostics()));
    }
    match simulate(&checked, ranks) {
        Verdict::Clean(states) => {
            counts.states += states;
            counts.max_states = counts.max_states.max(states);
        }
        Verdict::Race(text) | Verdict::Other(text) => panic!("{what}: insert(p) is not clean:\n{text}\n{inserted}"),
    }
    // 3. Each marker deleted.
    let lines: Vec<&str> = inserted.lines().collect();
    let markers = inserted_lines(&printed, &inserted, &what);
    assert!(!markers.is_empty(), "{what}: the insert pass placed no marker");
    for victim in markers {
        let kind = marker_kind(lines[victim], lines[victim - 1]);
        let mutant: String =
            lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
        let mut program = session.parse(&mutant, "mutant.mlir").expect("a mutant parses");
        let rejected = session.run(verify, &mut program).is_err();
        let _ = session.take_diagnostics();
        // The checker changes nothing, so the program it checked is the
        // mutant as parsed.
        let raced = match simulate(&program, ranks) {
            Verdict::Race(text) => {
                assert!(
                    rejected,
                    "{what}: the checker accepts deleting line {} ({kind}) but it races:\n{text}\n{mutant}",
                    victim + 1
                );
                true
            }
            Verdict::Clean(_) => false,
            Verdict::Other(text) => panic!("{what}: deleting line {} ({kind}): {text}", victim + 1),
        };
        let entry = counts.by_kind.entry(kind).or_default();
        entry[0] += 1;
        entry[1] += rejected as usize;
        entry[2] += raced as usize;
    }
}

#[test]
fn inserted_markers_are_enough_and_deleting_them_races() {
    let cases = env_u64("CCLIR_SIM_CASES", 300);
    let base = env_u64("CCLIR_SIM_SEED", 0);
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let insert = session.pipeline(INSERT).expect("insert pipeline");
    // The checker at each rank count the generator uses.
    let verify: Vec<cclir::BuiltPipeline<'_>> =
        (0..=8).map(|ranks| session.pipeline(&verify_text(ranks.max(1))).expect("verify pipeline")).collect();
    let mut counts = Counts::default();
    let started = std::time::Instant::now();
    for seed in base..base + cases {
        run_case(&session, &insert, &verify, seed, &mut counts);
        let _ = session.take_diagnostics();
    }
    println!(
        "sim_generated: {} programs in {:.1?}; {} race without markers; with them every one is clean ({} states \
         in all, at most {} in one program)",
        counts.programs,
        started.elapsed(),
        counts.raw_races,
        counts.states,
        counts.max_states
    );
    let (mut deleted, mut rejected, mut raced) = (0, 0, 0);
    for (kind, [d, c, r]) in &counts.by_kind {
        println!(
            "  deleting {kind}: {d} deletions, {c} rejected by the checker, {r} race (dynamic), {} static-only",
            c - r
        );
        (deleted, rejected, raced) = (deleted + d, rejected + c, raced + r);
    }
    println!("  in all: {deleted} deletions, {rejected} rejected, {raced} dynamic, {} static-only", rejected - raced);
    assert_eq!(counts.programs as u64, cases);
    assert!(
        counts.raw_races * 2 >= counts.programs,
        "fewer than half the raw programs race: the generator lost its point"
    );
    for kind in [
        "ccl.fence after a publish",
        "ccl.cacheinvalid %w after a local publish",
        "ccl.cacheinvalid after a wait",
        "prologue ccl.cacheinvalid",
    ] {
        let [d, _, r] = counts.by_kind.get(kind).copied().unwrap_or_default();
        assert!(d > 0, "no {kind} was ever deleted");
        assert!(r > 0, "deleting {kind} never raced in {d} deletions");
    }
}
