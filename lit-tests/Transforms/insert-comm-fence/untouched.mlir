// Phase A rule 6: notifies, writes into plain (non-window) memrefs,
// remote_load, tile_load and read get nothing; and functions that are not
// InCore (orchestration-like, group, spmd, opaque, no kind) are not touched
// by Phase A whatever they contain.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @kernel_no_markers
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.get
// CHECK-NEXT: ccl.remote_load
// CHECK-NEXT: ccl.tile_load
// CHECK-NEXT: ccl.read
// CHECK-NEXT: memref.store
// CHECK-NEXT: return
func.func @kernel_no_markers(%t: vector<16xf32>, %plain: memref<64xf32>, %win: memref<64xf32, #ccl.window>,
                             %sig: memref<8xi32, #ccl.window>, %peer: i32, %v: f32, %i: index) -> i32
    attributes {ccl.kind = "incore"} {
  ccl.notify atomic_add %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  ccl.tile_store %t, %plain[%i] : vector<16xf32>, memref<64xf32>
  ccl.tensor_write %plain[%i], %v : memref<64xf32>, f32
  // A get from a window into a plain buffer publishes nothing.
  ccl.get %plain, %win, %peer : memref<64xf32>, memref<64xf32, #ccl.window>, i32
  %a = ccl.remote_load %win, %peer : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
  %b = ccl.tile_load %win[%i] : memref<64xf32, #ccl.window> -> vector<16xf32>
  %r = ccl.read %sig[%i] : memref<8xi32, #ccl.window> -> i32
  // memref.store is not one of the ccl publish ops (docs/semantics.md).
  memref.store %v, %win[%i] : memref<64xf32, #ccl.window>
  return %r : i32
}

// The same publishing body in every non-InCore kind: unchanged.
// CHECK-LABEL: func.func @orchestration
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
// CHECK-LABEL: func.func @graph
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
// CHECK-LABEL: func.func @group
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
// CHECK-LABEL: func.func @spmd
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
// CHECK-LABEL: func.func @opaque
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
// CHECK-LABEL: func.func @no_kind
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
// CHECK-LABEL: func.func @host_orchestrator
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: return
func.func @orchestration(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.kind = "orchestration"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
func.func @graph(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.kind = "graph"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
func.func @group(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.kind = "group"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
func.func @spmd(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.kind = "spmd"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
func.func @opaque(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.kind = "opaque"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
func.func @no_kind(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index) {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
func.func @host_orchestrator(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
