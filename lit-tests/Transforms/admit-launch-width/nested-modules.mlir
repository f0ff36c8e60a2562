// Each builtin.module nested in the module is a program of its own, handled
// as if the pass ran on it alone, at any depth. Every rule looks at one
// function at a time, so run on a module the pass admits the widths of the
// nested modules' functions too, and reports their errors where they are.
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s
// RUN: ccl-opt %s --pass-pipeline='builtin.module(builtin.module(ccl-admit-launch-width))' | FileCheck %s --check-prefix=NESTED
// RUN: ccl-opt %s --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=4})'
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null
// Rule 5 in a nested module's kernel (an error the pass on the top module
// reports where it is, as it would on the nested module alone):
// RUN: ccl-opt %S/Inputs/nested-incore.mlir --verify-diagnostics --pass-pipeline='builtin.module(ccl-admit-launch-width)'
// RUN: ccl-opt %S/Inputs/nested-incore.mlir --verify-diagnostics --pass-pipeline='builtin.module(builtin.module(ccl-admit-launch-width))' 

// CHECK-LABEL: func.func @top(
// CHECK:         ccl.all_to_all_v {{.*}} {launch_width = 4 : i64}
// CHECK-LABEL: module @inner {
// CHECK-LABEL:   func.func @entry(
// CHECK:           ccl.all_to_all_v {{.*}} {launch_width = 8 : i64}
// CHECK-LABEL:   module @deeper {
// CHECK-LABEL:     func.func @entry(
// CHECK:             ccl.all_to_all_v {{.*}} {launch_width = 16 : i64}
// A function pass nested on the modules reaches only the functions MLIR
// schedules it on: the top-level one is left alone there.
// NESTED-LABEL: func.func @top(
// NESTED:         ccl.all_to_all_v {{.*}} : {{.*}}, i32{{$}}
// NESTED-LABEL:   func.func @entry(
// NESTED:           ccl.all_to_all_v {{.*}} {launch_width = 8 : i64}

func.func @top(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 4 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %p : i32, i32
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  return
}

module @inner {
  func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
    %p = arith.constant 4 : i32
    %l = arith.constant 8 : i32
    // expected-error @+1 {{admitted launch width 8 exceeds max-blocks=4}}
    %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
    return
  }

  module @deeper {
    func.func @entry(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
      %p = arith.constant 4 : i32
      %l = arith.constant 16 : i32
      // expected-error @+1 {{admitted launch width 16 exceeds max-blocks=4}}
      %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
      ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
      return
    }
  }
}
