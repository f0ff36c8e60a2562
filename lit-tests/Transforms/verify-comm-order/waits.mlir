// Every path from a ccl.wait to a GM read (ccl.read, ccl.tile_load,
// ccl.remote_load) passes a whole-GM ccl.cacheinvalid(); the region form
// does not count.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

func.func @wait_then_read(%s: memref<8xi32, #ccl.window>, %w: memref<64xf32, #ccl.window>, %i: index, %one: i32)
    attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  // expected-note @+1 {{the GM read (ccl.read) it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  ccl.cacheinvalid
  %z = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

// -----

// One error per (wait, read) pair: the first wait reaches both reads. MLIR's
// verifier hands every matching diagnostic to the first expectation on a
// line, so each line carries one expectation and the notes tell pairs apart.
func.func @two_reads(%s: memref<8xi32, #ccl.window>, %w: memref<64xf32, #ccl.window>, %i: index, %one: i32)
    attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  // expected-note @+1 {{the GM read (ccl.tile_load) it reaches}}
  %y = ccl.tile_load %w[%i] : memref<64xf32, #ccl.window> -> vector<16xf32>
  // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  // expected-note @+1 {{the GM read (ccl.remote_load) it reaches}}
  %z = ccl.remote_load %w, %one : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
  return
}

// -----

// The invalidate on one branch only.
func.func @one_branch(%s: memref<8xi32, #ccl.window>, %w: memref<64xf32, #ccl.window>, %i: index, %c: i1, %one: i32)
    attributes {ccl.kind = "incore"} {
  // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  scf.if %c {
    ccl.cacheinvalid
  }
  // expected-note @+1 {{the GM read (ccl.read) it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

// -----

// Passes: a run of waits sharing one invalidate after the last; a pure
// wait loop with the invalidate after it (what ccl-insert-comm-fence
// places); reads before any wait; waits never followed by a read.
func.func @ok(%s: memref<8xi32, #ccl.window>, %w: memref<64xf32, #ccl.window>, %i: index, %n: index, %one: i32)
    attributes {ccl.kind = "incore"} {
  %a = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  %b = arith.addi %one, %one : i32
  ccl.wait ge %s, %b : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  scf.for %k = %i to %n step %i {
    ccl.wait eq %s, %one : memref<8xi32, #ccl.window>, i32
  }
  ccl.cacheinvalid
  %y = ccl.remote_load %w, %one : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  return
}
