// A constant launch width must be one a launch can have: positive, and
// representable as the i64 launch_width.
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width)'
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file -o /dev/null

func.func @zero(%s: memref<?xi8>, %c: memref<?xi32>) {
  %b = arith.constant 0 : i32
  // expected-error @+1 {{launch width must be positive, got 0}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

// -----

func.func @too_wide(%s: memref<?xi8>, %c: memref<?xi32>) {
  %b = arith.constant 36893488147419103232 : i128
  // expected-error @+1 {{admitted launch width 36893488147419103232 does not fit in i64}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i128
  return
}
