// Loops run zero or more times, and their back edges are paths: a write at
// the end of iteration k reaches a notify at the start of iteration k+1.
// Sequential, parallel and while loops alike (inside a kernel, a parallel
// loop's iterations may run one after another).
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

func.func @back_edge(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                     %lb: index, %ub: index, %st: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.for %k = %lb to %ub step %st {
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    // expected-error @+1 {{local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence}}
    ccl.tile_store %t, %w[%k] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  return
}

// -----

// Back edge through two iterations: fence in iteration k, invalidate in
// iteration k, so the write of iteration k is invalidated but only fenced
// in iteration k+1 - after the notify of iteration k+1.
func.func @two_iterations(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                          %lb: index, %ub: index, %st: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.for %k = %lb to %ub step %st {
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    ccl.fence
    // expected-error @+1 {{local publish reaches a ccl.notify without ccl.fence after the ccl.cacheinvalid of its window}}
    ccl.tile_store %t, %w[%k] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  }
  ccl.fence
  return
}

// -----

// Wait at the end of an iteration, GM read at the start of the next.
func.func @wait_then_read_in_loop(%s: memref<8xi32, #ccl.window>, %w: memref<64xf32, #ccl.window>,
                                  %lb: index, %ub: index, %st: index, %one: i32) attributes {ccl.kind = "incore"} {
  scf.for %k = %lb to %ub step %st {
    // expected-note @+1 {{the GM read (ccl.tile_load) it reaches}}
    %x = ccl.tile_load %w[%k] : memref<64xf32, #ccl.window> -> vector<16xf32>
    // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
    ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  }
  return
}

// -----

// Nested loops: the write at the end of the outer body reaches the notify
// at the start of the inner body of the next outer iteration.
func.func @nested(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                  %lb: index, %ub: index, %st: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.for %k = %lb to %ub step %st {
    scf.for %j = %lb to %ub step %st {
      // expected-note @+1 {{the ccl.notify it reaches}}
      ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    }
    // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    %c = arith.cmpi eq, %one, %peer : i32
    scf.if %c {
      ccl.fence
    }
  }
  ccl.fence
  return
}

// -----

func.func @parallel_and_forall(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                               %lb: index, %ub: index, %st: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.parallel (%k) = (%lb) to (%ub) step (%st) {
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    scf.reduce
  }
  ccl.fence
  scf.forall (%k) in (%ub) {
    // expected-note @+1 {{the GM read (ccl.remote_load) it reaches}}
    %x = ccl.remote_load %w, %peer : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
    // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
    ccl.wait eq %s, %one : memref<8xi32, #ccl.window>, i32
  }
  return
}

// -----

// scf.while: after-region to before-region is the back edge; the loop
// exits from the before region.
func.func @while(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                 %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.while : () -> () {
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    scf.condition(%c)
  } do {
    // expected-error @+2 {{remote publish reaches a ccl.notify without ccl.fence}}
    // expected-error @+1 {{remote publish reaches the function's return without ccl.fence}}
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    scf.yield
  }
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// Passes: every iteration cleans up after itself, and loops that never
// notify are fine however they nest.
func.func @ok(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
              %lb: index, %ub: index, %st: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.for %k = %lb to %ub step %st {
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    ccl.tile_store %t, %w[%k] : vector<16xf32>, memref<64xf32, #ccl.window>
    scf.for %j = %lb to %ub step %st {
      ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
    }
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.cacheinvalid
    ccl.fence
    %x = ccl.read %w[%k] : memref<64xf32, #ccl.window> -> f32
  }
  scf.while : () -> () {
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    ccl.fence
    scf.condition(%c)
  } do {
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    scf.yield
  }
  return
}
