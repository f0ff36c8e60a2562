// Non-integer operands never reach the pass: the dialect's verifier rejects a
// bool (i1) or a float P or L with a located error, as upstream mlir-opt
// does with the dialect plugin.
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width)'
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file --verify-diagnostics

func.func @bool_rank_count(%p: i1, %l: i32) -> i32 {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' op operand #0 must be signless integer wider than i1, or index, but got 'i1'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i1, i32
  return %b : i32
}

// -----

func.func @bool_core_num(%p: i32, %l: i1) -> i1 {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' op operand #1 must be signless integer wider than i1, or index, but got 'i1'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i1
  return %b : i1
}

// -----

func.func @float_rank_count(%p: f32, %l: i32) -> i32 {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' op operand #0 must be signless integer wider than i1, or index, but got 'f32'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : f32, i32
  return %b : i32
}

// -----

func.func @float_core_num(%p: i64, %l: f16) -> f16 {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' op operand #1 must be signless integer wider than i1, or index, but got 'f16'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, f16
  return %b : f16
}

// -----

// A constant bool folds nowhere: the op holding it is invalid.
func.func @constant_bool() -> i32 {
  %p = arith.constant true
  %l = arith.constant 8 : i32
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' op operand #0 must be signless integer wider than i1, or index, but got 'i1'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i1, i32
  return %b : i32
}

// -----

func.func @float_launch_width(%s: memref<?xi8>, %c: memref<?xi32>, %w: f32) {
  // expected-error @+1 {{'ccl.all_to_all_v' op operand #4 must be signless integer wider than i1, or index, but got 'f32'}}
  ccl.all_to_all_v %s, %c, %s, %c, blocks %w : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, f32
  return
}
