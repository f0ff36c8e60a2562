// Rule 7: with lower-dynamic=true each remaining cal op becomes the arith
// ops of the formula, in its order: cmpi slt (L < P), divsi (L / P), muli
// (by P), select. Mixed types run in the wider type (index counts as 64
// bits) and B returns to L's type. Constant cal ops still fold; duplicates
// are merged before lowering, so each B is expanded once.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=true})' | FileCheck %s
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=false})' | FileCheck %s --check-prefix=KEEP
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null

// KEEP-COUNT-7: ccl.cal_all_to_all_v_blocks
// KEEP-NOT:     ccl.cal_all_to_all_v_blocks
// CHECK-NOT:    ccl.cal_all_to_all_v_blocks

// CHECK-LABEL: func.func @same_type(
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %arg1, %arg0 : i32
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %arg1, %arg0 : i32
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q]], %arg0 : i32
// CHECK-NEXT:    %[[B:.*]] = arith.select %[[LT]], %arg1, %[[M]] : i32
// CHECK-NEXT:    return %[[B]] : i32
func.func @same_type(%p: i32, %l: i32) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}

// The rank count from ccl.comm_size; P narrower than L.
// CHECK-LABEL: func.func @comm_size(
// CHECK-NEXT:    %[[P:.*]] = ccl.comm_size : i32
// CHECK-NEXT:    %[[PW:.*]] = arith.extsi %[[P]] : i32 to i64
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %arg0, %[[PW]] : i64
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %arg0, %[[PW]] : i64
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q]], %[[PW]] : i64
// CHECK-NEXT:    %[[B:.*]] = arith.select %[[LT]], %arg0, %[[M]] : i64
// CHECK-NEXT:    return %[[B]], %[[B]] : i64, i64
func.func @comm_size(%l: i64) -> (i64, i64) attributes {ccl.kind = "orchestration"} {
  %p = ccl.comm_size : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  %dup = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
  return %b, %dup : i64, i64
}

// P wider than L: computed in i64, B truncated back (exact: B <= L).
// CHECK-LABEL: func.func @p_wider(
// CHECK-NEXT:    %[[LW:.*]] = arith.extsi %arg1 : i16 to i64
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %[[LW]], %arg0 : i64
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[LW]], %arg0 : i64
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q]], %arg0 : i64
// CHECK-NEXT:    %[[BW:.*]] = arith.select %[[LT]], %[[LW]], %[[M]] : i64
// CHECK-NEXT:    %[[B:.*]] = arith.trunci %[[BW]] : i64 to i16
// CHECK-NEXT:    return %[[B]] : i16
func.func @p_wider(%p: i64, %l: i16) -> i16 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, i16
  return %b : i16
}

// index P, i32 L: computed in index.
// CHECK-LABEL: func.func @index_p(
// CHECK-NEXT:    %[[LW:.*]] = arith.index_cast %arg1 : i32 to index
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %[[LW]], %arg0 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[LW]], %arg0 : index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q]], %arg0 : index
// CHECK-NEXT:    %[[BW:.*]] = arith.select %[[LT]], %[[LW]], %[[M]] : index
// CHECK-NEXT:    %[[B:.*]] = arith.index_cast %[[BW]] : index to i32
// CHECK-NEXT:    return %[[B]] : i32
func.func @index_p(%p: index, %l: i32) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : index, i32
  return %b : i32
}

// i64 P, index L: a tie, computed in L's type.
// CHECK-LABEL: func.func @index_l(
// CHECK-NEXT:    %[[PW:.*]] = arith.index_cast %arg0 : i64 to index
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %arg1, %[[PW]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %arg1, %[[PW]] : index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q]], %[[PW]] : index
// CHECK-NEXT:    %[[B:.*]] = arith.select %[[LT]], %arg1, %[[M]] : index
// CHECK-NEXT:    return %[[B]] : index
func.func @index_l(%p: i64, %l: index) -> index {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i64, index
  return %b : index
}

// i128 P, index L: computed in i128.
// CHECK-LABEL: func.func @wide_p(
// CHECK-NEXT:    %[[LW:.*]] = arith.index_cast %arg1 : index to i128
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %[[LW]], %arg0 : i128
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[LW]], %arg0 : i128
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q]], %arg0 : i128
// CHECK-NEXT:    %[[BW:.*]] = arith.select %[[LT]], %[[LW]], %[[M]] : i128
// CHECK-NEXT:    %[[B:.*]] = arith.index_cast %[[BW]] : i128 to index
// CHECK-NEXT:    return %[[B]] : index
func.func @wide_p(%p: i128, %l: index) -> index {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i128, index
  return %b : index
}

// Only the dynamic op is expanded; the constant one folds; the expansion
// sits where the op was, inside the loop, and feeds the launch (which gets
// no launch_width: its width is a run-time value).
// CHECK-LABEL: func.func @mixed(
// CHECK:         arith.constant 1 : index
// CHECK-NEXT:    %[[B8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B8]] {launch_width = 8 : i64}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi slt, %arg2, %[[P:.*]] : i32
// CHECK-NEXT:      %[[Q:.*]] = arith.divsi %arg2, %[[P]] : i32
// CHECK-NEXT:      %[[M:.*]] = arith.muli %[[Q]], %[[P]] : i32
// CHECK-NEXT:      %[[B:.*]] = arith.select %[[LT]], %arg2, %[[M]] : i32
// CHECK-NEXT:      ccl.all_to_all_v %arg0, %arg1, %arg0, %arg1, blocks %[[B]] : memref
func.func @mixed(%s: memref<?xi8>, %c: memref<?xi32>, %l: i32, %n: index) attributes {ccl.kind = "orchestration"} {
  %p = ccl.comm_size : i32
  %p8 = arith.constant 8 : i32
  %l10 = arith.constant 10 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b8 = ccl.cal_all_to_all_v_blocks %p8, %l10 : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b8 : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  scf.for %i = %c0 to %n step %c1 {
    %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  }
  return
}
