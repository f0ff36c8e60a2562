// The worked table of docs/semantics.md, one row per function: both-constant cal ops
// fold into an arith.constant of the result type (L's type, any integer width
// or index), and the launch it feeds is stamped with launch_width = B : i64.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null

// CHECK-LABEL: func.func @p8_l1(
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    %[[B:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 1 : i64}
// CHECK-NEXT:    return %[[B]] : i32
func.func @p8_l1(%s: memref<?xi8>, %c: memref<?xi32>) -> i32 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 1 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return %b : i32
}

// CHECK-LABEL: func.func @p8_l7(
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 7 : i32
// CHECK-NEXT:    %[[B:.*]] = arith.constant 7 : i32
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 7 : i64}
// CHECK-NEXT:    return %[[B]] : i32
func.func @p8_l7(%s: memref<?xi8>, %c: memref<?xi32>) -> i32 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 7 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return %b : i32
}

// CHECK-LABEL: func.func @p8_l8(
// CHECK-NEXT:    arith.constant 8 : i64
// CHECK-NEXT:    arith.constant 8 : i64
// CHECK-NEXT:    %[[B:.*]] = arith.constant 8 : i64
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 8 : i64}
// CHECK-NEXT:    return %[[B]] : i64
func.func @p8_l8(%s: memref<?xi8>, %c: memref<?xi32>) -> i64 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i64
  %l = arith.constant 8 : i64
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  return %b : i64
}

// P and L of different types: B has L's type.
// CHECK-LABEL: func.func @p8_l10(
// CHECK-NEXT:    arith.constant 8 : index
// CHECK-NEXT:    arith.constant 10 : i16
// CHECK-NEXT:    %[[B:.*]] = arith.constant 8 : i16
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 8 : i64}
// CHECK-NEXT:    return %[[B]] : i16
func.func @p8_l10(%s: memref<?xi8>, %c: memref<?xi32>) -> i16 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : index
  %l = arith.constant 10 : i16
  %b = ccl.cal_all_to_all_v_blocks %p, %l : index, i16
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i16
  return %b : i16
}

// CHECK-LABEL: func.func @p8_l15(
// CHECK-NEXT:    arith.constant 8 : i8
// CHECK-NEXT:    arith.constant 15 : index
// CHECK-NEXT:    %[[B:.*]] = arith.constant 8 : index
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 8 : i64}
// CHECK-NEXT:    return %[[B]] : index
func.func @p8_l15(%s: memref<?xi8>, %c: memref<?xi32>) -> index attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i8
  %l = arith.constant 15 : index
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i8, index
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, index
  return %b : index
}

// CHECK-LABEL: func.func @p8_l16(
// CHECK-NEXT:    arith.constant 8 : i128
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    %[[B:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 16 : i64}
// CHECK-NEXT:    return %[[B]] : i32
func.func @p8_l16(%s: memref<?xi8>, %c: memref<?xi32>) -> i32 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i128
  %l = arith.constant 16 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i128, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return %b : i32
}

// CHECK-LABEL: func.func @p16_l7(
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 7 : i64
// CHECK-NEXT:    %[[B:.*]] = arith.constant 7 : i64
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 7 : i64}
// CHECK-NEXT:    return %[[B]] : i64
func.func @p16_l7(%s: memref<?xi8>, %c: memref<?xi32>) -> i64 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 16 : i32
  %l = arith.constant 7 : i64
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  return %b : i64
}

// CHECK-LABEL: func.func @p16_l16(
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    %[[B:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] {launch_width = 16 : i64}
// CHECK-NEXT:    return %[[B]] : i32
func.func @p16_l16(%s: memref<?xi8>, %c: memref<?xi32>) -> i32 attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 16 : i32
  %l = arith.constant 16 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return %b : i32
}
