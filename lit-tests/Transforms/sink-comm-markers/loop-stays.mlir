// T3 does not apply, and the markers stay at the end of the loop body,
// when an iteration needs them before a later one runs: the body notifies
// (the next iteration's notify exposes this one's data), it reads GM after
// a wait's invalidate would have left, the invalidated value is defined in
// the body, or the loop's trip count is not known and no guard can say it
// ran (scf.parallel with dynamic bounds, scf.forall, the `after` region of
// scf.while).
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @body_notifies
// CHECK: scf.for
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
func.func @body_notifies(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                         %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}

// CHECK-LABEL: func.func @body_reads
// CHECK: scf.for
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: }
func.func @body_reads(%w: memref<64xi32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = ccl.read %w[%i] : memref<64xi32, #ccl.window> -> i32
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    ccl.cacheinvalid
  }
  return
}

// CHECK-LABEL: func.func @view_of_the_iteration
// CHECK: scf.for
// CHECK-NEXT: memref.subview
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %subview
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
func.func @view_of_the_iteration(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.subview %w[%i] [16] [1] : memref<64xf32, #ccl.window> to memref<16xf32, strided<[1], offset: ?>, #ccl.window>
    ccl.tile_store %t, %v[%c0] : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>, #ccl.window>
    ccl.cacheinvalid %v : memref<16xf32, strided<[1], offset: ?>, #ccl.window>
    ccl.fence
  }
  return
}

// CHECK-LABEL: func.func @unknown_trip_counts
// CHECK: scf.parallel
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.reduce
// CHECK: scf.forall
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK: scf.while
// CHECK: } do {
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.yield
func.func @unknown_trip_counts(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %n: index, %c: i1)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
    scf.reduce
  }
  scf.forall (%i) in (4) {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  scf.while : () -> () {
    scf.condition(%c)
  } do {
    ccl.tile_store %t, %w[%c0] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
    scf.yield
  }
  return
}
