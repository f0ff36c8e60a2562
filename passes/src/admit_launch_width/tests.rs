//! What the pass declares changed for verify-each (lit tests see only the
//! output).

use crate::test_support::{context, parse, run_pass};

const PROGRAM: &str = r#"
    func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
      %p = arith.constant 8 : i32
      %l = arith.constant 20 : i32
      %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
      ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
      return
    }
    func.func @stamped(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
      %b = arith.constant 8 : i32
      ccl.all_to_all_v %s, %c, %s, %c, blocks %b {launch_width = 8 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
      return
    }
    func.func @kernel() attributes {ccl.kind = "incore"} { return }
"#;

#[test]
fn a_run_declares_whether_it_changed_anything_and_a_rerun_changes_nothing() {
    let context = context();
    let module = parse(&context, PROGRAM);
    // @entry folds and stamps; @stamped is already admitted.
    let (preserved, counts) = run_pass(&super::INFO, module.as_operation());
    assert!(!preserved);
    assert_eq!(counts, [("ops-folded", 1), ("ops-merged", 0), ("ops-lowered", 0), ("launches-stamped", 1)]);
    let text = module.as_operation().to_string();
    let (preserved, counts) = run_pass(&super::INFO, module.as_operation());
    assert!(preserved, "a rerun preserves everything, so MLIR skips verify-each");
    assert_eq!(module.as_operation().to_string(), text);
    assert_eq!(counts, [("ops-folded", 0), ("ops-merged", 0), ("ops-lowered", 0), ("launches-stamped", 0)]);
}
