//! Every search of ccl-sim held against the reference semantics
//! (`cclir::sim::reference`, docs/ccl-sim.md "The reference semantics").
//!
//! For each program, the reference explores every execution and records
//! which kinds of finding (race, deadlock, runtime error, limit) some
//! execution reaches. Then each search of the machine runs on the same
//! program: the plain search (`--por off`), every op a scheduling point
//! (`--no-reduction --por off`), the persistent sets (`--por on`, on one
//! thread and on two), the dynamic reduction (`--por dpor`, on one thread
//! and on two splitting the tree from the start), stateright's checker,
//! whole states (`--exact`) and 64-bit fingerprints, and seeded
//! random schedules. Each must find nothing exactly where the reference
//! finds nothing, find only kinds the reference reaches, and every finding
//! it reports (random ones included) must replay step by step in the
//! reference to the same finding (`cclir::sim::crosscheck`). Random
//! schedules that end without a finding replay too.
//!
//! The programs: the litmus programs of `ccl-gen --litmus`, which reach
//! every rule of the execution model (raw, with the rules' markers, with the
//! minimal placement; per-feature coverage printed), every exhaustive
//! `ccl-sim` run of `lit-tests/Sim/*.mlir`, the generated exchange programs
//! (raw, with the markers inserted, with each marker deleted), and the
//! lowered all_to_all_v protocol at P = 2. `CCLIR_REFERENCE_LITMUS` and
//! `CCLIR_REFERENCE_CASES` set how many litmus and exchange seeds. The
//! campaign of bench/reference_campaign.sh is the ignored test `campaign`
//! (`CCLIR_CAMPAIGN_SEEDS` litmus seeds, three programs each).

mod common;

use cclir::generator::exchange::exchange_program;
use cclir::generator::litmus::{litmus_program, Coverage};
use cclir::generator::protocol::all_to_all_v_program;
use cclir::sim::{self, crosscheck, Engine, EntryArg, Options, Search, SearchConfig, Store};
use cclir::Session;
use std::collections::BTreeMap;
use std::path::Path;

/// States the reference may visit per program before it gives up (the
/// program is then left out, and counted).
const REFERENCE_STATES: usize = 300_000;
/// Random schedules per program, and those replayed in the reference.
const RANDOM_RUNS: usize = 20;

/// One search of the machine: its name and how it changes the options.
struct Mode {
    name: &'static str,
    configure: fn(&mut Options),
}

const MODES: &[Mode] = &[
    Mode { name: "--por off", configure: |o| o.search_config.por = false },
    Mode {
        name: "--no-reduction --por off",
        configure: |o| {
            o.no_reduction = true;
            o.search_config.por = false
        },
    },
    Mode { name: "--por on", configure: |_| {} },
    Mode { name: "--por on --threads 2", configure: |o| o.search_config.threads = 2 },
    Mode { name: "--por dpor", configure: |o| o.search_config.engine = Engine::Dpor },
    // Two workers splitting the tree from the first transition (no solo
    // phase), so that the split is what these small programs exercise.
    Mode {
        name: "--por dpor --threads 2",
        configure: |o| {
            o.search_config.engine = Engine::Dpor;
            o.search_config.threads = 2;
            o.search_config.solo = 0
        },
    },
    Mode { name: "--engine stateright", configure: |o| o.search_config.engine = Engine::Stateright },
    Mode { name: "--exact", configure: |o| o.search_config.store = Store::Exact },
    Mode { name: "--fingerprint 64", configure: |o| o.search_config.store = Store::Fingerprint { bits: 64 } },
    Mode { name: "--random 20", configure: |o| o.search = Search::Random { runs: RANDOM_RUNS, seed: 7 } },
];

/// What the comparison saw.
#[derive(Default)]
struct Tally {
    /// The features of the litmus programs held.
    coverage: Coverage,
    programs: usize,
    /// Programs the reference did not finish (left out).
    unfinished: usize,
    /// Per set of kinds the reference reaches, how many programs.
    verdicts: BTreeMap<String, usize>,
    reference_states: usize,
    /// Per mode, how many times it reached a bound of its own.
    no_conclusion: BTreeMap<&'static str, usize>,
    replayed: usize,
    disagreements: Vec<String>,
    /// Programs on which the second worker of `--por dpor --threads 2`
    /// took over a branch of the first's execution, and how many it took.
    split: (usize, usize),
    /// `--por dpor` on one thread: executions run to their end, and those
    /// cut by sleep sets (what optimal DPOR's wakeup trees would save).
    dpor: (usize, usize),
    /// Clean programs whose Mazurkiewicz traces were counted (`traces`):
    /// how many, `--por dpor`'s executions on them, and their traces.
    counted: (usize, usize, usize),
}

impl Tally {
    fn print(&self, what: &str) {
        println!(
            "{what}: {} programs held against the reference ({} states), {} left out (the reference did not finish); \
             {} schedules replayed; {} disagreements",
            self.programs,
            self.reference_states,
            self.unfinished,
            self.replayed,
            self.disagreements.len()
        );
        for (verdict, count) in &self.verdicts {
            println!("  reference: {verdict}: {count}");
        }
        for (mode, count) in &self.no_conclusion {
            println!("  {mode}: no conclusion on {count}");
        }
        println!("  --por dpor: {} executions, {} more cut by sleep sets", self.dpor.0, self.dpor.1);
        println!(
            "  --por dpor on the {} clean programs whose traces could be counted: {} executions, {} Mazurkiewicz traces",
            self.counted.0, self.counted.1, self.counted.2
        );
        println!(
            "  --por dpor --threads 2: branches taken over by a worker on {} programs ({} in all)",
            self.split.0, self.split.1
        );
        if self.coverage.programs > 0 {
            println!("  per-feature coverage of the litmus programs held:");
            for line in self.coverage.table().lines() {
                println!("    {line}");
            }
        }
    }

    fn merge(&mut self, other: Tally) {
        self.programs += other.programs;
        self.unfinished += other.unfinished;
        for (verdict, count) in other.verdicts {
            *self.verdicts.entry(verdict).or_default() += count;
        }
        self.reference_states += other.reference_states;
        for (mode, count) in other.no_conclusion {
            *self.no_conclusion.entry(mode).or_default() += count;
        }
        self.replayed += other.replayed;
        self.disagreements.extend(other.disagreements);
        self.split = (self.split.0 + other.split.0, self.split.1 + other.split.1);
        self.dpor = (self.dpor.0 + other.dpor.0, self.dpor.1 + other.dpor.1);
        self.counted =
            (self.counted.0 + other.counted.0, self.counted.1 + other.counted.1, self.counted.2 + other.counted.2);
        self.coverage.programs += other.coverage.programs;
        for (feature, count) in other.coverage.counts {
            *self.coverage.counts.entry(feature).or_default() += count;
        }
    }

    fn assert_agrees(&self, what: &str) {
        for disagreement in &self.disagreements {
            println!("DISAGREEMENT {disagreement}");
        }
        assert!(
            self.disagreements.is_empty(),
            "{what}: {} disagreements with the reference semantics (each printed above), the first:\n{}",
            self.disagreements.len(),
            self.disagreements[0]
        );
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The pipelines whose outputs are held too: the rules' markers, and the
/// minimal placement.
const PLACEMENTS: [(&str, &str); 2] = [
    ("rules", "builtin.module(ccl-insert-comm-fence)"),
    ("minimal", "builtin.module(ccl-insert-comm-fence,func.func(ccl-sink-comm-markers))"),
];

/// Holds every search to the reference on the litmus programs of `seeds`:
/// each raw and through each placement (an output that does not verify is
/// counted, not held: the checker's and the sink's own tests judge it).
fn hold_litmus(seeds: impl Iterator<Item = u64>, tally: &mut Tally) {
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let placements: Vec<_> =
        PLACEMENTS.iter().map(|(name, text)| (*name, session.pipeline(text).expect("a placement pipeline"))).collect();
    for seed in seeds {
        let litmus = litmus_program(seed);
        let what = format!("ccl-gen --litmus {seed} (P = {})", litmus.ranks);
        let program = session.parse(&litmus.text, "litmus.mlir").expect("a litmus program parses");
        let before = tally.programs;
        hold(&program, litmus.ranks, None, &[], &format!("{what}, raw"), tally);
        for (name, pipeline) in &placements {
            let mut placed = session.parse(&litmus.text, "litmus.mlir").expect("a litmus program parses");
            if session.run(pipeline, &mut placed).is_err() {
                *tally.verdicts.entry(format!("(the {name} placement did not verify)")).or_default() += 1;
                continue;
            }
            hold(&placed, litmus.ranks, None, &[], &format!("{what}, {name} placement"), tally);
        }
        for _ in before..tally.programs {
            tally.coverage.add(&litmus.features);
        }
        let _ = session.take_diagnostics();
    }
}

#[test]
fn every_search_agrees_with_the_reference_on_litmus_programs() {
    let seeds = env_usize("CCLIR_REFERENCE_LITMUS", if cfg!(debug_assertions) { 4 } else { 100 }) as u64;
    let mut tally = Tally::default();
    hold_litmus(0..seeds, &mut tally);
    tally.print("litmus programs");
    tally.assert_agrees("litmus programs");
    // The two-worker mode is held only if its workers do split the tree.
    assert!(tally.programs < 100 || tally.split.0 > 0, "--por dpor --threads 2 never split the tree");
}

/// The campaign of bench/reference_campaign.sh: `CCLIR_CAMPAIGN_SEEDS`
/// litmus seeds (default 6,700: over 20,000 programs), on every core.
#[test]
#[ignore]
fn campaign() {
    let seeds = env_usize("CCLIR_CAMPAIGN_SEEDS", 6_700) as u64;
    let first = env_usize("CCLIR_CAMPAIGN_FIRST", 0) as u64;
    let workers = sim::available_threads() as u64;
    let started = std::time::Instant::now();
    let mut tally = Tally::default();
    let parts: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    let mut part = Tally::default();
                    hold_litmus((first..first + seeds).filter(|s| s % workers == w), &mut part);
                    part
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a campaign worker")).collect()
    });
    for part in parts {
        tally.merge(part);
    }
    tally.print(&format!("campaign, litmus seeds {first}..{} on {workers} threads", first + seeds));
    println!("campaign time: {:.0} s", started.elapsed().as_secs_f64());
    tally.assert_agrees("the campaign");
}

/// Executions the trace count enumerates before it gives up.
const TRACE_EXECUTIONS: usize = 2_000;

/// The Mazurkiewicz traces of `machine` (which runs as `--por dpor` runs
/// it, without eager wake-ups): every maximal execution enumerated, each
/// taken as its events (a process and how many events it took before) and
/// the order of every two that are of one process or whose footprints
/// conflict; `None` past `cap` executions or at a finding.
fn traces(machine: &sim::Machine, cap: usize) -> Option<usize> {
    use sim::machine::footprint::{Footprint, Recorder};
    use sim::machine::{Action, State};
    use std::collections::HashSet;
    use std::sync::Arc;

    type Id = (u8, u16, u128, usize);
    struct Walk {
        machine: sim::Machine,
        recorder: Arc<Recorder>,
        events: Vec<(Id, Footprint)>,
        seen: HashSet<Vec<(Id, Id)>>,
        executions: usize,
        cap: usize,
    }
    impl Walk {
        /// False once the count gives up.
        fn visit(&mut self, state: &State) -> bool {
            if state.finding.is_some() {
                return false;
            }
            let mut actions = Vec::new();
            self.machine.actions(state, &mut actions);
            if actions.is_empty() {
                self.executions += 1;
                let mut order: Vec<(Id, Id)> = Vec::new();
                for (i, (a, fa)) in self.events.iter().enumerate() {
                    for (b, fb) in &self.events[i + 1..] {
                        if a.0 == b.0 && a.1 == b.1 && a.2 == b.2 || fa.conflicts(fb) {
                            order.push((*a, *b));
                        }
                    }
                }
                order.extend(self.events.iter().map(|(id, _)| (*id, *id)));
                order.sort_unstable();
                self.seen.insert(order);
                return self.executions <= self.cap;
            }
            for action in actions {
                let proc = match action {
                    Action::Step(t) => (0, t, 0),
                    Action::Land(t, u) => (1, t, sim::shared::digest(&state.inflight[t as usize][u as usize])),
                    Action::Collective => (2, 0, 0),
                };
                let before = self.events.iter().filter(|(id, _)| (id.0, id.1, id.2) == proc).count();
                let mut next = state.clone();
                self.machine.apply(&mut next, action);
                let footprint = self.recorder.take();
                self.events.push(((proc.0, proc.1, proc.2, before), footprint));
                let go_on = self.visit(&next);
                self.events.pop();
                if !go_on {
                    return false;
                }
            }
            true
        }
    }
    let recorder = Arc::new(Recorder::default());
    let mut recording = machine.clone();
    recording.footprint = Some(recorder.clone());
    let initial = recording.initial();
    recorder.take();
    let mut walk = Walk { machine: recording, recorder, events: Vec::new(), seen: HashSet::new(), executions: 0, cap };
    walk.visit(&initial).then_some(walk.seen.len())
}

/// Holds every search to the reference on `program`.
fn hold(
    program: &cclir::Program<'_>,
    ranks: u16,
    entry: Option<&str>,
    args: &[EntryArg],
    what: &str,
    tally: &mut Tally,
) {
    let text = program.to_text();
    let compiled = sim::compile(program.operation_ref(), entry, Some(&text))
        .unwrap_or_else(|e| panic!("{what}: ccl-sim cannot compile it: {e}\n{text}"));
    let options = Options {
        ranks,
        entry: entry.map(str::to_string),
        args: args.to_vec(),
        max_states: REFERENCE_STATES,
        search_config: SearchConfig { threads: 1, ..Options::default().search_config },
        ..Options::default()
    };
    // What the machine cannot run (too many threads, say) the reference
    // cannot either: the same check refuses it.
    let Ok((reference, explored)) = sim::run_reference(compiled.clone(), &options, false) else { return };
    if !explored.complete {
        tally.unfinished += 1;
        return;
    }
    tally.programs += 1;
    tally.reference_states += explored.states;
    let kinds: Vec<&str> = explored.kinds().iter().map(|k| k.name()).collect();
    let verdict = if kinds.is_empty() { "nothing".to_string() } else { kinds.join(" and ") };
    *tally.verdicts.entry(verdict).or_default() += 1;
    // `CCLIR_CAMPAIGN_MODES`: hold only the searches whose name contains
    // it (a campaign on one search after a change to it).
    let only = std::env::var("CCLIR_CAMPAIGN_MODES").unwrap_or_default();
    for mode in MODES.iter().filter(|mode| mode.name.contains(only.as_str())) {
        let mut options = Options { max_states: 3_000_000, ..options.clone() };
        (mode.configure)(&mut options);
        let (machine, outcome) = sim::run(compiled.clone(), &options).expect("the machine runs it");
        let exhaustive = matches!(options.search, Search::Exhaustive);
        if let Some(stats) = outcome.stats().filter(|stats| stats.engine == Engine::Dpor) {
            if stats.threads == 1 {
                tally.dpor = (tally.dpor.0 + stats.executions, tally.dpor.1 + stats.sleep_blocked);
                let clean = matches!(outcome, sim::Outcome::Clean { .. });
                if let Some(traces) = clean.then(|| traces(&machine, TRACE_EXECUTIONS)).flatten() {
                    let real = stats.executions;
                    tally.counted = (tally.counted.0 + 1, tally.counted.1 + real, tally.counted.2 + traces);
                    // One execution of every trace: at least one (what
                    // the search's soundness claims: its rules for waits
                    // included), and at most one (sleep sets never let two
                    // explored executions be equivalent).
                    if real != traces {
                        tally.disagreements.push(format!(
                            "{what}: ccl-sim --por dpor ran {real} executions of {traces} Mazurkiewicz traces"
                        ));
                    }
                }
            } else if stats.taken_over > 0 {
                tally.split = (tally.split.0 + 1, tally.split.1 + stats.taken_over);
            }
        }
        match crosscheck::judge(&machine, &reference, &explored, &outcome, exhaustive) {
            Ok(crosscheck::Verdict::NoConclusion) => *tally.no_conclusion.entry(mode.name).or_default() += 1,
            Ok(crosscheck::Verdict::Found(_)) => tally.replayed += 1,
            Ok(crosscheck::Verdict::Clean) => {}
            Err(why) => tally.disagreements.push(format!("{what}: ccl-sim {}: {why}", mode.name)),
        }
        if let Search::Random { seed, .. } = options.search {
            for run in 0..RANDOM_RUNS {
                let (actions, last) = sim::explore::random_schedule(&machine, seed, run, 100_000);
                let deadlock = sim::Finding::Deadlock;
                let ending = match &last.finding {
                    Some(finding) if matches!(**finding, sim::Finding::Limit { .. }) => continue,
                    Some(finding) => crosscheck::Ending::Finding(finding),
                    None if machine.deadlocked(&last) => crosscheck::Ending::Finding(&deadlock),
                    None if machine.finished(&last) => crosscheck::Ending::Finished,
                    None => continue,
                };
                match crosscheck::replay(&machine, &reference, &actions, ending) {
                    Ok(_) => tally.replayed += 1,
                    Err(divergence) => tally.disagreements.push(format!(
                        "{what}: random schedule {run} of seed {seed} does not replay in the reference {divergence}"
                    )),
                }
            }
        }
    }
}

#[test]
fn every_search_agrees_with_the_reference_on_exchange_programs() {
    let cases = env_usize("CCLIR_REFERENCE_CASES", if cfg!(debug_assertions) { 1 } else { 10 });
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let insert = session.pipeline("builtin.module(ccl-insert-comm-fence)").expect("insert pipeline");
    let mut tally = Tally::default();
    for seed in 0..cases as u64 {
        let exchange = exchange_program(seed);
        let what = format!("ccl-gen --exchange {seed} (P = {})", exchange.ranks);
        let mut program = session.parse(&exchange.text, "exchange.mlir").expect("the program parses");
        let printed = program.to_text();
        hold(&program, exchange.ranks, None, &[], &format!("{what}, raw"), &mut tally);
        session.run(&insert, &mut program).expect("insert runs");
        let inserted = program.to_text();
        hold(&program, exchange.ranks, None, &[], &format!("{what}, inserted"), &mut tally);
        let lines: Vec<&str> = inserted.lines().collect();
        for victim in common::inserted_lines(&printed, &inserted, &what) {
            let mutant: String =
                lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
            let program = session.parse(&mutant, "mutant.mlir").expect("a mutant parses");
            hold(&program, exchange.ranks, None, &[], &format!("{what}, line {} deleted", victim + 1), &mut tally);
        }
        let _ = session.take_diagnostics();
    }
    tally.print("exchange programs");
    tally.assert_agrees("exchange programs");
}

#[test]
fn every_search_agrees_with_the_reference_on_the_lowered_protocol() {
    // Thousands of reference states a run: optimized only (scripts/test.sh).
    if cfg!(debug_assertions) {
        return;
    }
    let session = Session::new();
    let mut tally = Tally::default();
    // P = 2, B = 2 is beyond the reference's bound (bench/ holds it there).
    for b in [1] {
        for (order, pipeline) in [
            ("snapshot", "builtin.module(ccl-pipeline{lower-collectives=true sync=false})"),
            (
                "late snapshot",
                "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)",
            ),
        ] {
            let mut program = session.parse(&all_to_all_v_program(2, b, 1, 2), "protocol.mlir").expect("parses");
            session.run(&session.pipeline(pipeline).expect("pipeline"), &mut program).expect("runs");
            hold(&program, 2, None, &[], &format!("P = 2, B = {b}, {order} order"), &mut tally);
        }
    }
    tally.print("the lowered protocol");
    assert_eq!(tally.programs, 2, "the reference finished both orders");
    tally.assert_agrees("the lowered protocol");
}

/// The exhaustive `ccl-sim` runs of a lit test: the pipeline `ccl-opt` runs
/// first (if any), the rank count, entry and arguments.
struct LitRun {
    line: usize,
    pipeline: Option<String>,
    ranks: u16,
    entry: Option<String>,
    args: Vec<EntryArg>,
}

fn lit_runs(text: &str) -> Vec<LitRun> {
    let mut runs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(run) = line.split("RUN:").nth(1) else { continue };
        let words = common::shell_words(run);
        let Some(at) = words.iter().position(|w| w == "ccl-sim") else { continue };
        let sim_args: Vec<&String> = words[at + 1..].iter().take_while(|w| *w != "|" && *w != "2>&1").collect();
        let value = |flag: &str| sim_args.iter().position(|a| *a == flag).and_then(|i| sim_args.get(i + 1));
        if sim_args.iter().any(|a| {
            ["--random", "--engine", "--help", "-h", "--max-states", "--max-steps", "--max-memory", "--max-time"]
                .iter()
                .any(|flag| a.starts_with(flag))
        }) {
            continue;
        }
        let Some(ranks) = value("--ranks").and_then(|r| r.parse().ok()) else { continue };
        let args = sim_args
            .iter()
            .enumerate()
            .filter(|(_, a)| **a == "--arg")
            .filter_map(|(i, _)| sim_args.get(i + 1))
            .filter_map(|a| a.split_once('='))
            .map(|(key, value)| EntryArg { key: key.to_string(), value: value.to_string() })
            .collect();
        let pipeline = match words.iter().position(|w| w == "ccl-opt") {
            Some(opt) if opt < at => {
                let opt_args: Vec<&String> = words[opt + 1..at].iter().collect();
                opt_args
                    .iter()
                    .position(|a| *a == "-p" || *a == "--pass-pipeline")
                    .and_then(|i| opt_args.get(i + 1))
                    .map(|p| p.to_string())
            }
            _ => None,
        };
        runs.push(LitRun { line: n + 1, pipeline, ranks, entry: value("--entry").map(|e| e.to_string()), args });
    }
    runs
}

#[test]
fn every_search_agrees_with_the_reference_on_the_lit_sim_programs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lit-tests/Sim");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("lit-tests/Sim")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        // A debug build holds the counterexamples only (scripts/test.sh
        // runs every file optimized).
        .filter(|p| {
            !cfg!(debug_assertions) || p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("reference-"))
        })
        .collect();
    files.sort();
    let session = Session::new();
    let mut tally = Tally::default();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a lit test");
        for run in lit_runs(&text) {
            let what = format!("{}:{}", file.display(), run.line);
            let Ok(mut program) = session.parse(&text, &file.display().to_string()) else { continue };
            if let Some(pipeline) = &run.pipeline {
                let pipeline = session.pipeline(pipeline).unwrap_or_else(|e| panic!("{what}: {e}"));
                session.run(&pipeline, &mut program).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            let entry = run.entry.as_deref().map(|e| e.trim_start_matches('@'));
            if sim::compile(program.operation_ref(), entry, Some(&text)).is_err() {
                continue;
            }
            hold(&program, run.ranks, entry, &run.args, &what, &mut tally);
        }
        let _ = session.take_diagnostics();
    }
    tally.print("lit Sim programs");
    let expected = if cfg!(debug_assertions) { 8 } else { 40 };
    assert!(tally.programs >= expected, "only {} lit runs held: the RUN lines were not read", tally.programs);
    tally.assert_agrees("lit Sim programs");
}
