// Local publishes (tile_store, tensor_write, get into a window-bound dst):
// every path to a ccl.notify or the return passes ccl.cacheinvalid of that
// very SSA value (or whole-GM), then ccl.fence. One error per (write, sink)
// pair, at the write, with a note at the sink.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

// Missing both markers: the write reaches the notify and the return.
func.func @missing_both(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                        %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+2 {{local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence}}
  // expected-error @+1 {{local publish reaches the function's return without ccl.cacheinvalid of the written window}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// Missing fence: invalidated, never fenced.
func.func @missing_fence(%w: memref<8xi32, #ccl.window>, %v: i32, %s: memref<8xi32, #ccl.window>,
                         %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{local publish reaches a ccl.notify without ccl.fence after the ccl.cacheinvalid of its window}}
  ccl.tensor_write %w[%i], %v : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid %w : memref<8xi32, #ccl.window>
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify atomic_add %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

// -----

// Missing invalidate: only a fence.
func.func @missing_invalidate(%w: memref<64xf32, #ccl.window>, %src: memref<64xf32>, %s: memref<8xi32, #ccl.window>,
                              %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence}}
  ccl.get %w, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  ccl.fence
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  return
}

// -----

// The invalidate of another window does not count, even of the same type:
// windows are SSA values.
func.func @other_window(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %other: memref<64xf32, #ccl.window>,
                        %s: memref<8xi32, #ccl.window>, %i: index, %peer: i32, %one: i32)
    attributes {ccl.kind = "aiv"} {
  // expected-error @+1 {{local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %other : memref<64xf32, #ccl.window>
  ccl.fence
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  return
}

// -----

// Fence before invalidate: the order matters.
func.func @fence_before_invalidate(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                                   %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "aic"} {
  // expected-error @+1 {{local publish reaches a ccl.notify without ccl.fence after the ccl.cacheinvalid of its window}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.fence
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

// -----

// Passes: the exact markers, markers separated by unrelated ops, and a
// whole-GM invalidate, which covers every window. Plain memrefs publish
// nothing. Non-InCore functions are not checked by these rules.
func.func @ok(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %plain: memref<64xf32>,
              %s: memref<8xi32, #ccl.window>, %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  %x = arith.addi %one, %one : i32
  ccl.cacheinvalid
  ccl.tile_store %t, %plain[%i] : vector<16xf32>, memref<64xf32>
  ccl.fence
  ccl.notify set %s, %peer, %x : memref<8xi32, #ccl.window>, i32, i32
  ccl.tile_store %t, %plain[%i] : vector<16xf32>, memref<64xf32>
  return
}

func.func @host(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "spmd"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  return
}
