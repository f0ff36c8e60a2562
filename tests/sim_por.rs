//! The partial-order reduction (`--por`, on by default) against the plain
//! exhaustive search: on every program where the plain search finishes,
//! both reach the same verdict (no race; a race; a deadlock; a runtime
//! error), and where the plain search names a race the reduced one names a
//! race too. The programs: every exhaustive `ccl-sim` run of the lit Sim
//! tests (`lit-tests/Sim/*.mlir`, through the command line with its own
//! pipeline and options), the generated exchange programs of
//! `tests/sim_generated.rs` (raw, with the markers inserted, and with each
//! inserted marker deleted: `CCLIR_SIM_CASES`, default 300, 60 in a debug
//! build), and the lowered
//! all_to_all_v protocol at P = 2 (B = 1, 2, and 4 when optimized; the old
//! order at each, which races). The state counts, plain against reduced,
//! are printed. The dynamic reduction (`--por dpor`) is held to the same on
//! the same programs: its verdict is the plain one's, and it names a race
//! wherever the plain search does (its count is of transitions).

mod common;

use cclir::generator::exchange::exchange_program;
use cclir::generator::protocol::all_to_all_v_program;
use cclir::sim::{self, report, Engine, Finding, Options, Outcome, Search, SearchConfig};
use cclir::Session;
use std::path::Path;
use std::process::Command;

const INSERT: &str = "builtin.module(ccl-insert-comm-fence)";
const LOWERED: &str = "builtin.module(ccl-pipeline{lower-collectives=true})";
const LATE: &str =
    "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)";

/// A search's verdict, by kind, with the states it stored and the report.
enum Verdict {
    Clean(usize),
    Race(usize, String),
    Deadlock(usize, String),
    Error(usize, String),
    /// A bound was reached: no conclusion.
    Bound,
}

impl Verdict {
    fn kind(&self) -> &'static str {
        match self {
            Verdict::Clean(_) => "no race",
            Verdict::Race(..) => "a race",
            Verdict::Deadlock(..) => "a deadlock",
            Verdict::Error(..) => "a runtime error",
            Verdict::Bound => "no conclusion",
        }
    }

    /// The report of a finding (empty for none).
    fn report(&self) -> &str {
        match self {
            Verdict::Race(_, text) | Verdict::Deadlock(_, text) | Verdict::Error(_, text) => text,
            Verdict::Clean(_) | Verdict::Bound => "",
        }
    }

    fn states(&self) -> usize {
        match self {
            Verdict::Clean(n) | Verdict::Race(n, _) | Verdict::Deadlock(n, _) | Verdict::Error(n, _) => *n,
            Verdict::Bound => 0,
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Totals over the programs compared.
#[derive(Default)]
struct Tally {
    programs: usize,
    racy: usize,
    plain: usize,
    reduced: usize,
}

impl Tally {
    /// Asserts that the reduced verdict is the plain one (where the plain
    /// search finished) and counts the states.
    fn compare(&mut self, what: &str, plain: &Verdict, reduced: &Verdict) {
        if matches!(plain, Verdict::Bound) {
            return;
        }
        assert_eq!(
            plain.kind(),
            reduced.kind(),
            "{what}: the reduced search's verdict differs from the plain one's\nplain:\n{}\nreduced:\n{}",
            plain.report(),
            reduced.report()
        );
        self.programs += 1;
        self.racy += matches!(plain, Verdict::Race(..)) as usize;
        self.plain += plain.states();
        self.reduced += reduced.states();
    }

    fn print(&self, what: &str) {
        println!(
            "{what}: {} programs ({} racy), the same verdict reduced and plain; states stored: plain {}, reduced {} \
             ({:.1}x fewer)",
            self.programs,
            self.racy,
            self.plain,
            self.reduced,
            self.plain as f64 / self.reduced.max(1) as f64
        );
    }
}

/// Simulates `program` exhaustively, with the persistent-set reduction on
/// or off, or with the dynamic one.
fn simulate(program: &cclir::Program<'_>, ranks: u16, por: bool, engine: Engine) -> Verdict {
    let options = Options {
        ranks,
        search: Search::Exhaustive,
        max_states: 3_000_000,
        search_config: SearchConfig { por, engine, ..Options::default().search_config },
        ..Options::default()
    };
    let (machine, outcome) = sim::simulate(program.operation_ref(), &options)
        .unwrap_or_else(|e| panic!("ccl-sim cannot run it: {e:?}\n{}", program.to_text()));
    match outcome {
        Outcome::Clean { states, .. } => Verdict::Clean(states),
        Outcome::Found { finding, last, states, .. } => {
            let text = report::finding(&machine, &finding, &last);
            match &*finding {
                Finding::Race(_) => Verdict::Race(states, text),
                Finding::Deadlock => Verdict::Deadlock(states, text),
                Finding::Error { .. } => Verdict::Error(states, text),
                Finding::Limit { .. } => Verdict::Bound,
            }
        }
        Outcome::Limit { .. } => Verdict::Bound,
    }
}

/// The plain, the persistent-set and the dynamic search's verdicts.
fn all(program: &cclir::Program<'_>, ranks: u16) -> (Verdict, Verdict, Verdict) {
    (
        simulate(program, ranks, false, Engine::Dfs),
        simulate(program, ranks, true, Engine::Dfs),
        simulate(program, ranks, false, Engine::Dpor),
    )
}

#[test]
fn reduced_and_plain_agree_on_generated_exchange_programs() {
    // Each program is searched twice, its mutants too: a debug build takes
    // the first 60 (scripts/test.sh runs this test optimized, all 300).
    let cases = env_u64("CCLIR_SIM_CASES", if cfg!(debug_assertions) { 60 } else { 300 });
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let insert = session.pipeline(INSERT).expect("insert pipeline");
    let (mut tally, mut dynamic) = (Tally::default(), Tally::default());
    for seed in 0..cases {
        let exchange = exchange_program(seed);
        let ranks = exchange.ranks;
        let what = format!("ccl-gen --exchange {seed} (P = {ranks})");
        let mut program = session.parse(&exchange.text, "exchange.mlir").expect("the program parses");
        let printed = program.to_text();
        let (plain, reduced, dpor) = all(&program, ranks);
        tally.compare(&format!("{what}, raw"), &plain, &reduced);
        dynamic.compare(&format!("{what}, raw, dpor"), &plain, &dpor);
        session.run(&insert, &mut program).expect("insert runs");
        let inserted = program.to_text();
        let (plain, reduced, dpor) = all(&program, ranks);
        tally.compare(&format!("{what}, inserted"), &plain, &reduced);
        dynamic.compare(&format!("{what}, inserted, dpor"), &plain, &dpor);
        // Each inserted marker deleted: most of these race.
        let lines: Vec<&str> = inserted.lines().collect();
        for victim in common::inserted_lines(&printed, &inserted, &what) {
            let mutant: String =
                lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
            let program = session.parse(&mutant, "mutant.mlir").expect("a mutant parses");
            let (plain, reduced, dpor) = all(&program, ranks);
            tally.compare(&format!("{what}, line {} deleted", victim + 1), &plain, &reduced);
            dynamic.compare(&format!("{what}, line {} deleted, dpor", victim + 1), &plain, &dpor);
        }
        let _ = session.take_diagnostics();
    }
    tally.print("exchange programs");
    dynamic.print("exchange programs, dynamic (transitions)");
    assert!(tally.racy * 3 >= tally.programs, "too few racy programs for the comparison to mean much");
    assert_eq!(dynamic.programs, tally.programs, "the dynamic search was compared on every program");
}

#[test]
fn reduced_and_plain_agree_on_the_lowered_protocol() {
    let session = Session::new();
    let (mut tally, mut dynamic) = (Tally::default(), Tally::default());
    // P = 2, B = 4 explores 131,508 states plain: only when optimized.
    let sizes: &[(usize, usize)] = if cfg!(debug_assertions) { &[(2, 1), (2, 2)] } else { &[(2, 1), (2, 2), (2, 4)] };
    for &(p, b) in sizes {
        for (order, pipeline) in [("snapshot", LOWERED), ("late snapshot", LATE)] {
            let mut program = session.parse(&all_to_all_v_program(p, b, 1, 2), "protocol.mlir").expect("parses");
            session.run(&session.pipeline(pipeline).expect("pipeline"), &mut program).expect("runs");
            let (plain, reduced, dpor) = all(&program, p as u16);
            let what = format!("P = {p}, B = {b}, {order} order");
            println!(
                "{what}: plain {} ({} states), reduced {} ({} states), dynamic {} ({} transitions)",
                plain.kind(),
                plain.states(),
                reduced.kind(),
                reduced.states(),
                dpor.kind(),
                dpor.states()
            );
            assert!(!matches!(plain, Verdict::Bound), "{what}: the plain search did not finish");
            let expected = if pipeline == LATE { "a race" } else { "no race" };
            assert_eq!(plain.kind(), expected, "{what}: {}", plain.report());
            tally.compare(&what, &plain, &reduced);
            dynamic.compare(&format!("{what}, dpor"), &plain, &dpor);
        }
    }
    tally.print("the lowered protocol");
    dynamic.print("the lowered protocol, dynamic (transitions)");
}

#[test]
fn dynamic_and_plain_agree_on_the_lowered_protocol_with_a_marker_or_signal_deleted() {
    // The protocol's bugs are a missing fence, invalidate, notify or wait:
    // each deleted in turn (P = 2, B = 2; P = 3, B = 1 too when optimized),
    // the dynamic search's verdict is the plain one's.
    let session = Session::new();
    let mut dynamic = Tally::default();
    let sizes: &[(usize, usize)] = if cfg!(debug_assertions) { &[(2, 2)] } else { &[(2, 2), (3, 1)] };
    for &(p, b) in sizes {
        let mut program = session.parse(&all_to_all_v_program(p, b, 1, 2), "protocol.mlir").expect("parses");
        session.run(&session.pipeline(LOWERED).expect("pipeline"), &mut program).expect("runs");
        let lowered = program.to_text();
        let lines: Vec<&str> = lowered.lines().collect();
        let signals = ["ccl.fence", "ccl.cacheinvalid", "ccl.notify", "ccl.wait"];
        for (victim, line) in lines.iter().enumerate().filter(|(_, l)| signals.iter().any(|s| l.contains(s))) {
            let mutant: String =
                lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
            let program = session.parse(&mutant, "mutant.mlir").expect("a mutant parses");
            let plain = simulate(&program, p as u16, false, Engine::Dfs);
            let dpor = simulate(&program, p as u16, false, Engine::Dpor);
            let what = format!("P = {p}, B = {b}, '{}' (line {}) deleted", line.trim(), victim + 1);
            assert!(!matches!(plain, Verdict::Bound), "{what}: the plain search did not finish");
            dynamic.compare(&what, &plain, &dpor);
        }
    }
    dynamic.print("the lowered protocol's mutants, dynamic (transitions)");
    // 6 racy at P = 2, B = 2; 3 more at P = 3, B = 1.
    let racy = if cfg!(debug_assertions) { 6 } else { 9 };
    assert!(dynamic.racy >= racy, "only {} racy mutants: the deletions were not made", dynamic.racy);
}

/// One exhaustive `ccl-sim` run of a lit test: the pipeline `ccl-opt` runs
/// first (if any) and ccl-sim's arguments.
struct LitRun {
    line: usize,
    pipeline: Option<Vec<String>>,
    args: Vec<String>,
}

/// The RUN lines of `text` that simulate exhaustively (no `--random`, no
/// other engine), with `%s` as `path`.
fn lit_runs(text: &str, path: &Path) -> Vec<LitRun> {
    let path = path.to_str().expect("a UTF-8 path");
    let mut runs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(run) = line.split("RUN:").nth(1) else { continue };
        let words = common::shell_words(&run.replace("%s", path));
        let Some(sim) = words.iter().position(|w| w == "ccl-sim") else { continue };
        let args: Vec<String> = words[sim + 1..].iter().take_while(|w| *w != "|" && *w != "2>&1").cloned().collect();
        if args.iter().any(|a| a.starts_with("--random") || a.starts_with("--engine") || a == "--help" || a == "-h") {
            continue;
        }
        let pipeline = match words.iter().position(|w| w == "ccl-opt") {
            Some(opt) if opt < sim => Some(words[opt + 1..].iter().take_while(|w| *w != "|").cloned().collect()),
            _ => None,
        };
        runs.push(LitRun { line: n + 1, pipeline, args });
    }
    runs
}

/// Runs ccl-sim as `run` says with `--por VALUE`: exit code, standard
/// output and error.
fn run_lit(run: &LitRun, por: &str) -> (i32, String) {
    let input = match &run.pipeline {
        Some(args) => {
            let out = Command::new(env!("CARGO_BIN_EXE_ccl-opt")).args(args).output().expect("ccl-opt runs");
            assert!(out.status.success(), "ccl-opt {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            Some(out.stdout)
        }
        None => None,
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_ccl-sim"));
    command.args(&run.args).args(["--por", por]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("ccl-sim runs");
    let stdin = child.stdin.take();
    if let (Some(mut stdin), Some(input)) = (stdin, input) {
        use std::io::Write;
        let _ = stdin.write_all(&input);
    }
    let out = child.wait_with_output().expect("ccl-sim ends");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// The verdict of a ccl-sim run from its exit code and output.
fn lit_verdict(code: i32, text: &str) -> Verdict {
    let states = text
        .split("no race: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    match code {
        0 => Verdict::Clean(states),
        3 if text.contains("error: data race") => Verdict::Race(0, text.to_string()),
        3 => Verdict::Deadlock(0, text.to_string()),
        1 if text.contains("no conclusion") => Verdict::Bound,
        _ => Verdict::Error(0, text.to_string()),
    }
}

#[test]
fn reduced_and_plain_agree_on_the_lit_sim_programs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lit-tests/Sim");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("lit-tests/Sim")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    let (mut tally, mut dynamic) = (Tally::default(), Tally::default());
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a lit test");
        for run in lit_runs(&text, file) {
            let what = format!("{}:{}: ccl-sim {}", file.display(), run.line, run.args.join(" "));
            let (plain_code, plain_text) = run_lit(&run, "off");
            let (reduced_code, reduced_text) = run_lit(&run, "on");
            let (dpor_code, dpor_text) = run_lit(&run, "dpor");
            let (plain, reduced) = (lit_verdict(plain_code, &plain_text), lit_verdict(reduced_code, &reduced_text));
            let dpor = lit_verdict(dpor_code, &dpor_text);
            if !matches!(plain, Verdict::Bound) {
                assert_eq!(plain_code, reduced_code, "{what}: exit codes differ\n{plain_text}\n{reduced_text}");
                assert_eq!(plain_code, dpor_code, "{what} --por dpor: exit codes differ\n{plain_text}\n{dpor_text}");
            }
            tally.compare(&what, &plain, &reduced);
            dynamic.compare(&format!("{what} --por dpor"), &plain, &dpor);
        }
    }
    tally.print("lit Sim programs");
    dynamic.print("lit Sim programs, dynamic (transitions)");
    assert!(tally.programs >= 40, "only {} lit runs compared: the RUN lines were not read", tally.programs);
}
