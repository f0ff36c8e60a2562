// T5: a fence nothing needs is erased. After a fence, nothing is in flight
// until an invalidate, a remote write or a call: a fence before any of
// them is useless. And a fence at the end of an scf.if branch (or in a
// trip guard) is useless when a fence follows the scf.if before anything
// is exposed: that one lands the same writes, on every path, in time.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @nothing_in_flight
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: return
func.func @nothing_in_flight(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                             %peer: i32) attributes {ccl.kind = "aiv"} {
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// The branch's put and the remote store write different windows: the
// fence after both lands the put too.
// CHECK-LABEL: func.func @branch_fence_then_fence
// CHECK: scf.if
// CHECK-NEXT: ccl.put
// CHECK-NEXT: }
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @branch_fence_then_fence(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %v: memref<64xf32, #ccl.window>,
                                   %src: memref<64xf32>, %sig: memref<8xi32, #ccl.window>, %c: i1, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  scf.if %c {
    ccl.put %w, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    ccl.fence
  }
  ccl.remote_store %t, %v, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// The same window: the put and the remote store must not be in flight
// together (they may land in either order), so the branch's fence stays.
// CHECK-LABEL: func.func @branch_fence_then_overlapping_write
// CHECK: scf.if
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @branch_fence_then_overlapping_write(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %src: memref<64xf32>,
                                               %sig: memref<8xi32, #ccl.window>, %c: i1, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  scf.if %c {
    ccl.put %w, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    ccl.fence
  }
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// An exposure between them: the branch's fence is needed.
// CHECK-LABEL: func.func @branch_fence_then_notify
// CHECK: scf.if
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: ccl.notify
func.func @branch_fence_then_notify(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %src: memref<64xf32>,
                                    %sig: memref<8xi32, #ccl.window>, %c: i1, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  scf.if %c {
    ccl.put %w, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    ccl.fence
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// A guard's fence, and a fence after it: the rows the loop stores (16
// apart, 16 wide) differ from one iteration to the next, and the remote
// store writes another window.
// CHECK-LABEL: func.func @guard_fence_then_fence
// CHECK: scf.if
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: }
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @guard_fence_then_fence(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %v: memref<64xf32, #ccl.window>,
                                  %sig: memref<8xi32, #ccl.window>, %n: index, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c16 {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  ccl.remote_store %t, %v, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// Rows one element apart, 16 wide: iteration k + 1's row overlaps row k,
// and the two write-backs must not be in flight together. The fence stays
// in the loop.
// CHECK-LABEL: func.func @overlapping_rows
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
func.func @overlapping_rows(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %n: index)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}
