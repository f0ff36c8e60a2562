// T3: the markers a loop body ends with leave the loop when nothing in it
// needs them there: nothing in the loop exposes data, and, for a whole-GM
// invalidate, nothing reads GM. A loop whose constant bounds run it at
// least once runs them once after it instead of once per iteration; out
// of nested loops they leave level by level. A loop that never runs keeps
// them (it never runs them either).
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @constant_bounds
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_load
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: }
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @constant_bounds(%src: memref<64xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                           %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = ccl.tile_load %src[%i] : memref<64xf32> -> vector<1xf32>
    ccl.tile_store %v, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// Nested loops: the inner loop's markers leave it and merge with the outer
// body's, and leave the outer loop too. Every write lands in its own
// element (the remote stores in element %i of another window, the stores
// in element 4i + j). The overlap analysis does not bound an induction
// variable by its loop's bounds: across two outer iterations it cannot
// tell 4i + j from 4i' + j', so two iterations' write-backs might overlap;
// but the invalidate leaves the loop with its fence, and after the loop
// one write-back of each line is all there is. (%v and %w are two
// buffers: the scan reads @nested as an entry.)
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK-NEXT: memref.subview
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @nested(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %v: memref<64xf32, #ccl.window>, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %cell = memref.subview %v[%i] [1] [1] : memref<64xf32, #ccl.window> to memref<1xf32, strided<[1], offset: ?>, #ccl.window>
    ccl.remote_store %t, %cell, %peer : vector<1xf32>, memref<1xf32, strided<[1], offset: ?>, #ccl.window>, i32
    ccl.fence
    scf.for %j = %c0 to %c4 step %c1 {
      %row = arith.muli %i, %c4 : index
      %at = arith.addi %row, %j : index
      ccl.tile_store %t, %w[%at] : vector<1xf32>, memref<64xf32, #ccl.window>
      ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
      ccl.fence
    }
  }
  return
}

// The same element in every iteration: the write-backs (or the remote
// writes) of two iterations would be in flight together, and may land in
// either order. A fence stays in the loop, between the write-backs of two
// iterations; the remote store's moves to the next iteration's fence (the
// remote stores of two iterations have it between them) and after the
// loop.
// CHECK-LABEL: func.func @one_element
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: }
// CHECK-NEXT: ccl.fence
func.func @one_element(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %v: memref<64xf32, #ccl.window>, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    ccl.tile_store %t, %w[%c0] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
    ccl.remote_store %t, %v, %peer : vector<1xf32>, memref<64xf32, #ccl.window>, i32
    ccl.fence
  }
  return
}

// A wait's invalidate leaves a loop that reads nothing, even one that
// notifies (it publishes nothing).
// CHECK-LABEL: func.func @handshake
// CHECK: scf.for
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: }
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.read
func.func @handshake(%w: memref<64xi32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    ccl.cacheinvalid
  }
  %v = ccl.read %w[%c0] : memref<64xi32, #ccl.window> -> i32
  return
}

// A loop that never runs.
// CHECK-LABEL: func.func @never_runs
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @never_runs(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c1 to %c0 step %c1 {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}

// scf.parallel with constant bounds, and the `before` region of an
// scf.while, which runs at least once and is where the loop exits (a wait's
// invalidate there: no write of the loop is written back by it twice).
// CHECK-LABEL: func.func @parallel_and_while
// CHECK: scf.parallel
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: scf.while
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.condition
// CHECK: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @parallel_and_while(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                              %c: i1, %one: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
    scf.reduce
  }
  scf.while : () -> () {
    ccl.wait ge %sig, %one : memref<8xi32, #ccl.window>, i32
    ccl.cacheinvalid
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}
