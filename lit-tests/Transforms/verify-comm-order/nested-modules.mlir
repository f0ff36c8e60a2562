// Each builtin.module nested in the module is a program of its own, checked
// as if the pass ran on it alone, at any depth: its unfenced publishes and
// unprotected launches are errors too. Calls resolve in their own module, so
// a collective in one program marks nothing in another (@consume is a name
// in both, and only the inner one is launched after a publish).
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null
// max-errors counts over all the programs of a run.
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-verify-comm-order{max-errors=2})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT-COUNT-2: error: {{.*}}publish
// LIMIT-NOT: error: {{.*}}publish
// LIMIT: error: 1 more communication-order violations not shown (max-errors=2)

func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

module @inner {
  func.func @publish(%w: memref<4xi32, #ccl.window>, %s: memref<1xi32, #ccl.window>) attributes {ccl.kind = "incore"} {
    %c0 = arith.constant 0 : index
    %v = arith.constant 1 : i32
    %peer = arith.constant 0 : i32
    %one = arith.constant 1 : i64
    // expected-error @+1 {{local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence}}
    ccl.tensor_write %w[%c0], %v : memref<4xi32, #ccl.window>, i32
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify atomic_add %s, %peer, %one : memref<1xi32, #ccl.window>, i32, i64
    ccl.cacheinvalid %w : memref<4xi32, #ccl.window>
    ccl.fence
    return
  }

  func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
    // expected-note @+1 {{the first GM read of @consume it reaches}}
    %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
    return
  }

  func.func @host(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
    // expected-note @+1 {{the publish it runs after}}
    ccl.barrier
    // expected-error @+1 {{InCore function @consume is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid()}}
    func.call @consume(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
    return
  }

  module @deeper {
    func.func @remote(%w: memref<64xf32, #ccl.window>, %peer: i32, %t: vector<16xf32>) attributes {ccl.kind = "aiv"} {
      // expected-error @+1 {{remote publish reaches the function's return without ccl.fence}}
      ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
      // expected-note @+1 {{the return it reaches}}
      return
    }
  }
}
