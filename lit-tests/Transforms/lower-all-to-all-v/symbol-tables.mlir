// A kernel goes into the symbol table its call looks the callee up in (a
// nested module gets its own; before the fix every kernel went to the top
// module, and a call from a nested one failed the verifier). Its name never
// takes a symbol already there. That each call finds its kernel is what the
// verifier after the pass checks (func.call resolves in its own table).
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{lower-collectives=true})' -o /dev/null

// CHECK-LABEL: func.func @outer(
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b4_1(
// CHECK-LABEL: func.func private @__ccl_all_to_all_v_p4_b4()
// CHECK-LABEL: module @inner {
// CHECK-LABEL:   func.func @entry(
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      call @__ccl_all_to_all_v_p4_b4(
// CHECK:         func.func @__ccl_all_to_all_v_p4_b4({{.*}}ccl.builtin_template_dir = "ccl-lower-all-to-all-v"
// CHECK:       func.func @__ccl_all_to_all_v_p4_b4_1({{.*}}ccl.builtin_template_dir = "ccl-lower-all-to-all-v"

module {
  func.func @outer(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
    %b = arith.constant 4 : i32
    ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
        : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
    return
  }
  // Not a kernel of this pass: its name is taken.
  func.func private @__ccl_all_to_all_v_p4_b4()
  module @inner {
    func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
      %b = arith.constant 4 : i32
      ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
          : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
      return
    }
  }
}
