//! The all_to_all_v protocol under ccl-sim: the kernels `ccl-lower-all-to-all-v`
//! emits, two consecutive calls with the send counts restaged by a kernel
//! before each, are free of races on every schedule; the old order (the
//! snapshot of the peers' counts after Barrier B, `late-snapshot=true`)
//! races, and the race names the late read and the restaging write.
//!
//! The snapshot order: exhaustive for P = 2 (B = 1, 2, 4) and P = 3, B = 1;
//! seeded random schedules for the larger ones (docs/ccl-sim.md). The old
//! order: exhaustive at every size, up to P = 4, B = 8 (the depth-first
//! search reaches its race within a few thousand states). A debug build
//! checks the snapshot order's largest exhaustive case with random
//! schedules instead (scripts/test.sh runs this test in release too).
//!
//! The dynamic partial-order reduction (`--por dpor`) decides both orders
//! exhaustively at a size the stateful searches do not finish, P = 3,
//! B = 3 (P = 4, B = 4 in docs/benchmarks.md; docs/ccl-sim.md, "Dynamic
//! partial-order reduction").

use cclir::generator::protocol::all_to_all_v_program;
use cclir::sim::{self, machine::RaceKind, report, Engine, Finding, Options, Outcome, Search};

/// The lowering and its markers, checked (the synchronisation is proven at
/// each P by tests/sim_minimal.rs, whose pipelines name the rank count).
const LOWERED: &str = "builtin.module(ccl-pipeline{lower-collectives=true sync=false})";
const LATE: &str =
    "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)";

/// Lowers the protocol program with `pipeline` and simulates it (with the
/// partial-order reduction, ccl-sim's default).
fn simulate(p: usize, b: usize, pipeline: &str, search: Search) -> (sim::Machine, Outcome) {
    simulate_with(p, b, pipeline, search, true)
}

fn simulate_with(p: usize, b: usize, pipeline: &str, search: Search, por: bool) -> (sim::Machine, Outcome) {
    simulate_configured(p, b, pipeline, search, |options| options.search_config.por = por)
}

/// Lowers the protocol program with `pipeline` and simulates it exhaustively
/// with the dynamic partial-order reduction.
fn simulate_dpor(p: usize, b: usize, pipeline: &str) -> (sim::Machine, Outcome) {
    simulate_configured(p, b, pipeline, Search::Exhaustive, |options| options.search_config.engine = Engine::Dpor)
}

fn simulate_configured(
    p: usize,
    b: usize,
    pipeline: &str,
    search: Search,
    configure: impl FnOnce(&mut Options),
) -> (sim::Machine, Outcome) {
    let session = cclir::Session::new();
    let mut program = session.parse(&all_to_all_v_program(p, b, 1, 2), "protocol.mlir").expect("the program parses");
    let pipeline = session.pipeline(pipeline).expect("the pipeline builds");
    session.run(&pipeline, &mut program).expect("the pipeline runs");
    let mut options = Options { ranks: p as u16, search, max_states: 3_000_000, ..Options::default() };
    configure(&mut options);
    sim::simulate(program.operation_ref(), &options).expect("the lowered program compiles for the simulator")
}

fn search_for(p: usize, b: usize) -> Search {
    let exhaustive_fits = match (p, b) {
        (2, 1) | (2, 2) | (3, 1) => true,
        (2, 4) => !cfg!(debug_assertions),
        _ => false,
    };
    if exhaustive_fits {
        Search::Exhaustive
    } else {
        // The optimized run of the suite (scripts/test.sh) takes 300; the
        // debug build, ten times slower, checks the same sizes on fewer.
        Search::Random { runs: if cfg!(debug_assertions) { 30 } else { 300 }, seed: 7 }
    }
}

/// The distinct states of the snapshot order's exhaustive search: plain
/// (`--por off`), and with the partial-order reduction.
fn exhaustive_states(p: usize, b: usize, por: bool) -> Option<usize> {
    match (p, b, por) {
        (2, 1, false) => Some(147),
        (2, 2, false) => Some(1_457),
        (2, 4, false) => Some(117_881),
        (3, 1, false) => Some(25_578),
        (2, 1, true) => Some(41),
        (2, 2, true) => Some(61),
        (2, 4, true) => Some(173),
        (3, 1, true) => Some(1_970),
        _ => None,
    }
}

#[test]
fn the_lowered_protocol_never_races() {
    for (p, b) in [(2, 1), (2, 2), (2, 4), (3, 1), (3, 3), (4, 1), (4, 2), (4, 4)] {
        lowered_protocol_is_clean(p, b, true);
    }
}

#[test]
fn the_lowered_protocol_never_races_without_the_reduction() {
    for (p, b) in [(2, 1), (2, 2), (2, 4), (3, 1)] {
        lowered_protocol_is_clean(p, b, false);
    }
}

fn lowered_protocol_is_clean(p: usize, b: usize, por: bool) {
    let search = search_for(p, b);
    let (machine, outcome) = simulate_with(p, b, LOWERED, search.clone(), por);
    match outcome {
        Outcome::Clean { states, schedules, .. } => {
            println!("P = {p}, B = {b}: no race ({states} states, {search:?}, schedules {schedules:?})");
            // The states a plain exhaustive search stores are the
            // program's, whatever the search shares or caches on the way;
            // the reduction stores a fixed subset of them. (Spin's model
            // is a subset of the execution model and counts its own:
            // docs/ccl-sim.md, "The Promela model".)
            if let Some(expected) = exhaustive_states(p, b, por).filter(|_| matches!(search, Search::Exhaustive)) {
                assert_eq!(states, expected, "P = {p}, B = {b}: the states explored");
            }
        }
        Outcome::Found { finding, last, .. } => {
            panic!("P = {p}, B = {b}: {}", report::finding(&machine, &finding, &last))
        }
        Outcome::Limit { states, .. } => panic!("P = {p}, B = {b}: the search hit its bound at {states} states"),
    }
}

#[test]
fn the_late_snapshot_races_with_the_next_calls_restaging() {
    // Depth-first, the exhaustive search reaches the race within a few
    // thousand states at every size (docs/ccl-sim.md).
    // P = 4, B = 8 takes two minutes in a debug build (seconds optimized):
    // the optimized run of the suite (scripts/test.sh) has it.
    let sizes: &[(usize, usize)] = if cfg!(debug_assertions) {
        &[(2, 1), (2, 2), (2, 4), (3, 3), (4, 4)]
    } else {
        &[(2, 1), (2, 2), (2, 4), (3, 3), (4, 4), (4, 8)]
    };
    for &(p, b) in sizes {
        let (machine, outcome) = simulate(p, b, LATE, Search::Exhaustive);
        assert_late_snapshot_race(p, b, &machine, outcome);
    }
}

#[test]
fn the_dynamic_reduction_clears_the_protocol_and_finds_the_late_snapshot() {
    // Larger sizes take minutes (a thread at a wait that does not hold
    // blocks there as an event of its own, and most executions end at one;
    // the figures are in docs/benchmarks.md): bench/, not the suite.
    let (p, b) = (2, 2);
    let (machine, outcome) = simulate_dpor(p, b, LOWERED);
    match outcome {
        Outcome::Clean { states, .. } => println!("P = {p}, B = {b}: no race ({states} transitions, --por dpor)"),
        Outcome::Found { finding, last, .. } => {
            panic!("P = {p}, B = {b}: {}", report::finding(&machine, &finding, &last))
        }
        Outcome::Limit { states, .. } => panic!("P = {p}, B = {b}: --por dpor hit its bound at {states}"),
    }
    let (machine, outcome) = simulate_dpor(p, b, LATE);
    assert_late_snapshot_race(p, b, &machine, outcome);
}

/// The old order's finding: the late read of a peer's send_counts in the
/// first call, unordered with the owner restaging them for the second.
fn assert_late_snapshot_race(p: usize, b: usize, machine: &sim::Machine, outcome: Outcome) {
    let Outcome::Found { finding, last, .. } = outcome else {
        panic!("P = {p}, B = {b}: the late snapshot did not race: {outcome:?}")
    };
    let Finding::Race(race) = &*finding else { panic!("P = {p}, B = {b}: not a race: {finding:?}") };
    assert_eq!(race.kind, RaceKind::Unordered, "P = {p}, B = {b}");
    let (read, write) = if race.first.write { (&race.second, &race.first) } else { (&race.first, &race.second) };
    let site = |access: &sim::machine::Access| machine.program.site(access.site).clone();
    let kernel = |access: &sim::machine::Access| {
        access.kernel.map(|k| machine.program.funcs[k as usize].name.clone()).unwrap_or_default()
    };
    assert_eq!(site(read).op, "ccl.remote_load", "P = {p}, B = {b}");
    assert_eq!(site(read).step.as_deref(), Some("snapshot"), "P = {p}, B = {b}");
    assert!(kernel(read).starts_with("__ccl_all_to_all_v_"), "P = {p}, B = {b}: {}", kernel(read));
    assert_eq!(read.launch, 1, "P = {p}, B = {b}");
    assert_eq!(site(write).op, "ccl.tensor_write", "P = {p}, B = {b}");
    assert_eq!(kernel(write), "stage", "P = {p}, B = {b}");
    assert_eq!(write.launch, 2, "P = {p}, B = {b}");
    let text = report::finding(machine, &finding, &last);
    assert!(text.contains("(step snapshot) in launch 1 of @__ccl_all_to_all_v_"), "{text}");
    assert!(text.contains("'ccl.tensor_write' in launch 2 of @stage"), "{text}");
    println!("P = {p}, B = {b}: {}", text.lines().next().unwrap_or_default());
}
