// Rule 5: B is computed once at the orchestration entry and never by a
// kernel: a cal op in an InCore function (ccl.kind incore, aic or aiv) is an
// error, constant operands or not, however deeply nested.
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width)'
// The same per function (how ccl-pipeline runs it):
// RUN: ccl-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(ccl-admit-launch-width))'
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file -o /dev/null

func.func @kernel(%p: i32, %l: i32) -> i32 attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' in InCore function @kernel (ccl.kind = "incore"): the launch width is computed once at the orchestration entry and passed in, never recomputed by a kernel}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}

// -----

func.func @cube(%n: index) attributes {ccl.kind = "aic"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant 8 : index
  %l = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' in InCore function @cube (ccl.kind = "aic")}}
    %b = ccl.cal_all_to_all_v_blocks %p, %l : index, index
  }
  return
}

// -----

func.func @vector(%p: i64, %l: i64) -> i64 attributes {ccl.kind = "aiv"} {
  // expected-error @+1 {{in InCore function @vector (ccl.kind = "aiv")}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, i64
  return %b : i64
}

// -----

// Every other kind may compute B: no error, and the kernel receives it.
func.func @entry(%l: i32) -> i32 attributes {ccl.kind = "orchestration"} {
  %p = ccl.comm_size : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %r = func.call @uses_b(%b) : (i32) -> i32
  return %r : i32
}
func.func @uses_b(%b: i32) -> i32 attributes {ccl.kind = "aiv"} {
  return %b : i32
}
func.func @graph(%p: i32, %l: i32) -> i32 attributes {ccl.kind = "graph"} {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
func.func @host(%p: i32, %l: i32) -> i32 attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
func.func @no_kind(%p: i32, %l: i32) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}

// -----

// The op is still checked for the other errors of the run.
func.func @kernel_bad_operand(%l: i32) -> i32 attributes {ccl.kind = "incore"} {
  %p = arith.constant 0 : i32
  // expected-error @+2 {{in InCore function @kernel_bad_operand (ccl.kind = "incore")}}
  // expected-error @+1 {{P (rank count) must be positive, got 0}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
