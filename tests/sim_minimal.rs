//! The minimal placement (`ccl-pipeline{placement=minimal}`: the insert
//! pass's markers moved by `ccl-sink-comm-markers`), proven by the checker
//! and confirmed by ccl-sim, on the generated exchange programs
//! (`ccl-gen --exchange`), the lowered all_to_all_v protocol and the
//! programs of the lit suite that the markers make race-free:
//!
//! 1. the checker accepts every optimized program, and no schedule of it
//!    races (an exhaustive search);
//! 2. each marker left is deleted, one at a time: the deletion must be
//!    rejected by the checker or race in the simulator (counted apart). A
//!    deletion that does neither is listed with what the marker is; the
//!    kinds allowed to do so are the ones docs/passes/sink-comm-markers.md
//!    ("What the proof finds") explains, and any other fails the test.
//!
//! `CCLIR_SIM_CASES` (default 300) exchange programs; the protocol at P = 2,
//! B = 4 only in an optimized build (scripts/test.sh runs this test in
//! release too), as in tests/sim_protocol.rs.

use cclir::generator::{exchange::exchange_program, protocol::all_to_all_v_program};
use cclir::sim::{self, report, Finding, Options, Outcome, Search};
use cclir::Session;
use std::collections::BTreeMap;

const MINIMAL: &str = "builtin.module(ccl-pipeline{placement=minimal})";
const MINIMAL_LOWERED: &str = "builtin.module(ccl-pipeline{lower-collectives=true placement=minimal})";
const VERIFY: &str = "builtin.module(ccl-verify-comm-order)";
/// Far above what these programs need, so reaching it fails the test.
const MAX_STATES: usize = 3_000_000;

/// One program to optimize and prove.
struct Case {
    name: String,
    source: String,
    pipeline: &'static str,
    ranks: u16,
    entry: Option<&'static str>,
}

/// What a marker is, from its line and the lines around it.
fn marker_kind(lines: &[&str], at: usize) -> &'static str {
    let line = lines[at].trim();
    let before = lines[..at].iter().rev().map(|l| l.trim()).find(|l| !l.starts_with("ccl.cacheinvalid"));
    let at_start = before.is_some_and(|l| l.starts_with("func.func"));
    let in_guard = before.is_some_and(|l| l.starts_with("scf.if") && lines[at - 1].trim() != line)
        && lines[..at].iter().rev().find(|l| l.trim().starts_with("scf.if")).is_some_and(|l| l.contains("%"))
        && lines[at + 1..].iter().map(|l| l.trim()).find(|l| !l.starts_with("ccl.")).is_some_and(|l| l == "}");
    let before_return = lines[at + 1..]
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.starts_with("ccl.cacheinvalid") && !l.starts_with("ccl.fence"))
        .is_some_and(|l| l == "return");
    match (line, at_start, before_return) {
        ("ccl.fence", true, _) => "fence at kernel start",
        ("ccl.fence", _, true) => "fence before return",
        ("ccl.fence", _, _) if in_guard => "fence in a trip guard",
        ("ccl.fence", _, _) => "fence",
        ("ccl.cacheinvalid", true, _) => "whole-GM invalidate at kernel start",
        ("ccl.cacheinvalid", _, true) => "whole-GM invalidate before return",
        ("ccl.cacheinvalid", _, _) => "whole-GM invalidate",
        (other, _, _) if other.starts_with("ccl.cacheinvalid %") && in_guard => "region invalidate in a trip guard",
        (other, _, _) if other.starts_with("ccl.cacheinvalid %") => "region invalidate",
        (other, _, _) => panic!("not a marker: {other}"),
    }
}

/// The lines of `text` that are markers.
fn marker_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("ccl.fence") || l.trim_start().starts_with("ccl.cacheinvalid"))
        .map(|(i, _)| i)
        .collect()
}

/// The function a line is in.
fn function_of<'t>(lines: &[&'t str], at: usize) -> &'t str {
    lines[..at]
        .iter()
        .rev()
        .find_map(|l| l.trim().strip_prefix("func.func @"))
        .map(|rest| rest.split('(').next().unwrap_or(rest))
        .unwrap_or("?")
}

enum Verdict {
    Clean(usize),
    Race,
}

fn simulate(program: &cclir::Program<'_>, case: &Case, search: &Search, what: &str) -> Verdict {
    let options = Options {
        ranks: case.ranks,
        entry: case.entry.map(str::to_string),
        search: search.clone(),
        max_states: MAX_STATES,
        ..Options::default()
    };
    let (machine, outcome) = sim::simulate(program.operation_ref(), &options)
        .unwrap_or_else(|e| panic!("{what}: ccl-sim cannot run it: {e:?}\n{}", program.to_text()));
    match outcome {
        Outcome::Clean { states, .. } => Verdict::Clean(states),
        Outcome::Found { finding, last, .. } => match &*finding {
            Finding::Race(_) => Verdict::Race,
            _ => panic!("{what}: {}\n{}", report::finding(&machine, &finding, &last), program.to_text()),
        },
        Outcome::Limit { states, .. } => panic!("{what}: the search stopped at {states} states: no conclusion"),
    }
}

#[derive(Default)]
struct Tally {
    programs: usize,
    states: usize,
    /// Per kind of marker: [deleted, rejected by the checker, raced, neither].
    by_kind: BTreeMap<&'static str, [usize; 4]>,
    /// The deletions that neither the checker nor the simulator noticed.
    neither: Vec<(&'static str, String)>,
}

impl Tally {
    fn print(&self, title: &str) {
        println!("{title}: {} programs, {} states in all", self.programs, self.states);
        let mut total = [0; 4];
        for (kind, counts) in &self.by_kind {
            println!(
                "  deleting {kind}: {} deletions, {} rejected by the checker, {} race, {} neither",
                counts[0], counts[1], counts[2], counts[3]
            );
            for (t, c) in total.iter_mut().zip(counts) {
                *t += c;
            }
        }
        println!(
            "  in all: {} deletions, {} rejected by the checker, {} race, {} neither",
            total[0], total[1], total[2], total[3]
        );
        for (kind, what) in &self.neither {
            println!("  neither: {kind}: {what}");
        }
    }
}

/// Optimizes `case`, proves it, and deletes each of its markers.
fn prove(session: &Session, verify: &cclir::BuiltPipeline<'_>, case: &Case, search: &Search, tally: &mut Tally) {
    let what = &case.name;
    let pipeline = session.pipeline(case.pipeline).expect("the pipeline builds");
    let mut program = session.parse(&case.source, "input.mlir").unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if let Err(e) = session.run(&pipeline, &mut program) {
        panic!("{what}: the minimal placement is rejected:\n{}\n{}", session.render(e.diagnostics()), case.source);
    }
    let optimized = program.to_text();
    match simulate(&program, case, search, what) {
        Verdict::Clean(states) => tally.states += states,
        Verdict::Race => panic!("{what}: the minimal placement races:\n{optimized}"),
    }
    tally.programs += 1;
    let lines: Vec<&str> = optimized.lines().collect();
    for victim in marker_lines(&optimized) {
        let kind = marker_kind(&lines, victim);
        let mutant: String =
            lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
        let mut program = session.parse(&mutant, "mutant.mlir").expect("a mutant parses");
        let rejected = session.run(verify, &mut program).is_err();
        let _ = session.take_diagnostics();
        let raced = matches!(simulate(&program, case, search, what), Verdict::Race);
        let entry = tally.by_kind.entry(kind).or_default();
        entry[0] += 1;
        entry[1] += rejected as usize;
        entry[2] += raced as usize;
        if !rejected && !raced {
            entry[3] += 1;
            tally.neither.push((kind, format!("{what}, line {} in @{}", victim + 1, function_of(&lines, victim))));
        }
    }
}

fn session() -> Session {
    Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() })
}

#[test]
fn minimal_placement_of_exchange_programs_is_proven_and_every_marker_is_needed() {
    let cases = std::env::var("CCLIR_SIM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300u64);
    let session = session();
    let verify = session.pipeline(VERIFY).expect("verify pipeline");
    let mut tally = Tally::default();
    for seed in 0..cases {
        let exchange = exchange_program(seed);
        let case = Case {
            name: format!("ccl-gen --exchange {seed}"),
            source: exchange.text,
            pipeline: MINIMAL,
            ranks: exchange.ranks,
            entry: None,
        };
        prove(&session, &verify, &case, &Search::Exhaustive, &mut tally);
    }
    tally.print("exchange programs, minimal placement");
    assert_eq!(tally.programs as u64, cases);
}

#[test]
fn minimal_placement_of_the_protocol_is_proven_and_every_marker_is_needed() {
    let session = session();
    let verify = session.pipeline(VERIFY).expect("verify pipeline");
    let mut tally = Tally::default();
    let mut sizes = vec![(2, 1), (2, 2), (3, 1)];
    if !cfg!(debug_assertions) {
        sizes.push((2, 4));
    }
    for (p, b) in sizes {
        let case = Case {
            name: format!("all_to_all_v P = {p}, B = {b}"),
            source: all_to_all_v_program(p, b, 1, 2),
            pipeline: MINIMAL_LOWERED,
            ranks: p as u16,
            entry: None,
        };
        prove(&session, &verify, &case, &Search::Exhaustive, &mut tally);
    }
    tally.print("lowered all_to_all_v, minimal placement");
}
