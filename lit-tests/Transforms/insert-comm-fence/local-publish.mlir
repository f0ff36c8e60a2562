// Phase A rule 1: a local publish (ccl.tile_store, ccl.tensor_write, ccl.get)
// whose dst is window-bound is followed by the region invalidate of that very
// SSA value, then a fence. Already-present markers are kept, not doubled.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @tile_store_window
// CHECK-SAME: (%[[T:.*]]: vector<16xf32>, %[[W:.*]]: memref<64xf32, #ccl.window>, %[[I:.*]]: index)
// CHECK-NEXT: ccl.tile_store %[[T]], %[[W]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[W]] : memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @tile_store_window(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}

// CHECK-LABEL: func.func @tensor_write_window
// CHECK-SAME: (%[[W:.*]]: memref<8xi32, #ccl.window>, %[[V:.*]]: i32, %[[I:.*]]: index)
// CHECK-NEXT: ccl.tensor_write %[[W]][%[[I]]], %[[V]] :
// CHECK-NEXT: ccl.cacheinvalid %[[W]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @tensor_write_window(%win: memref<8xi32, #ccl.window>, %v: i32, %i: index)
    attributes {ccl.kind = "incore"} {
  ccl.tensor_write %win[%i], %v : memref<8xi32, #ccl.window>, i32
  return
}

// ccl.get writes its dst (operand 0): the invalidate names dst, not src.
// CHECK-LABEL: func.func @get_window
// CHECK-SAME: (%[[DST:.*]]: memref<64xf32, #ccl.window>, %[[SRC:.*]]: memref<64xf32, #ccl.window>, %[[P:.*]]: i32)
// CHECK-NEXT: ccl.get %[[DST]], %[[SRC]], %[[P]] :
// CHECK-NEXT: ccl.cacheinvalid %[[DST]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @get_window(%dst: memref<64xf32, #ccl.window>, %src: memref<64xf32, #ccl.window>, %peer: i32)
    attributes {ccl.kind = "incore"} {
  ccl.get %dst, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, i32
  return
}

// Two stores, each gets its own pair right after it, naming its own dst.
// CHECK-LABEL: func.func @two_windows
// CHECK-SAME: (%[[T:.*]]: vector<16xf32>, %[[A:.*]]: memref<64xf32, #ccl.window>, %[[B:.*]]: memref<64xf32, #ccl.window>, %[[I:.*]]: index)
// CHECK-NEXT: ccl.tile_store %[[T]], %[[A]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.tile_store %[[T]], %[[B]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[B]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @two_windows(%t: vector<16xf32>, %a: memref<64xf32, #ccl.window>, %b: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.tile_store %t, %b[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}

// Skip: the two ops right after the write already are exactly the markers.
// CHECK-LABEL: func.func @already_marked
// CHECK-SAME: (%[[T:.*]]: vector<16xf32>, %[[W:.*]]: memref<64xf32, #ccl.window>, %[[I:.*]]: index)
// CHECK-NEXT: ccl.tile_store %[[T]], %[[W]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[W]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @already_marked(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %win : memref<64xf32, #ccl.window>
  ccl.fence
  return
}

// Not a skip: the invalidate names another window (an alias is not "the same
// SSA value"), a whole-GM invalidate is not the region form, and a fence
// alone is only half of the pair. Each write gets its full pair.
// CHECK-LABEL: func.func @near_misses
// CHECK-SAME: (%[[T:.*]]: vector<16xf32>, %[[A:.*]]: memref<64xf32, #ccl.window>, %[[B:.*]]: memref<64xf32, #ccl.window>, %[[I:.*]]: index)
// CHECK-NEXT: ccl.tile_store %[[T]], %[[A]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.cacheinvalid %[[B]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.tile_store %[[T]], %[[A]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.tile_store %[[T]], %[[A]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.tile_store %[[T]], %[[A]][%[[I]]] :
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: return
func.func @near_misses(%t: vector<16xf32>, %a: memref<64xf32, #ccl.window>, %b: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %b : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid
  ccl.fence
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.fence
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %a : memref<64xf32, #ccl.window>
  return
}

// The kernel kinds aic and aiv are InCore too.
// CHECK-LABEL: func.func @aic_kernel
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-LABEL: func.func @aiv_kernel
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
func.func @aic_kernel(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}
func.func @aiv_kernel(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}
