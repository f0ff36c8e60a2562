// Phase A in kernels of several blocks: the markers go right after each
// publish and wait, in the block where it is, whatever the branches; a
// block that already has them gets no second pair.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @split(
// CHECK: ^bb1:
// CHECK-NEXT: ccl.tile_store %{{.*}}, %[[W:[a-z0-9]+]]{{\[}}
// CHECK-NEXT: ccl.cacheinvalid %[[W]] : memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: cf.br ^bb2
// CHECK: ^bb2:
// CHECK-NEXT: ccl.cacheinvalid %[[W]] : memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
// CHECK: ^bb3:
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: return
func.func @split(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
                 %c: i1, %peer: i32) attributes {ccl.kind = "incore"} {
  cf.cond_br %c, ^store, ^notify
^store:
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  cf.br ^markers
^markers:
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  return
^notify:
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// A loop of blocks: the wait at the loop head gets its invalidate, the put
// its fence, before the back edge.
// CHECK-LABEL: func.func @block_loop(
// CHECK: ^bb1:
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: cf.cond_br %{{.*}}, ^bb1, ^bb2
func.func @block_loop(%w: memref<64xf32, #ccl.window>, %p: memref<64xf32>, %s: memref<8xi32, #ccl.window>,
                      %i: index, %c: i1, %peer: i32) attributes {ccl.kind = "aiv"} {
  cf.br ^loop
^loop:
  ccl.wait ge %s, %peer : memref<8xi32, #ccl.window>, i32
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  ccl.put %w, %p, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  cf.cond_br %c, ^loop, ^exit
^exit:
  return
}
