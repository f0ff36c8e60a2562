// T3 when the loop may run zero times: the markers leave the loop into a
// trip guard right after it, an scf.if on `lb < ub` (unsigned for an
// unsigned loop), so that a launch where the loop does not run executes no
// more markers than before (none). The checker reads the loop and its
// guard as one construct. What the enclosing block carries past the loop
// anyway is left out of the guard. Each iteration stores its own element,
// so the write-backs of two iterations may be in flight together (a loop
// that stores one element in every iteration keeps its fence inside:
// drop-fence.mlir).
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null
// RUN: ccl-opt %s -p 'builtin.module(func.func(ccl-sink-comm-markers))' | FileCheck %s --check-prefix=WALK

// CHECK-LABEL: func.func @guarded
// CHECK-SAME: %[[UB:arg[0-9]+]]: index
// CHECK: %[[LB:.*]] = arith.constant 0 : index
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]]
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: }
// CHECK-NEXT: %[[RAN:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[RAN]] {
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: ccl.notify
func.func @guarded(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                   %n: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// CHECK-LABEL: func.func @unsigned_loop
// CHECK: scf.for unsigned
// CHECK: arith.cmpi ult,
// CHECK-NEXT: scf.if
func.func @unsigned_loop(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %lb: i32, %ub: i32)
    attributes {ccl.kind = "aiv"} {
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %lb to %ub step %c1 : i32 {
    %k = arith.index_castui %i : i32 to index
    ccl.tile_store %t, %w[%k] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}

// A remote publish before the loop (into another window) carries its fence
// past it: the guard keeps only the invalidate.
// CHECK-LABEL: func.func @fence_carried_past
// CHECK: ccl.remote_store
// CHECK-NEXT: scf.for
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: }
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @fence_carried_past(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %v: memref<64xf32, #ccl.window>,
                              %sig: memref<8xi32, #ccl.window>, %n: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ccl.remote_store %t, %v, %peer : vector<1xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// Into the window the loop stores: the peer may be this rank, and the
// remote write and the write-backs must not be in flight together. Its
// fence stays before the loop.
// CHECK-LABEL: func.func @fence_stays_before_overlap
// CHECK: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.for
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: ccl.notify
func.func @fence_stays_before_overlap(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                                      %n: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ccl.remote_store %t, %w, %peer : vector<1xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// Everything the loop ends with is carried past it already (a prologue's
// whole-GM invalidate and fence): no guard, from the walk alone. In
// placement=minimal (the scan's analysis present) the pass also re-runs
// itself on the rules' markers over its own output until that gives the
// output back; no launch of this kernel follows a collective, so no
// prologue comes back at its start, and the guard does.
// WALK-LABEL: func.func @all_covered
// WALK: scf.for
// WALK-NEXT: ccl.tile_store
// WALK-NEXT: }
// WALK-NEXT: ccl.cacheinvalid{{$}}
// WALK-NEXT: ccl.fence
// WALK-NEXT: return
// CHECK-LABEL: func.func @all_covered
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: }
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: }
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @all_covered(%t: vector<1xf32>, %w: memref<64xf32, #ccl.window>, %n: index)
    attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  ccl.fence
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    ccl.tile_store %t, %w[%i] : vector<1xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  return
}
