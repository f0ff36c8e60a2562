// A run with errors reports every one of them (in source order), prints no
// IR, and exits with 1.
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=8})' > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s < %t.err

// CHECK: error-exit.mlir:[[# @LINE + 11]]:9: error: P (rank count) must be positive, got 0
// CHECK: error-exit.mlir:[[# @LINE + 11]]:9: error: L (requested core_num) must be positive, got -1
// CHECK: error-exit.mlir:[[# @LINE + 13]]:9: error: admitted launch width 16 exceeds max-blocks=8
// CHECK: error-exit.mlir:[[# @LINE + 13]]:3: error: signal stride 4 is narrower than the admitted launch width 16
// CHECK: error-exit.mlir:[[# @LINE + 18]]:8: error: 'ccl.cal_all_to_all_v_blocks' in InCore function @kernel (ccl.kind = "incore")
// CHECK-NOT: error
func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %zero = arith.constant 0 : i32
  %minus = arith.constant -1 : i32
  %p = arith.constant 8 : i32
  %l = arith.constant 16 : i32
  %b0 = ccl.cal_all_to_all_v_blocks %zero, %l : i32, i32
  %b1 = ccl.cal_all_to_all_v_blocks %p, %minus : i32, i32
  %ok = arith.constant 10 : i32
  %b2 = ccl.cal_all_to_all_v_blocks %p, %ok : i32, i32
  %b3 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b3 {signal_stride = 4 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b2 {signal_stride = 8 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

func.func @kernel(%p: i32, %l: i32) -> i32 attributes {ccl.kind = "incore"} {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
