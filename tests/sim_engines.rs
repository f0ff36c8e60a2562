//! The exhaustive search's configurations against each other: the
//! depth-first search with one thread and with two, with fingerprints and
//! with whole states, and stateright's breadth-first checker explore the
//! same states and reach the same verdict (docs/ccl-sim.md, "Search").
//!
//! The programs: the lowered all_to_all_v at P = 2 (B = 1, 2) and P = 3,
//! B = 1 in both orders, and generated exchange programs (`ccl-gen
//! --exchange`), raw (most race) and with the insert pass's markers (clean).
//!
//! The random search split into shards (`--shard K/N`) against the whole
//! one: the shards together run the same schedules (each one's digest) and
//! report the same finding.

use cclir::generator::exchange::exchange_program;
use cclir::generator::protocol::all_to_all_v_program;
use cclir::sim::explore::swarm_seed;
use cclir::sim::{self, Engine, Finding, Options, Outcome, Search, SearchConfig, Shard, Store};
use cclir::Session;

/// The lowering and its markers, checked (the synchronisation is proven at
/// each P by tests/sim_minimal.rs, whose pipelines name the rank count).
const LOWERED: &str = "builtin.module(ccl-pipeline{lower-collectives=true sync=false})";
const LATE: &str =
    "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)";
const INSERT: &str = "builtin.module(ccl-insert-comm-fence)";

/// What a search concluded: clean with its distinct states, a race, a
/// deadlock, or anything else (which fails the test).
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Clean(usize),
    Race,
    Deadlock,
}

fn configs() -> Vec<(&'static str, SearchConfig)> {
    // The same states in every engine and store: the partial-order
    // reduction (which stores fewer) is compared in tests/sim_por.rs.
    let dfs = SearchConfig { max_states: 3_000_000, por: false, ..SearchConfig::default() };
    vec![
        ("dfs, 1 thread, fingerprints", SearchConfig { threads: 1, ..dfs }),
        ("dfs, 2 threads, fingerprints", SearchConfig { threads: 2, ..dfs }),
        (
            "dfs, 2 threads, 64-bit fingerprints",
            SearchConfig { threads: 2, store: Store::Fingerprint { bits: 64 }, ..dfs },
        ),
        ("dfs, 2 threads, whole states", SearchConfig { threads: 2, store: Store::Exact, ..dfs }),
        ("stateright", SearchConfig { engine: Engine::Stateright, ..dfs }),
        // A swarm member takes each state's successors in its own order:
        // the same states, the same verdict.
        (
            "dfs, 2 threads, swarm member 3 of seed 11",
            SearchConfig { threads: 2, swarm: Some(swarm_seed(11, Shard { index: 3, count: 4 })), ..dfs },
        ),
    ]
}

fn verdict(program: &cclir::Program<'_>, ranks: u16, config: SearchConfig, what: &str) -> Verdict {
    let options = Options {
        ranks,
        search: Search::Exhaustive,
        max_states: config.max_states,
        search_config: config,
        ..Options::default()
    };
    let (_, outcome) = sim::simulate(program.operation_ref(), &options).expect("the program compiles");
    match outcome {
        Outcome::Clean { states, .. } => Verdict::Clean(states),
        Outcome::Found { finding, .. } => match &*finding {
            Finding::Race(_) => Verdict::Race,
            Finding::Deadlock => Verdict::Deadlock,
            other => panic!("{what}: {other:?}"),
        },
        Outcome::Limit { states, .. } => panic!("{what}: the search hit its bound at {states} states"),
    }
}

/// Every configuration's verdict on `program`, which must all be `expected`
/// when given, and all the same.
fn agree(program: &cclir::Program<'_>, ranks: u16, what: &str, expected: Option<&Verdict>) -> Verdict {
    let mut verdicts = configs().into_iter().map(|(name, config)| (name, verdict(program, ranks, config, what)));
    let (first_name, first) = verdicts.next().expect("a configuration");
    if let Some(expected) = expected {
        assert_eq!(&first, expected, "{what}: {first_name}");
    }
    for (name, other) in verdicts {
        assert_eq!(other, first, "{what}: {name} against {first_name}");
    }
    first
}

#[test]
fn every_search_finds_the_same_on_the_protocol() {
    let session = Session::new();
    for (p, b) in [(2, 1), (2, 2), (3, 1)] {
        for (pipeline, expected) in [(LOWERED, None), (LATE, Some(Verdict::Race))] {
            let mut program = session.parse(&all_to_all_v_program(p, b, 1, 2), "protocol.mlir").expect("it parses");
            session.run(&session.pipeline(pipeline).expect("it builds"), &mut program).expect("it runs");
            let what = format!("P = {p}, B = {b}, {pipeline}");
            let found = agree(&program, p as u16, &what, expected.as_ref());
            println!("{what}: {found:?}");
            if expected.is_none() {
                assert!(matches!(found, Verdict::Clean(_)), "{what}: {found:?}");
            }
        }
    }
}

#[test]
fn every_search_finds_the_same_on_generated_programs() {
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let insert = session.pipeline(INSERT).expect("insert pipeline");
    let (mut raced, mut clean) = (0, 0);
    // Every fifth of the 300 programs tests/sim_generated.rs runs.
    for seed in (0..300).step_by(5) {
        let exchange = exchange_program(seed);
        let what = format!("ccl-gen --exchange {seed}");
        let mut program = session.parse(&exchange.text, "exchange.mlir").expect("it parses");
        if agree(&program, exchange.ranks, &format!("{what}, raw"), None) == Verdict::Race {
            raced += 1;
        }
        session.run(&insert, &mut program).expect("insert runs");
        let found = agree(&program, exchange.ranks, &format!("{what}, inserted"), None);
        assert!(matches!(found, Verdict::Clean(_)), "{what}, inserted: {found:?}");
        clean += 1;
    }
    assert!(raced > 0 && clean == 60, "{raced} raw programs raced, {clean} inserted ones clean");
}

/// The random schedules a search ran to its end (number and digest) and
/// the number of the one that found something.
fn sampled(program: &cclir::Program<'_>, ranks: u16, shard: Shard, seed: u64) -> (Vec<(usize, u64)>, Option<usize>) {
    let options = Options {
        ranks,
        search: Search::Random { runs: 30, seed },
        shard,
        search_config: SearchConfig { threads: 1, ..SearchConfig::default() },
        ..Options::default()
    };
    match sim::simulate(program.operation_ref(), &options).expect("the program compiles").1 {
        Outcome::Clean { schedules, .. } => (schedules.expect("random schedules").runs, None),
        Outcome::Found { schedules, run, .. } => (schedules.expect("random schedules").runs, run),
        Outcome::Limit { .. } => panic!("a bound"),
    }
}

#[test]
fn the_shards_of_a_random_search_run_its_schedules() {
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let insert = session.pipeline(INSERT).expect("insert pipeline");
    let (mut found, mut clean) = (0, 0);
    for seed in (0..300).step_by(25) {
        let exchange = exchange_program(seed);
        let mut program = session.parse(&exchange.text, "exchange.mlir").expect("it parses");
        for variant in ["raw", "inserted"] {
            if variant == "inserted" {
                session.run(&insert, &mut program).expect("insert runs");
            }
            let what = format!("ccl-gen --exchange {seed}, {variant}");
            let (whole, whole_run) = sampled(&program, exchange.ranks, Shard::default(), seed);
            let count = 3;
            let mut union = Vec::new();
            let mut first = None;
            for index in 0..count {
                let (runs, run) = sampled(&program, exchange.ranks, Shard { index, count }, seed);
                assert!(runs.iter().all(|(n, _)| n % count == index), "{what}: shard {index} ran {runs:?}");
                union.extend(runs);
                if let Some(run) = run {
                    first = Some(first.map_or(run, |f: usize| f.min(run)));
                }
            }
            union.sort_unstable();
            assert_eq!(first, whole_run, "{what}: the shards' finding");
            match whole_run {
                // Every schedule before the finding ran in some shard,
                // with the same actions.
                Some(run) => {
                    assert_eq!(whole.len(), run, "{what}");
                    union.retain(|(n, _)| *n < run);
                    assert_eq!(union, whole, "{what}");
                    found += 1;
                }
                None => {
                    assert_eq!(union, whole, "{what}");
                    assert_eq!(whole.len(), 30, "{what}");
                    clean += 1;
                }
            }
        }
    }
    assert!(found > 0 && clean > 0, "{found} searches found something, {clean} were clean");
}
