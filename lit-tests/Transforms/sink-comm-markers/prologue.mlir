// The prologue of a kernel launched after a collective (a whole-GM
// invalidate, then a fence) moves like a publish's markers: its invalidate
// to the first GM read, where a wait's invalidate merges into it, and its
// fence to the first exposure, where it merges with the publishes' fence.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @consumer
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: }
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: return
func.func @consumer(%w: memref<64xi32, #ccl.window>, %out: memref<64xi32, #ccl.window>,
                    %sig: memref<8xi32, #ccl.window>, %x: i32) attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  ccl.fence
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  ccl.cacheinvalid
  %v = ccl.read %w[%c0] : memref<64xi32, #ccl.window> -> i32
  ccl.tensor_write %out[%c0], %v : memref<64xi32, #ccl.window>, i32
  ccl.cacheinvalid %out : memref<64xi32, #ccl.window>
  ccl.fence
  ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  return
}

// The first op is a read: the invalidate stays; the fence moves to the
// notify (it lands what the invalidate wrote back before anything of this
// block is exposed).
// CHECK-LABEL: func.func @read_first
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: arith.constant
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @read_first(%w: memref<64xi32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32)
    attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  ccl.fence
  %c0 = arith.constant 0 : index
  %v = ccl.read %w[%c0] : memref<64xi32, #ccl.window> -> i32
  ccl.notify set %sig, %x, %v : memref<8xi32, #ccl.window>, i32, i32
  return
}
