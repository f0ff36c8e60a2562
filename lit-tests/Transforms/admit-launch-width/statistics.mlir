// The pass counts what it folded, merged, lowered and stamped.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=true})' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP

// CHECK:      CclAdmitLaunchWidth
// CHECK-NEXT:   (S) 3 launches-stamped - launches stamped with launch_width
// CHECK-NEXT:   (S) 2 ops-folded - cal ops folded into a constant
// CHECK-NEXT:   (S) 1 ops-lowered - cal ops lowered to arith
// CHECK-NEXT:   (S) 2 ops-merged - duplicate cal ops merged into the first
// KEEP:         (S) 0 ops-lowered

func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>, %l: i32) attributes {ccl.kind = "orchestration"} {
  %p8 = arith.constant 8 : i32
  %l10 = arith.constant 10 : i32
  %l16 = arith.constant 16 : i32
  %b8 = ccl.cal_all_to_all_v_blocks %p8, %l10 : i32, i32
  %b16 = ccl.cal_all_to_all_v_blocks %p8, %l16 : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b8 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b8 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b16 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  %p = ccl.comm_size : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %dup = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %dup2 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %dup : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %dup2 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}
