// Orchestration IR is never changed: Phase B inserts only kernel prologues,
// and Phase A does not look at orchestration-like functions, however many
// publishes, waits and launches they hold. Every op of the orchestration
// body is checked, in order, with nothing in between.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @k()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @k() attributes {ccl.kind = "incore"} {
  return
}

// CHECK-LABEL: func.func @orchestrate
// CHECK-NEXT: ccl.all_to_all_v
// CHECK-NEXT: ccl.submit @k()
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.for
// CHECK-NEXT: call @k()
// CHECK-NEXT: ccl.all_reduce
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.barrier
// CHECK-NEXT: return
// CHECK-NEXT: {{^ +\}$}}
func.func @orchestrate(%s: memref<64xf32, #ccl.window>, %sc: memref<8xi32, #ccl.window>, %r: memref<64xf32, #ccl.window>,
                       %rc: memref<8xi32, #ccl.window>, %b: i32, %t: vector<16xf32>, %i: index, %n: index)
    attributes {ccl.kind = "orchestration"} {
  ccl.all_to_all_v %s, %sc, %r, %rc, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32
  ccl.submit @k() : () -> ()
  ccl.tile_store %t, %r[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %r, %b : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %rc, %b : memref<8xi32, #ccl.window>, i32
  scf.for %j = %i to %n step %i {
    func.call @k() : () -> ()
    ccl.all_reduce sum %s, %r : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>
    ccl.wait eq %rc, %b : memref<8xi32, #ccl.window>, i32
  }
  ccl.barrier
  return
}
