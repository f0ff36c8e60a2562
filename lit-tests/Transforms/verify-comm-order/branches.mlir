// Both branches of scf.if (and every case of scf.index_switch) are paths:
// a marker in only one of them leaves the other path unprotected.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

func.func @fence_in_one_branch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                               %i: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{local publish reaches a ccl.notify without ccl.fence after the ccl.cacheinvalid of its window}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  scf.if %c {
    ccl.fence
  }
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

// -----

func.func @invalidate_in_else_only(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                                   %i: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+2 {{local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence}}
  // expected-error @+1 {{local publish reaches the function's return without ccl.cacheinvalid of the written window}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  scf.if %c {
    %x = arith.addi %one, %one : i32
  } else {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  }
  ccl.fence
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// A write inside a branch, unprotected on that branch, reaches the notify after the if.
func.func @write_in_branch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                           %i: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.if %c {
    // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  } else {
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    ccl.fence
  }
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

// -----

func.func @switch_case(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                       %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  scf.index_switch %i
  case 0 {
    ccl.fence
    scf.yield
  }
  default {
  }
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

// -----

// Passes: markers on both branches; markers inside scf.execute_region.
func.func @ok(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
              %i: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  scf.if %c {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  } else {
    ccl.cacheinvalid
    ccl.fence
  }
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  scf.execute_region {
    ccl.fence
    scf.yield
  }
  ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  return
}
