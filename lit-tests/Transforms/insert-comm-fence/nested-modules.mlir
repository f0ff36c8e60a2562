// Each builtin.module nested in the module is a program of its own, handled
// as if the pass ran on it alone, at any depth: its kernels get their
// markers, and the kernels its own orchestration launches after a publish get
// the prologue. Calls resolve in their own module: the inner barrier marks
// the inner @consume, not the top-level one of the same name.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | ccl-opt -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null
// The scan alone marks the kernels of every program; the function pass then
// runs where MLIR schedules it, so a pipeline nested on the modules reaches
// theirs (as for any function pass), with the module pass's output.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' -o %t.module
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels,func.func(ccl-insert-kernel-fence),builtin.module(ccl-find-post-collective-kernels,func.func(ccl-insert-kernel-fence),builtin.module(ccl-find-post-collective-kernels,func.func(ccl-insert-kernel-fence))))' | diff %t.module -

// CHECK-LABEL: func.func @consume(
// CHECK-NEXT:    ccl.read
// CHECK-LABEL: module @inner {
// CHECK-LABEL:   func.func @consume(
// CHECK-NEXT:      ccl.cacheinvalid{{$}}
// CHECK-NEXT:      ccl.fence{{$}}
// CHECK-NEXT:      ccl.read
// CHECK-LABEL:   module @deeper {
// CHECK-LABEL:     func.func @publish(
// CHECK:             ccl.tensor_write
// CHECK-NEXT:        ccl.cacheinvalid %{{.*}} : memref<4xi32, #ccl.window>
// CHECK-NEXT:        ccl.fence
// CHECK-NEXT:        ccl.notify

func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

module @inner {
  func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
    %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
    return
  }

  func.func @host(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
    ccl.barrier
    func.call @consume(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
    return
  }

  module @deeper {
    func.func @publish(%w: memref<4xi32, #ccl.window>, %s: memref<1xi32, #ccl.window>) attributes {ccl.kind = "incore"} {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %peer = arith.constant 0 : i32
      %one = arith.constant 1 : i64
      ccl.tensor_write %w[%c0], %v : memref<4xi32, #ccl.window>, i32
      ccl.notify atomic_add %s, %peer, %one : memref<1xi32, #ccl.window>, i32, i64
      return
    }
  }
}
