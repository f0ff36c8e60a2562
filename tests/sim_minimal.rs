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

/// The options of `ccl-pipeline` a case runs with (its rank count added).
const MINIMAL: &str = "placement=minimal";
const MINIMAL_LOWERED: &str = "lower-collectives=true placement=minimal";

/// The checker on the run at `ranks` ranks (`sync=false`: the markers alone).
fn verify_text(ranks: u16, sync: bool) -> String {
    format!("builtin.module(ccl-verify-comm-order{{ranks={ranks} sync={sync}}})")
}
/// Far above what these programs need, so reaching it fails the test.
const MAX_STATES: usize = 3_000_000;

/// One program to optimize and prove.
struct Case {
    name: String,
    source: String,
    pipeline: &'static str,
    ranks: u16,
    entry: Option<&'static str>,
    /// How each mutant is searched: exhaustively, or, where one search
    /// takes tens of seconds, by random schedules (a race they find is a
    /// race; none found lists the marker with the others).
    mutants: Search,
    /// How the optimized program itself is searched.
    search: Search,
    /// The entry's scalar arguments, by name (positions are looked up in
    /// the source: the optimized program is printed with %arg0, ...).
    args: Vec<(&'static str, &'static str)>,
    /// Whether the checker proves the synchronisation too (`sync`).
    sync: bool,
}

impl Case {
    fn new(name: String, source: String, pipeline: &'static str, ranks: u16) -> Self {
        Case {
            name,
            source,
            pipeline,
            ranks,
            entry: None,
            mutants: Search::Exhaustive,
            search: Search::Exhaustive,
            args: Vec::new(),
            sync: true,
        }
    }

    /// The `--arg` options of the case, by position in the entry's
    /// signature.
    fn entry_args(&self) -> Vec<sim::EntryArg> {
        let Some(entry) = self.entry else { return Vec::new() };
        let start = self.source.find(&format!("func.func @{entry}(")).expect("the entry is in the source");
        let signature = &self.source[start..];
        let signature = &signature[..signature.find(')').unwrap_or(signature.len())];
        let order: Vec<&str> =
            signature.split('%').skip(1).filter_map(|part| part.split_once(':').map(|(name, _)| name)).collect();
        self.args
            .iter()
            .map(|(name, value)| {
                let position = order.iter().position(|n| n == name).expect("a named argument of the entry");
                sim::EntryArg { key: position.to_string(), value: value.to_string() }
            })
            .collect()
    }
}

/// Where a marker came from: the op the insert pass placed it for, which
/// its location names (the insert pass gives a marker the location of the
/// op it follows, a prologue the function's; the sink pass keeps them).
/// `source` is the program as parsed, `aliases` the `#locN = loc(...)`
/// lines of the optimized program printed with its locations.
fn provenance(source: &[&str], aliases: &BTreeMap<&str, &str>, marker: &str) -> &'static str {
    let mut loc = marker.rsplit_once(" loc(").map(|(_, l)| l.trim_end_matches(')')).unwrap_or("");
    let mut step = None;
    // Follow aliases and named locations down to a file position.
    for _ in 0..8 {
        if let Some(definition) = aliases.get(loc) {
            loc = definition.trim_start_matches("loc(").trim_end_matches(')');
            continue;
        }
        if let Some(rest) = loc.strip_prefix("\"ccl-lower-all-to-all-v.") {
            let (name, inner) = rest.split_once("\"(").unwrap_or((rest, ""));
            step.get_or_insert(name.to_string());
            loc = inner.trim_end_matches(')');
            continue;
        }
        break;
    }
    if let Some(step) = step {
        return match step.as_str() {
            "barrier-a.wait" | "barrier-b.wait" => "after a wait",
            "push" => "after a remote publish",
            "snapshot" => "after a local publish",
            _ => "after another protocol step",
        };
    }
    let line: usize = loc.rsplit(':').nth(1).and_then(|l| l.parse().ok()).unwrap_or(0);
    let op = source.get(line.wrapping_sub(1)).map(|l| l.trim()).unwrap_or("");
    // `%x = op ...`: the op.
    let op = if op.starts_with('%') { op.split_once(" = ").map_or(op, |(_, rhs)| rhs) } else { op };
    let first = op.split([' ', '(']).next().unwrap_or("");
    match first {
        "func.func" | "ccl.all_to_all_v" => "prologue",
        "ccl.wait" | "scf.for" | "scf.while" | "scf.parallel" | "scf.forall" => "after a wait",
        "ccl.tile_store" | "ccl.tensor_write" | "ccl.get" => "after a local publish",
        "ccl.put" | "ccl.remote_store" => "after a remote publish",
        "ccl.submit" | "func.call" | "call" => "after an opaque publish",
        "ccl.fence" | "ccl.cacheinvalid" => "written in the input",
        _ => panic!("a marker located at {loc:?}, line {line}: {op:?}"),
    }
}

/// The kind of a marker line and where it came from.
fn marker_kind(line: &str, origin: &'static str) -> String {
    let line = line.trim();
    let marker = if line.starts_with("ccl.fence") {
        "fence"
    } else if line.starts_with("ccl.cacheinvalid %") {
        "region invalidate"
    } else {
        "whole-GM invalidate"
    };
    format!("{marker} ({origin})")
}

/// The lines of `text` that are markers.
fn marker_lines(text: &str) -> Vec<usize> {
    let is_marker = |l: &str| l.starts_with("ccl.fence") || l.starts_with("ccl.cacheinvalid");
    text.lines().enumerate().filter(|(_, l)| is_marker(l.trim_start())).map(|(i, _)| i).collect()
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
        args: case.entry_args(),
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
    by_kind: BTreeMap<String, [usize; 4]>,
    /// The deletions that neither the checker nor the simulator noticed.
    neither: Vec<(String, String)>,
}

impl Tally {
    /// Every marker a deletion of which neither the checker nor the
    /// simulator notices must be one the checker cannot see the need for
    /// (docs/passes/sink-comm-markers.md, "What the proof finds"; each has
    /// a lit-tests/Sim program whose deletion races): a prologue marker
    /// (what the previous launch on the block slot left dirty), or a wait's
    /// invalidate before a put or get or the end of the kernel (they read
    /// their source through the cache; a later launch on the slot reads the
    /// cache). A publish's marker never.
    fn check_neither(&self, title: &str) {
        for (kind, what) in &self.neither {
            let prologue = kind.ends_with("(prologue)");
            // A wait's invalidate (the insert pass's, or the input's own).
            let wait = ["whole-GM invalidate (after a wait)", "whole-GM invalidate (written in the input)"]
                .contains(&kind.as_str())
                && ["ccl.put", "ccl.get", "ccl.tensor_write", "ccl.notify", "return", "scf.yield", "}"]
                    .iter()
                    .any(|next| what.ends_with(&format!("before {next}")));
            assert!(prologue || wait, "{title}: deleting {kind} ({what}) is neither rejected nor racing");
        }
    }

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
fn prove(session: &Session, case: &Case, tally: &mut Tally) {
    let what = &case.name;
    let pipeline = session
        .pipeline(&format!("builtin.module(ccl-pipeline{{{} ranks={} sync={}}})", case.pipeline, case.ranks, case.sync))
        .expect("the pipeline builds");
    let verify = &session.pipeline(&verify_text(case.ranks, case.sync)).expect("the checker builds");
    let mut program = session.parse(&case.source, "input.mlir").unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if let Err(e) = session.run(&pipeline, &mut program) {
        panic!("{what}: the minimal placement is rejected:\n{}\n{}", session.render(e.diagnostics()), case.source);
    }
    let mut printed = Vec::new();
    let options = cclir::PrintOptions { debug_info: true, ..Default::default() };
    program.write(&mut printed, options).expect("printing to memory");
    let optimized = String::from_utf8(printed).expect("MLIR prints UTF-8");
    match simulate(&program, case, &case.search, what) {
        Verdict::Clean(states) => tally.states += states,
        Verdict::Race => panic!("{what}: the minimal placement races:\n{optimized}"),
    }
    tally.programs += 1;
    let lines: Vec<&str> = optimized.lines().collect();
    let source: Vec<&str> = case.source.lines().collect();
    let aliases: BTreeMap<&str, &str> = lines.iter().filter_map(|l| l.split_once(" = loc(")).collect();
    for victim in marker_lines(&optimized) {
        let kind = marker_kind(lines[victim], provenance(&source, &aliases, lines[victim]));
        let mutant: String =
            lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
        let mut program = session.parse(&mutant, "mutant.mlir").expect("a mutant parses");
        let rejected = session.run(verify, &mut program).is_err();
        let _ = session.take_diagnostics();
        let raced = matches!(simulate(&program, case, &case.mutants, what), Verdict::Race);
        let entry = tally.by_kind.entry(kind.clone()).or_default();
        entry[0] += 1;
        entry[1] += rejected as usize;
        entry[2] += raced as usize;
        if !rejected && !raced {
            entry[3] += 1;
            let next = lines[victim + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.starts_with("ccl.fence") && !l.starts_with("ccl.cacheinvalid") && !l.contains(" = arith."))
                .map(|l| {
                    let op = if l.starts_with('%') { l.split_once(" = ").map_or(l, |(_, rhs)| rhs) } else { l };
                    op.split([' ', '(']).next().unwrap_or(op)
                })
                .unwrap_or("");
            tally.neither.push((
                kind,
                format!("{what}, line {} in @{}, before {next}", victim + 1, function_of(&lines, victim)),
            ));
        }
    }
}

fn session() -> Session {
    Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() })
}

#[test]
#[cfg_attr(debug_assertions, ignore = "the optimized build runs it, on more cases (scripts/test.sh)")]
fn minimal_placement_of_exchange_programs_is_proven_and_every_marker_is_needed() {
    let cases = std::env::var("CCLIR_SIM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300u64);
    let session = session();
    let mut tally = Tally::default();
    for seed in 0..cases {
        let exchange = exchange_program(seed);
        let case = Case::new(format!("ccl-gen --exchange {seed}"), exchange.text, MINIMAL, exchange.ranks);
        prove(&session, &case, &mut tally);
    }
    tally.print("exchange programs, minimal placement");
    tally.check_neither("exchange programs");
    assert_eq!(tally.programs as u64, cases);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "the optimized build runs it, on more cases (scripts/test.sh)")]
fn minimal_placement_of_the_protocol_is_proven_and_every_marker_is_needed() {
    let session = session();
    let mut tally = Tally::default();
    // The larger exhaustive searches, each repeated for every marker that
    // does not race when deleted, only in an optimized build; at P = 2,
    // B = 4 (117,881 states, about 15 s each) the mutants get random
    // schedules.
    let mut sizes = vec![(2, 1, Search::Exhaustive), (2, 2, Search::Exhaustive)];
    if !cfg!(debug_assertions) {
        sizes.extend([(3, 1, Search::Exhaustive), (2, 4, Search::Random { runs: 300, seed: 7 })]);
    }
    for (p, b, mutants) in sizes {
        let mut case = Case::new(
            format!("all_to_all_v P = {p}, B = {b}"),
            all_to_all_v_program(p, b, 1, 2),
            MINIMAL_LOWERED,
            p as u16,
        );
        case.mutants = mutants;
        // More blocks than peers split each peer's rows into lanes whose
        // bounds depend on a count each block reads for itself: the
        // synchronisation check cannot tell the lanes apart (a known false
        // alarm, docs/passes/verify-comm-order.md), so the markers alone.
        case.sync = b <= p;
        prove(&session, &case, &mut tally);
    }
    tally.print("lowered all_to_all_v, minimal placement");
    tally.check_neither("lowered all_to_all_v");
}

/// The programs of the lit suite that the markers make race-free, and the
/// MoE example and its lowered variant (at 2 rows, one layer, on 8 ranks:
/// random schedules).
#[test]
#[cfg_attr(debug_assertions, ignore = "the optimized build runs it, on more cases (scripts/test.sh)")]
fn minimal_placement_of_the_examples_is_proven_and_every_marker_is_needed() {
    let session = session();
    let mut tally = Tally::default();
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |path: &str| std::fs::read_to_string(format!("{root}/{path}")).expect("the example is there");
    let lit = [
        ("lit-tests/Sim/local-publish-without-markers.mlir", "main"),
        ("lit-tests/Sim/local-publish-without-markers.mlir", "main_half"),
        ("lit-tests/Sim/local-write-without-markers.mlir", "main"),
        ("lit-tests/Sim/missing-prologue.mlir", "main"),
        ("lit-tests/Sim/put-without-fence.mlir", "main"),
        ("lit-tests/Sim/stale-line-after-wait.mlir", "main"),
        ("lit-tests/Sim/own-plain-write-after-wait.mlir", "main"),
        ("lit-tests/Sim/prologue-lands-previous-launch.mlir", "main"),
        ("lit-tests/Sim/wait-invalidate-for-next-launch.mlir", "main"),
        ("lit-tests/Sim/wait-invalidate-before-put.mlir", "main"),
    ];
    for (path, entry) in lit {
        let mut case = Case::new(format!("{path} @{entry}"), read(path), MINIMAL, 2);
        case.entry = Some(entry);
        prove(&session, &case, &mut tally);
    }
    let mut moe = Case::new("examples/moe_dispatch.mlir".into(), read("examples/moe_dispatch.mlir"), MINIMAL, 8);
    moe.entry = Some("moe_layers");
    moe.args = vec![("rows", "2"), ("layers", "1"), ("owner", "1")];
    moe.search = Search::Random { runs: 20, seed: 1 };
    moe.mutants = Search::Random { runs: 20, seed: 1 };
    prove(&session, &moe, &mut tally);
    let mut lowered = Case::new(
        "examples/moe_dispatch_lowered.mlir".into(),
        read("examples/moe_dispatch_lowered.mlir"),
        MINIMAL_LOWERED,
        8,
    );
    lowered.entry = Some("moe_layers");
    lowered.args = vec![("rows", "2"), ("layers", "1"), ("owner", "1")];
    lowered.search = Search::Random { runs: 20, seed: 1 };
    lowered.mutants = Search::Random { runs: 20, seed: 1 };
    prove(&session, &lowered, &mut tally);
    tally.print("lit examples and the MoE examples, minimal placement");
    tally.check_neither("examples");
    assert_eq!(tally.programs, lit.len() + 2);
}
