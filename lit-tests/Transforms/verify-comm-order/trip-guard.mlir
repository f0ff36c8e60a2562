// An scf.for followed by its trip guard (an scf.if on `arith.cmpi slt` of
// the loop's own lower and upper bound, `ult` for an unsigned loop) runs
// the guard's then-branch exactly when the loop ran: the checker reads the
// two as one scf.if whose then-branch starts with the loop, so a store in
// the loop is covered by markers in the guard (ccl-sink-comm-markers puts
// them there). Anything else after a loop is an ordinary scf.if: the path
// "the loop ran, then the else-branch" exists and is reported.
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-verify-comm-order)' --verify-diagnostics -o /dev/null

func.func @guarded(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %n: index) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  %ran = arith.cmpi slt, %c0, %n : index
  scf.if %ran {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}

// -----

func.func @unsigned_guard(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %lb: i32, %ub: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %lb to %ub step %c1 : i32 {
    ccl.tile_store %t, %w[%c0] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  %ran = arith.cmpi ult, %lb, %ub : i32
  scf.if %ran {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}

// -----

// `sle` is true when the loop does not run.
func.func @not_a_guard(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %n: index) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{local publish reaches the function's return without ccl.cacheinvalid of the written window followed by ccl.fence}}
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  %ran = arith.cmpi sle, %c0, %n : index
  scf.if %ran {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// A signed comparison does not guard an unsigned loop.
func.func @signed_guard_of_unsigned_loop(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %lb: i32, %ub: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %lb to %ub step %c1 : i32 {
    // expected-error @+1 {{local publish reaches the function's return}}
    ccl.tile_store %t, %w[%c0] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  %ran = arith.cmpi slt, %lb, %ub : i32
  scf.if %ran {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// The bounds of another loop.
func.func @other_bounds(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %n: index, %m: index)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{local publish reaches the function's return}}
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  %ran = arith.cmpi slt, %c0, %m : index
  scf.if %ran {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// Something that matters between the loop and the guard: it is no guard,
// and the store reaches the notify, and the return past the else-branch.
func.func @not_adjacent(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                        %n: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+2 {{local publish reaches a ccl.notify}}
    // expected-error @+1 {{local publish reaches the function's return}}
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  }
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  %ran = arith.cmpi slt, %c0, %n : index
  scf.if %ran {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  // expected-note @+1 {{the return it reaches}}
  return
}
