// T1: a local publish's markers (the region invalidate of its window, then
// a fence) move forward past everything that cannot let another block see
// the data: GM reads, other stores, arithmetic. They stop right
// before the op that can: here a ccl.notify. Side-effect-free ops right
// before the notify are not passed (nothing is gained by it).
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @to_notify
// CHECK-NEXT: ccl.tile_store %{{.*}}, %[[W:arg[0-9]+]][%{{.*}}] :
// CHECK-NEXT: ccl.read %{{.*}}[%{{.*}}] : memref<64xf32> -> f32
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.cacheinvalid %[[W]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: arith.constant
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: return
func.func @to_notify(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %plain: memref<64xf32>,
                     %sig: memref<8xi32, #ccl.window>, %i: index, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  %v = ccl.read %plain[%i] : memref<64xf32> -> f32
  ccl.tensor_write %plain[%i], %v : memref<64xf32>, f32
  %one = arith.constant 1 : i32
  ccl.notify set %sig, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  return
}

// A remote publish's fence moves the same way, past a loop that neither
// exposes nor needs it.
// CHECK-LABEL: func.func @remote_past_loop
// CHECK: ccl.remote_store
// CHECK-NEXT: scf.for
// CHECK-NEXT: ccl.read
// CHECK-NEXT: }
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @remote_past_loop(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %plain: memref<64xf32>,
                            %sig: memref<8xi32, #ccl.window>, %n: index, %peer: i32)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  scf.for %i = %c0 to %n step %c1 {
    %v = ccl.read %plain[%i] : memref<64xf32> -> f32
  }
  ccl.notify set %sig, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// At the end of the kernel the markers stop before the return: a launch
// ends in a join, after which any block may read what this one wrote.
// CHECK-LABEL: func.func @to_return
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
func.func @to_return(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %plain: memref<64xf32>, %i: index)
    attributes {ccl.kind = "aiv"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  %v = ccl.read %plain[%i] : memref<64xf32> -> f32
  return
}
