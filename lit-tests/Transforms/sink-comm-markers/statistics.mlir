// The pass's statistics (--mlir-pass-statistics): markers moved, merged
// away, taken out of loops and branches, fences erased, trip guards built,
// markers added where the rules are not enough (none here).
// A second run changes nothing and counts nothing.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' --mlir-pass-statistics -o %t1 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: ccl-opt %t1 -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' --mlir-pass-statistics -o %t2 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: diff %t1 %t2

// FIRST: CclSinkCommMarkers
// FIRST-NEXT: (S) 1 fences-dropped
// FIRST-NEXT: (S) 0 markers-added
// FIRST-NEXT: (S) 2 markers-hoisted
// FIRST-NEXT: (S) 1 markers-merged
// FIRST-NEXT: (S) 3 markers-moved
// FIRST-NEXT: (S) 1 trip-guards

// SECOND: CclSinkCommMarkers
// SECOND-NEXT: (S) 0 fences-dropped
// SECOND-NEXT: (S) 0 markers-added
// SECOND-NEXT: (S) 0 markers-hoisted
// SECOND-NEXT: (S) 0 markers-merged
// SECOND-NEXT: (S) 0 markers-moved
// SECOND-NEXT: (S) 0 trip-guards

func.func @k(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %v: memref<64xf32, #ccl.window>,
             %sig: memref<8xi32, #ccl.window>, %n: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // Taken out of the loop (2 hoisted) into a trip guard (1 guard, 2
  // moved); the guard's fence is erased for the one after it (1 dropped).
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  // The remote store's fence moves to the notify (1 moved), where the
  // window's fence merges into it (1 merged). The remote store writes
  // element 0 of %v, the store element 1: never the same element.
  %cell = memref.subview %v[0] [1] [1] : memref<64xf32, #ccl.window> to memref<1xf32, strided<[1]>, #ccl.window>
  ccl.remote_store %t, %cell, %peer : vector<1xf32>, memref<1xf32, strided<[1]>, #ccl.window>, i32
  ccl.fence
  ccl.tile_store %t, %v[%c1] : vector<1xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %v : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}
