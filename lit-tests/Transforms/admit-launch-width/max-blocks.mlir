// Rule 4: with max-blocks=N, a constant B above N is an error: at the cal op
// that computes it, or at a launch whose width is a constant written
// directly. B = N is admitted. max-blocks=0 (the default) means no limit.
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=8})'
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=0})' | FileCheck %s --check-prefix=NOLIMIT
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s --check-prefix=NOLIMIT
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file -o /dev/null

// NOLIMIT-LABEL: func.func @above
// NOLIMIT:         launch_width = 16 : i64
func.func @above(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 16 : i32
  // expected-error @+1 {{admitted launch width 16 exceeds max-blocks=8}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

// -----

// B(8, 15) = 8 = N: admitted.
// NOLIMIT-LABEL: func.func @at_limit
// NOLIMIT:         launch_width = 8 : i64
func.func @at_limit(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 15 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

// -----

// NOLIMIT-LABEL: func.func @direct_constant
// NOLIMIT:         launch_width = 32 : i64
func.func @direct_constant(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 32 : i64
  // expected-error @+1 {{admitted launch width 32 exceeds max-blocks=8}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  return
}

// -----

// A B that never reaches a launch is still bounded.
// NOLIMIT-LABEL: func.func @returned
// NOLIMIT:         %[[B:.*]] = arith.constant 24 : index
// NOLIMIT-NEXT:    return %[[B]]
func.func @returned() -> index attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 4 : index
  %l = arith.constant 25 : index
  // expected-error @+1 {{admitted launch width 24 exceeds max-blocks=8}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : index, index
  return %b : index
}
