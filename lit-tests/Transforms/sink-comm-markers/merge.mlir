// T2: markers that meet at one point become one canonical group: one
// region invalidate per SSA value (none when a whole-GM invalidate is
// there: it writes back and drops every line), then at most one fence.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// The two write-backs of %a[%i] merge into one. The remote store into
// %b (the peer may be this rank) may overlap %b's write-back: the
// invalidates and a fence stay before it (a fence between two writes of one
// location in flight).
// CHECK-LABEL: func.func @run_of_publishes
// CHECK-NEXT: ccl.tile_store %{{.*}}, %[[A:arg[0-9]+]]
// CHECK-NEXT: ccl.tile_store %{{.*}}, %[[B:arg[0-9]+]]
// CHECK-NEXT: ccl.tile_store %{{.*}}, %[[A]]
// CHECK-NEXT: ccl.cacheinvalid %[[A]] :
// CHECK-NEXT: ccl.cacheinvalid %[[B]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: return
func.func @run_of_publishes(%t: vector<16xf32>, %a: memref<64xf32, #ccl.window>, %b: memref<64xf32, #ccl.window>,
                            %sig: memref<8xi32, #ccl.window>, %i: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %a : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.tile_store %t, %b[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %b : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %a : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.remote_store %t, %b, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// A whole-GM invalidate (here after an opaque publish) covers the region
// ones that meet it.
// CHECK-LABEL: func.func @whole_covers_regions
// CHECK-NEXT: call @helper
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func private @helper()
func.func @whole_covers_regions(%t: vector<16xf32>, %a: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                                %i: index, %peer: i32) attributes {ccl.kind = "aiv"} {
  func.call @helper() : () -> ()
  ccl.cacheinvalid
  ccl.fence
  ccl.tile_store %t, %a[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %a : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}
