// Rule 6: cal ops of one function with identical operands are merged into
// the first, so B is computed once (the pass does not rely on cse running).
// The first must dominate the duplicate: a duplicate in a sibling branch is
// kept. Different operands, or another function, are never merged.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null

// CHECK-LABEL: func.func @duplicates(
// CHECK-NEXT:    %[[B:.*]] = ccl.cal_all_to_all_v_blocks %arg0, %arg1 : i32, i64
// CHECK-NEXT:    %[[OTHER:.*]] = ccl.cal_all_to_all_v_blocks %arg1, %arg0 : i64, i32
// CHECK-NEXT:    ccl.all_to_all_v %arg2, %arg3, %arg2, %arg3, blocks %[[B]] :
// CHECK-NEXT:    ccl.all_to_all_v %arg2, %arg3, %arg2, %arg3, blocks %[[B]] :
// CHECK-NEXT:    return %[[B]], %[[B]], %[[OTHER]] : i64, i64, i32
func.func @duplicates(%p: i32, %l: i64, %s: memref<?xi8>, %c: memref<?xi32>) -> (i64, i64, i32) attributes {ccl.kind = "orchestration"} {
  %b1 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  %swapped = ccl.cal_all_to_all_v_blocks %l, %p : i64, i32
  %b2 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b1 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b2 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64
  %b3 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  return %b1, %b3, %swapped : i64, i64, i32
}

// Nested under a later op of the first's block: dominated, merged.
// CHECK-LABEL: func.func @nested(
// CHECK-NEXT:    %[[B:.*]] = ccl.cal_all_to_all_v_blocks %arg0, %arg1 :
// CHECK-NEXT:    %[[R:.*]] = scf.if %arg2 -> (i32) {
// CHECK-NEXT:      scf.yield %[[B]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[B]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @nested(%p: i32, %l: i32, %cond: i1) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %r = scf.if %cond -> (i32) {
    %b2 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    scf.yield %b2 : i32
  } else {
    scf.yield %b : i32
  }
  return %r : i32
}

// Sibling branches do not dominate each other: one op per branch stays, and
// the duplicates inside each branch merge into it. The op after the if is
// not dominated by either branch's op and stays too.
// CHECK-LABEL: func.func @branches(
// CHECK-NEXT:    %[[R:.*]] = scf.if %arg2 -> (i32) {
// CHECK-NEXT:      %[[T:.*]] = ccl.cal_all_to_all_v_blocks %arg0, %arg1 :
// CHECK-NEXT:      %[[T2:.*]] = arith.addi %[[T]], %[[T]]
// CHECK-NEXT:      scf.yield %[[T2]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[E:.*]] = ccl.cal_all_to_all_v_blocks %arg0, %arg1 :
// CHECK-NEXT:      scf.yield %[[E]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A:.*]] = ccl.cal_all_to_all_v_blocks %arg0, %arg1 :
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[R]], %[[A]]
// CHECK-NEXT:    %[[S2:.*]] = arith.addi %[[S]], %[[A]]
// CHECK-NEXT:    return %[[S2]]
func.func @branches(%p: i32, %l: i32, %cond: i1) -> i32 {
  %r = scf.if %cond -> (i32) {
    %t = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    %t2 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    %sum = arith.addi %t, %t2 : i32
    scf.yield %sum : i32
  } else {
    %e = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    scf.yield %e : i32
  }
  %a = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %s = arith.addi %r, %a : i32
  %a2 = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %s2 = arith.addi %s, %a2 : i32
  return %s2 : i32
}

// Per function: the same operands in another function are another value.
// CHECK-LABEL: func.func @first_function(
// CHECK-NEXT:    ccl.cal_all_to_all_v_blocks %arg0, %arg1 :
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @second_function(
// CHECK-NEXT:    ccl.cal_all_to_all_v_blocks %arg0, %arg1 :
// CHECK-NEXT:    return
func.func @first_function(%p: i32, %l: i32) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
func.func @second_function(%p: i32, %l: i32) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
