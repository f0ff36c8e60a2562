// One kernel per signature (element type, P, rows per peer, row size, B,
// S, window-ness: the five operand types and the launch width), called by
// every collective with that signature, in any function. A different
// signature gets a kernel of its own; one with the same P and B as an
// existing kernel gets the next free name.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s --check-prefix=KERNELS

// CHECK-LABEL: func.func @first(
// CHECK:         call @__ccl_all_to_all_v_p4_b4(%arg0, %arg1, %arg0, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4(%arg0, %arg1, %arg0, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @second(
// Same signature, another function: the same kernel.
// CHECK:         call @__ccl_all_to_all_v_p4_b4(%arg0, %arg1, %arg0, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// Another launch width.
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b2(%arg0, %arg1, %arg0, %arg1, %arg2) {ccl.launch_width = 2 : i64}
// Another element type, same P and B.
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4_1(%arg3, %arg1, %arg3, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// Another row size.
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4_2(%arg4, %arg1, %arg4, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// A plain (not window-bound) recv.
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4_3(%arg0, %arg1, %arg5, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// A wider signal (S = 8).
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4_4(%arg0, %arg1, %arg0, %arg1, %arg6) {ccl.launch_width = 4 : i64}
// CHECK-NEXT:    return

// Six kernels, each made once, in the order of their first call.
// KERNELS-NOT:   func.func @__ccl_all_to_all_v
// KERNELS:       func.func @__ccl_all_to_all_v_p4_b4(%arg0: memref<8xf32, #ccl.window>
// KERNELS-NOT:   func.func @__ccl_all_to_all_v_p4_b4(
// KERNELS:       func.func @__ccl_all_to_all_v_p4_b2(%arg0: memref<8xf32, #ccl.window>
// KERNELS:       func.func @__ccl_all_to_all_v_p4_b4_1(%arg0: memref<8xf16, #ccl.window>
// KERNELS:       func.func @__ccl_all_to_all_v_p4_b4_2(%arg0: memref<8x2xf32, #ccl.window>
// KERNELS:       func.func @__ccl_all_to_all_v_p4_b4_3(%arg0: memref<8xf32, #ccl.window>, %arg1: memref<4xi32, #ccl.window>, %arg2: memref<8xf32>,
// KERNELS:       func.func @__ccl_all_to_all_v_p4_b4_4({{.*}}, %arg4: memref<4x8xi32, #ccl.window>)
// KERNELS-NOT:   func.func @__ccl_all_to_all_v

func.func @first(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 4 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

func.func @second(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>,
                  %h: memref<8xf16, #ccl.window>, %w: memref<8x2xf32, #ccl.window>, %plain: memref<8xf32>,
                  %wide: memref<4x8xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %b4 = arith.constant 4 : i32
  %b2 = arith.constant 2 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b4, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b2, signal %sig {launch_width = 2 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %h, %c, %h, %c, blocks %b4, signal %sig {launch_width = 4 : i64}
      : memref<8xf16, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf16, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %w, %c, %w, %c, blocks %b4, signal %sig {launch_width = 4 : i64}
      : memref<8x2xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8x2xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %plain, %c, blocks %b4, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b4, signal %wide {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x8xi32, #ccl.window>
  return
}
