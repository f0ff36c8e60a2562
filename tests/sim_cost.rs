//! The simulator's cost counts through the library API, as a Rust test or a
//! benchmark reads them to compare marker placements: `Outcome::Clean`
//! carries a `RunCost` with a `CostRange` per kernel (by function name) and
//! in total, and `Options::args` sets the entry's scalar arguments.

use cclir::sim::{self, EntryArg, Options, Outcome, RunCost, Search};
use cclir::Session;

/// A kernel that stores `%rows` rows of its window and then tells its peer;
/// the peer reads the window after the signal.
const KERNEL: &str = r#"
func.func @rows(%win: memref<16xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %rows: index)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : i32
  %peer = arith.subi %one, %me : i32
  scf.for %row = %c0 to %rows step %c1 {
    ccl.tensor_write %win[%row], %me : memref<16xi32, #ccl.window>, i32
  }
  ccl.notify set %sig, %peer, %one : memref<1xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
  %v = ccl.remote_load %win, %peer : memref<16xi32, #ccl.window>, i32 -> vector<16xi32>
  return
}
func.func @main(%win: memref<16xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %rows: index)
    attributes {ccl.kind = "orchestration"} {
  func.call @rows(%win, %sig, %rows) : (memref<16xi32, #ccl.window>, memref<1xi32, #ccl.window>, index) -> ()
  return
}
"#;

/// Inserts the rules' markers into `KERNEL` and simulates it with `rows`.
fn cost_of(rows: &str, search: Search) -> (RunCost, usize) {
    let session = Session::new();
    let mut program = session.parse(KERNEL, "rows.mlir").expect("the kernel parses");
    let insert = session.pipeline("builtin.module(ccl-insert-comm-fence)").expect("the pipeline builds");
    session.run(&insert, &mut program).expect("the markers are inserted");
    // The argument names come from the text the module was parsed from
    // (its ops keep their locations in it).
    let options = Options {
        ranks: 2,
        search,
        args: vec![EntryArg { key: "rows".into(), value: rows.into() }],
        source: Some(KERNEL.into()),
        ..Options::default()
    };
    let (_, outcome) = sim::simulate(program.operation_ref(), &options).expect("ccl-sim runs it");
    match outcome {
        Outcome::Clean { cost, states, .. } => (cost, states),
        other => panic!("not clean: {other:?}"),
    }
}

#[test]
fn the_rules_placement_costs_a_fence_and_a_write_back_per_row() {
    for rows in [0u64, 1, 5, 16] {
        let (cost, _) = cost_of(&rows.to_string(), Search::Exhaustive);
        let kernel = cost.kernels["rows"];
        // Deterministic: every schedule executes the same.
        assert!(kernel.is_exact(), "{rows} rows: {kernel:?}");
        let per_block = kernel.min;
        // Two ranks, one block each: per row an invalidate of the window
        // (writing back its one line) and a fence; the wait's whole-GM
        // invalidate once.
        assert_eq!(per_block.launches, 2);
        assert_eq!(per_block.fences, 2 * rows, "{rows} rows");
        assert_eq!(per_block.region_invalidates, 2 * rows, "{rows} rows");
        assert_eq!(per_block.whole_invalidates, 2, "{rows} rows");
        assert_eq!(per_block.lines_written_back, 2 * rows, "{rows} rows");
        assert_eq!(per_block.markers(), 4 * rows + 2);
        assert_eq!(cost.total.expect("a schedule ended"), kernel);
    }
}

#[test]
fn random_schedules_count_the_same_as_every_schedule() {
    let (exhaustive, states) = cost_of("4", Search::Exhaustive);
    let (random, _) = cost_of("4", Search::Random { runs: 20, seed: 3 });
    assert_eq!(exhaustive.kernels, random.kernels);
    assert_eq!(random.schedules, 20);
    // Counting does not split states: 4 rows explore as few states as the
    // search needs without counting (the markers add landings, not copies
    // of states that differ only in their counts).
    assert!(states < 200, "{states} states");
}
