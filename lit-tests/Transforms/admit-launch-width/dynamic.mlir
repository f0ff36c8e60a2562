// A rank count only known at run time (ccl.comm_size) leaves B dynamic:
// without lower-dynamic the computation stays as one cal op (duplicates
// merged into it), and the launch gets no launch_width.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null

// CHECK-LABEL: func.func @entry(
// CHECK-NEXT:    %[[P:.*]] = ccl.comm_size : i32
// CHECK-NEXT:    %[[L:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[B:.*]] = ccl.cal_all_to_all_v_blocks %[[P]], %[[L]] : i32, i32
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] : memref
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] : memref
// CHECK-NEXT:    return %[[B]] : i32
// CHECK-NOT:     launch_width
func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>) -> i32 attributes {ccl.kind = "orchestration"} {
  %p = ccl.comm_size : i32
  %l = arith.constant 16 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  %again = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %again : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return %again : i32
}
