// What counts as a constant operand: any arith.constant of integer or index
// type, whatever its width (i128 beyond the i64 range included), and the
// constant a fold just produced. Anything else leaves the cal op in place.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null

// A cal op fed by a folded one folds too: B(8, 10) = 8, then B(3, 8) = 6.
// CHECK-LABEL: func.func @chained(
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 10 : i32
// CHECK-NEXT:    %[[B1:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    %[[B2:.*]] = arith.constant 6 : i32
// CHECK-NEXT:    return %[[B1]], %[[B2]] : i32, i32
func.func @chained() -> (i32, i32) {
  %p = arith.constant 8 : i32
  %l = arith.constant 10 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %three = arith.constant 3 : i32
  %b2 = ccl.cal_all_to_all_v_blocks %three, %b : i32, i32
  return %b, %b2 : i32, i32
}

// 2^100 = 3 * 422550200076076467165567735125 + 1.
// CHECK-LABEL: func.func @wide(
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK-NEXT:    arith.constant 1267650600228229401496703205376 : i128
// CHECK-NEXT:    %[[B:.*]] = arith.constant 1267650600228229401496703205375 : i128
// CHECK-NEXT:    return %[[B]] : i128
func.func @wide() -> i128 {
  %p = arith.constant 3 : i64
  %l = arith.constant 1267650600228229401496703205376 : i128
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, i128
  return %b : i128
}

// One constant operand is not enough; nor is a constant of another dialect.
// CHECK-LABEL: func.func @not_constant(
// CHECK:         %[[B1:.*]] = ccl.cal_all_to_all_v_blocks %{{.*}}, %arg0 : i32, i32
// CHECK-NEXT:    arith.constant 8 : index
// CHECK-NEXT:    %[[I:.*]] = index.constant 4
// CHECK-NEXT:    %[[B2:.*]] = ccl.cal_all_to_all_v_blocks %[[I]], %{{.*}} : index, index
// CHECK-NEXT:    return %[[B1]], %[[B2]] : i32, index
func.func @not_constant(%l: i32) -> (i32, index) {
  %p = arith.constant 8 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %eight = arith.constant 8 : index
  %four = index.constant 4
  %b2 = ccl.cal_all_to_all_v_blocks %four, %eight : index, index
  return %b, %b2 : i32, index
}
