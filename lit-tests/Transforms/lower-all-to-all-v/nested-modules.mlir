// Each builtin.module nested in the module is a program of its own, handled
// as if the pass ran on it alone, at any depth: its collectives are lowered
// to kernels of its own symbol table (symbol-tables.mlir has the naming),
// and a collective it cannot lower is an error where it is.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// Scheduled on the nested modules, the pass leaves the top-level one alone.
// RUN: ccl-opt %s -p 'builtin.module(builtin.module(ccl-lower-all-to-all-v))' | FileCheck %s --check-prefix=NESTED
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null
// RUN: ccl-opt %S/Inputs/nested-not-admitted.mlir --verify-diagnostics -p 'builtin.module(ccl-lower-all-to-all-v)' -o /dev/null

// CHECK-LABEL: func.func @top(
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4(
// CHECK-LABEL: module @inner {
// CHECK-LABEL:   func.func @entry(
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      call @__ccl_all_to_all_v_p4_b2(
// CHECK-LABEL:   module @deeper {
// CHECK-LABEL:     func.func @entry(
// CHECK-NEXT:        arith.constant
// CHECK-NEXT:        call @__ccl_all_to_all_v_p4_b4(
// CHECK:             func.func @__ccl_all_to_all_v_p4_b4(
// CHECK:           func.func @__ccl_all_to_all_v_p4_b2(
// CHECK:         func.func @__ccl_all_to_all_v_p4_b4(
// NESTED-LABEL: func.func @top(
// NESTED:         ccl.all_to_all_v
// NESTED-LABEL:   func.func @entry(
// NESTED-NEXT:      arith.constant
// NESTED-NEXT:      call @__ccl_all_to_all_v_p4_b2(

func.func @top(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

module @inner {
  func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
    %b = arith.constant 2 : i32
    ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 2 : i64}
        : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
    return
  }

  module @deeper {
    func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
      %b = arith.constant 4 : i32
      ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
          : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
      return
    }
  }
}
