// Remote publishes (remote_store, put) need a ccl.fence before a notify or
// the return; opaque publishes (ccl.submit, func.call in a kernel) need
// whole-GM ccl.cacheinvalid() then ccl.fence.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

func.func @remote_without_fence(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                                %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  // A region invalidate is not a fence.
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

// -----

func.func @put_to_return(%dst: memref<64xf32>, %src: memref<64xf32, #ccl.window>, %peer: index)
    attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{remote publish reaches the function's return without ccl.fence}}
  ccl.put %dst, %src, %peer : memref<64xf32>, memref<64xf32, #ccl.window>, index
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

func.func private @helper()

func.func @opaque(%s: memref<8xi32, #ccl.window>, %w: memref<64xf32, #ccl.window>, %peer: i32, %one: i32)
    attributes {ccl.kind = "incore"} {
  // expected-error @+2 {{opaque publish reaches a ccl.notify without whole-GM ccl.cacheinvalid() followed by ccl.fence}}
  // expected-error @+1 {{opaque publish reaches the function's return without ccl.fence after the whole-GM ccl.cacheinvalid()}}
  ccl.submit @helper() : () -> ()
  // Only the whole-GM form counts for an opaque publish.
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  // expected-error @+1 {{opaque publish reaches the function's return without ccl.fence after the whole-GM ccl.cacheinvalid()}}
  func.call @helper() : () -> ()
  ccl.cacheinvalid
  // Both errors above note this return; MLIR's verifier gives both notes to
  // one expectation.
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

func.func private @helper()

// Passes: each publish with its markers, the remote one fenced after other ops.
func.func @ok(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
              %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  %x = arith.addi %one, %one : i32
  ccl.fence
  ccl.notify set %s, %peer, %x : memref<8xi32, #ccl.window>, i32, i32
  func.call @helper() : () -> ()
  ccl.cacheinvalid
  ccl.fence
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  return
}
