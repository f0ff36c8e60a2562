// Admission on empty strings: a function named @"" is folded and stamped
// like any other, and named @"" when rule 5 rejects a cal op in it. The
// admission only asks whether a function is InCore: ccl.kind = "" is not,
// so its cal op stays (the kind itself is judged by ccl-insert-comm-fence and
// ccl-verify-comm-order, see their empty-strings.mlir).
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-admit-launch-width)' --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @<<INVALID EMPTY SYMBOL>>(
// CHECK-NOT: ccl.cal_all_to_all_v_blocks
// CHECK: ccl.all_to_all_v {{.*}} {launch_width = 16 : i64}
func.func @""(%s: memref<64xf32, #ccl.window>, %c: memref<8xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 16 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32
  return
}

// CHECK-LABEL: func.func @empty_kind(
// CHECK-NEXT: ccl.cal_all_to_all_v_blocks
func.func @empty_kind(%p: i32, %l: i32) -> i32 attributes {ccl.kind = ""} {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}

// -----

func.func @""(%p: i32, %l: i32) -> i32 attributes {ccl.kind = "aic"} {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' in InCore function @"" (ccl.kind = "aic"): the launch width is computed once at the orchestration entry}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
