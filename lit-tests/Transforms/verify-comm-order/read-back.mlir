// Reading back one's own remote write: where a line of what a remote_store
// or put writes may be in the block's cache when it is issued, every path
// from it to a GM read that may overlap what it wrote passes an invalidate
// covering it (docs/passes/verify-comm-order.md, "Beyond the rules"). Lines
// come from GM reads, stores and calls since the last invalidate covering
// them, and, before the first whole-GM invalidate, from earlier launches.
// No entry: nothing to run for the synchronisation check.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

// The line read first still holds the old value once the write lands.
func.func @read_write_read(%w: memref<4xi32, #ccl.window>, %v: i32, %peer: i32) attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  %old = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  // expected-error @+1 {{this block reads back what this ccl.remote_store writes, with no ccl.cacheinvalid covering it between them}}
  ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
  ccl.fence
  // expected-note @+1 {{the ccl.remote_load that may read it back}}
  %new = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  return
}

// -----

// Nothing of %w is cached when the write is issued (the whole-GM invalidate
// dropped every line): the read while it is in flight returns it, the read
// after it landed fetches it.
func.func @nothing_cached(%w: memref<4xi32, #ccl.window>, %v: i32, %peer: i32) attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
  %during = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  ccl.fence
  %after = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  return
}

// -----

// Before the first whole-GM invalidate an earlier launch on the block slot
// may have left a line of anything.
func.func @line_from_an_earlier_launch(%w: memref<4xi32, #ccl.window>, %v: i32, %peer: i32) attributes {ccl.kind = "aiv"} {
  // expected-error @+1 {{this block reads back what this ccl.remote_store writes}}
  ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
  ccl.fence
  // expected-note @+1 {{the ccl.remote_load that may read it back}}
  %after = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  return
}

// -----

// The read of one iteration caches the line the next iteration's write
// makes stale.
func.func @the_last_iterations_read(%w: memref<4xi32, #ccl.window>, %v: i32, %peer: i32, %n: index) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ccl.cacheinvalid
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{this block reads back what this ccl.remote_store writes}}
    ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
    ccl.fence
    // expected-note @+1 {{the ccl.remote_load that may read it back}}
    %after = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  }
  return
}

// -----

// A region invalidate of the view drops the line of every rank's copy.
func.func @covered(%w: memref<4xi32, #ccl.window>, %v: i32, %peer: i32) attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  %old = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
  ccl.fence
  ccl.cacheinvalid %w : memref<4xi32, #ccl.window>
  %new = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  return
}

// -----

// An invalidate of another buffer does not cover it.
func.func @another_buffer(%w: memref<4xi32, #ccl.window>, %x: memref<4xi32, #ccl.window>, %v: i32, %peer: i32) attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  %old = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  // expected-error @+1 {{this block reads back what this ccl.remote_store writes}}
  ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
  ccl.fence
  ccl.cacheinvalid %x : memref<4xi32, #ccl.window>
  // expected-note @+1 {{the ccl.remote_load that may read it back}}
  %new = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  return
}

// -----

// The line cached is of another buffer, and the read of another element.
func.func @elsewhere(%w: memref<4xi32, #ccl.window>, %x: memref<4xi32, #ccl.window>, %v: i32, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c2 = arith.constant 2 : index
  ccl.cacheinvalid
  %other = ccl.remote_load %x, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  ccl.remote_store %v, %w, %peer : i32, memref<4xi32, #ccl.window>, i32
  ccl.fence
  %new = ccl.remote_load %w, %peer : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  %third = ccl.read %w[%c2] : memref<4xi32, #ccl.window> -> i32
  return
}
