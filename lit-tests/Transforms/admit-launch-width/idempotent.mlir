// A second run changes nothing: the output of a run is a fixed point,
// byte for byte, with and without lower-dynamic.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' -o %t.once
// RUN: ccl-opt %t.once --pass-pipeline='builtin.module(ccl-admit-launch-width)' -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=true})' -o %t.lowered
// RUN: ccl-opt %t.lowered --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=true})' -o %t.lowered.twice
// RUN: diff %t.lowered %t.lowered.twice
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width, ccl-admit-launch-width)' | diff %t.once -
// RUN: ccl-opt %t.once --pass-pipeline='builtin.module(ccl-admit-launch-width)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// The second run counts nothing.
// CHECK:      CclAdmitLaunchWidth
// CHECK-NEXT:   (S) 0 launches-stamped
// CHECK-NEXT:   (S) 0 ops-folded
// CHECK-NEXT:   (S) 0 ops-lowered
// CHECK-NEXT:   (S) 0 ops-merged

func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>, %l: i64) -> i64 attributes {ccl.kind = "orchestration"} {
  %p8 = arith.constant 8 : i32
  %l16 = arith.constant 16 : i32
  %b16 = ccl.cal_all_to_all_v_blocks %p8, %l16 : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b16 {signal_stride = 16 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  %p = ccl.comm_size : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  %dup = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %dup : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  return %b : i64
}
