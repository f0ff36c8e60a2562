// Rule 2: a constant P <= 0 or L <= 0 is an error at the cal op, with these
// exact messages; a constant operand is checked even when the other one is
// dynamic, and both operands of one op are reported. Constants are read as
// signed numbers of their width.
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width)'
// The same per function (how ccl-pipeline runs it):
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(ccl-admit-launch-width))'
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file -o /dev/null

func.func @p_zero() -> i32 {
  %p = arith.constant 0 : i32
  %l = arith.constant 8 : i32
  // expected-error @+1 {{P (rank count) must be positive, got 0}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}

// -----

func.func @p_negative() -> index {
  %p = arith.constant -4 : i64
  %l = arith.constant 8 : index
  // expected-error @+1 {{P (rank count) must be positive, got -4}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, index
  return %b : index
}

// -----

func.func @l_zero() -> i64 {
  %p = arith.constant 8 : i32
  %l = arith.constant 0 : i64
  // expected-error @+1 {{L (requested core_num) must be positive, got 0}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  return %b : i64
}

// -----

// 200 : i8 is -56.
func.func @l_negative_i8() -> i8 {
  %p = arith.constant 8 : i32
  %l = arith.constant 200 : i8
  // expected-error @+1 {{L (requested core_num) must be positive, got -56}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i8
  return %b : i8
}

// -----

func.func @both(%s: memref<?xi8>, %c: memref<?xi32>) {
  %p = arith.constant -1 : i32
  %l = arith.constant -7 : i32
  // expected-error @+2 {{P (rank count) must be positive, got -1}}
  // expected-error @+1 {{L (requested core_num) must be positive, got -7}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

// -----

func.func @p_constant_l_dynamic(%l: i32) -> i32 {
  %p = arith.constant 0 : i32
  // expected-error @+1 {{P (rank count) must be positive, got 0}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}

// -----

func.func @l_constant_p_dynamic() -> i32 {
  %p = ccl.comm_size : i32
  %l = arith.constant -3 : i32
  // expected-error @+1 {{L (requested core_num) must be positive, got -3}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
