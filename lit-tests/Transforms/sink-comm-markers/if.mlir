// T4: the markers both branches of an scf.if end with leave it as one
// group after it (and go on moving). A marker in one branch only stays in
// that branch: after the scf.if it would also run on the other path. A
// fence stays with the invalidates of its branch.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @both_branches
// CHECK: scf.if
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: } else {
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: }
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @both_branches(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %plain: memref<64xf32>,
                         %sig: memref<8xi32, #ccl.window>, %c: i1, %i: index, %j: index, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  scf.if %c {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  } else {
    ccl.tile_store %t, %w[%j] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  %v = ccl.read %plain[%i] : memref<64xf32> -> f32
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// CHECK-LABEL: func.func @one_branch
// CHECK: scf.if
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: }
// CHECK-NEXT: ccl.notify
func.func @one_branch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                      %c: i1, %i: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  scf.if %c {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// Only one branch has a fence: nothing leaves (an invalidate after the
// scf.if would follow the then-branch's fence).
// CHECK-LABEL: func.func @fence_in_one_branch
// CHECK: scf.if
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: } else {
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: }
func.func @fence_in_one_branch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %c: i1, %i: index)
    attributes {ccl.kind = "aiv"} {
  scf.if %c {
    ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
    ccl.fence
  } else {
    ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  }
  return
}
