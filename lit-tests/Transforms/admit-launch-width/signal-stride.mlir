// Rule 3: a launch's signal_stride must be at least its admitted width B.
// (A signal_stride that is not an i64 never reaches the pass: the dialect
// verifier rejects it, Dialect/integer-operands.mlir.)
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width)'
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file -o /dev/null

func.func @narrower(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 16 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  // expected-error @+1 {{signal stride 8 is narrower than the admitted launch width 16}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 8 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

// -----

// Each launch is checked on its own: equal and wider strides pass.
func.func @per_launch(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 16 : i64
  %l = arith.constant 7 : i64
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 7 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 64 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  // expected-error @+1 {{signal stride 6 is narrower than the admitted launch width 7}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 6 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  return
}

// -----

// A launch width written as a constant is held to the stride too.
func.func @direct_constant(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 12 : i32
  // expected-error @+1 {{signal stride 4 is narrower than the admitted launch width 12}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 4 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

// -----

// A dynamic width is not admitted at compile time: nothing to check.
func.func @dynamic(%s: memref<?xi8>, %c: memref<?xi32>, %l: i32) attributes {ccl.kind = "orchestration"} {
  %p = ccl.comm_size : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 1 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

