// T1: what a publish's markers do not move past. Each of these may let
// another block see the data, so the markers stay before it: a call or a
// submit (the callee may notify), a collective, an op the pass does not
// know, and any op with regions that holds one of them.
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s

// The store's markers pass the wait and meet its whole-GM invalidate,
// which covers the window's: both stop before the call.
// CHECK-LABEL: func.func @before_call
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: call @helper
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func private @helper()
func.func @before_call(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                       %i: index, %x: i32) attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  func.call @helper() : () -> ()
  ccl.cacheinvalid
  ccl.fence
  return
}

// -----

// CHECK-LABEL: func.func @before_submit
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.submit
func.func private @work()
func.func @before_submit(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.submit @work() : () -> ()
  ccl.cacheinvalid
  ccl.fence
  return
}

// -----

// CHECK-LABEL: func.func @before_collective
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.barrier
func.func @before_collective(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.barrier
  return
}

// -----

// An op the pass knows nothing about may synchronise.
// CHECK-LABEL: func.func @before_unknown_op
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: memref.store
func.func @before_unknown_op(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %m: memref<4xi32>, %i: index,
                             %x: i32) attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  memref.store %x, %m[%i] : memref<4xi32>
  return
}

// -----

// An scf.if that may notify, and a loop that does.
// CHECK-LABEL: func.func @before_region_ops
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.if
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.for
func.func @before_region_ops(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                             %c: i1, %i: index, %n: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  scf.if %c {
    ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  }
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  scf.for %j = %c0 to %n step %c1 {
    ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  }
  return
}

// -----

// In a region of several blocks, markers stay in their block: they stop
// before its terminator.
// CHECK-LABEL: func.func @cfg
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: cf.br ^bb1
func.func @cfg(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %plain: memref<64xf32>, %i: index)
    attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  %v = ccl.read %plain[%i] : memref<64xf32> -> f32
  cf.br ^bb1
^bb1:
  return
}
