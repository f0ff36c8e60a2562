// A module nested in the input is a program of its own: with
// placement=minimal, ccl-pipeline runs on it with the same options, so its
// kernels' markers are sunk too, and the checker accepts them.
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' | FileCheck %s

// CHECK: module @inner
// CHECK-LABEL: func.func @k
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: }
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: return
module {
  module @inner {
    func.func @k(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %n: index) attributes {ccl.kind = "aiv"} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
      }
      return
    }
  }
}
