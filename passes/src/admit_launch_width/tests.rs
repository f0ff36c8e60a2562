//! What the pass declares changed for verify-each (lit tests see only the
//! output).

use crate::{
    framework::{Changes, Statistics},
    test_support::{address, context, counts, function, parse, run_step},
};

const PROGRAM: &str = r#"
    func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
      %p = arith.constant 8 : i32
      %l = arith.constant 20 : i32
      %b = "ccl.cal_all_to_all_v_blocks"(%p, %l) : (i32, i32) -> i32
      "ccl.all_to_all_v"(%s, %c, %s, %c, %b) : (memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32) -> ()
      return
    }
    func.func @stamped(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
      %b = arith.constant 8 : i32
      "ccl.all_to_all_v"(%s, %c, %s, %c, %b) {launch_width = 8 : i64} : (memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32) -> ()
      return
    }
    func.func @kernel() attributes {ccl.kind = "incore"} { return }
"#;

#[test]
fn a_run_declares_the_functions_it_rewrote_and_a_rerun_none() {
    let context = context();
    let module = parse(&context, PROGRAM);
    let stats = Statistics::new(super::INFO.statistics);
    // @entry folds and stamps (declared once); @stamped is already admitted.
    let changes = run_step(&super::INFO, 0, module.as_operation(), &stats);
    assert_eq!(changes, Changes::Ops(vec![address(function(&module, "entry"))]));
    assert_eq!(counts(&stats), [("ops-folded", 1), ("ops-merged", 0), ("ops-lowered", 0), ("launches-stamped", 1)]);
    let text = module.as_operation().to_string();

    let again = Statistics::new(super::INFO.statistics);
    assert_eq!(run_step(&super::INFO, 0, module.as_operation(), &again), Changes::Ops(Vec::new()));
    assert_eq!(module.as_operation().to_string(), text);
    assert_eq!(counts(&again), [("ops-folded", 0), ("ops-merged", 0), ("ops-lowered", 0), ("launches-stamped", 0)]);
}
