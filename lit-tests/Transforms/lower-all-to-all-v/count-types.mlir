// Counts of any integer width, or index, clamp in their own type, and the
// clamp bound is one the type can hold: with MR = 1024 / 4 = 256 rows an
// i8 count clamps to 127, never to 256 wrapped to 0 (which dropped every
// row before the fix). index counts need no cast to index. A buffer of
// several dimensions is pushed through one flat view of its rows.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{lower-collectives=true})' -o /dev/null

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// CHECK-SAME:      memref<1024xf32, #ccl.window>, %[[SC:[^:]+]]: memref<4xi8, #ccl.window>
// CHECK:         %[[C:.*]] = ccl.remote_load %{{.*}} -> i8
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 127 : i8
// CHECK-NEXT:    %[[A:.*]] = arith.maxsi %[[C]], %[[LO]] : i8
// CHECK-NEXT:    %{{.*}} = arith.minsi %[[A]], %[[HI]] : i8
// CHECK:         %[[N:.*]] = ccl.read %[[SC]][%{{.*}}] : memref<4xi8, #ccl.window> -> i8
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 127 : i8
// CHECK-NEXT:    %[[A:.*]] = arith.maxsi %[[N]], %[[LO]] : i8
// CHECK-NEXT:    %[[R:.*]] = arith.minsi %[[A]], %[[HI]] : i8
// CHECK-NEXT:    %{{.*}} = arith.index_cast %[[R]] : i8 to index
// CHECK:         %{{.*}} = arith.constant 256 : index
// CHECK:         ccl.put
// CHECK:         return

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p2_b2(
// CHECK-SAME:      %[[SEND:[^:]+]]: memref<4x2x3xf32, #ccl.window>, %[[SC:[^:]+]]: memref<2xindex, #ccl.window>
// CHECK-NEXT:    memref.collapse_shape %[[SEND]] {{\[\[}}0, 1, 2]] : memref<4x2x3xf32, #ccl.window> into memref<24xf32, #ccl.window>
// CHECK:         %[[N:.*]] = ccl.read %[[SC]][%{{.*}}] : memref<2xindex, #ccl.window> -> index
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[A:.*]] = arith.maxsi %[[N]], %[[LO]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.minsi %[[A]], %[[HI]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %{{.*}} = arith.muli %[[R]], %[[ROW]] : index
// CHECK-NOT:     arith.index_cast
// CHECK:         return

func.func @narrow(%d: memref<1024xf32, #ccl.window>, %c: memref<4xi8, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 4 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<1024xf32, #ccl.window>, memref<4xi8, #ccl.window>, memref<1024xf32, #ccl.window>, memref<4xi8, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

func.func @index_counts(%d: memref<4x2x3xf32, #ccl.window>, %c: memref<2xindex, #ccl.window>, %rc: memref<2xindex>,
                        %sig: memref<2x2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 2 : i32
  ccl.all_to_all_v %d, %c, %d, %rc, blocks %b, signal %sig {launch_width = 2 : i64}
      : memref<4x2x3xf32, #ccl.window>, memref<2xindex, #ccl.window>, memref<4x2x3xf32, #ccl.window>, memref<2xindex>, i32, memref<2x2xi32, #ccl.window>
  return
}
