// Phase A rule 3: an opaque publish (any ccl.submit, any func.call inside a
// kernel; the callee is not analysed) is followed by the whole-GM invalidate
// then a fence. Skip when the next two ops already are exactly these.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

func.func private @helper(memref<64xf32>) -> ()
func.func private @pure_helper() -> i32

// CHECK-LABEL: func.func @submit
// CHECK-NEXT: ccl.submit @helper(%{{.*}})
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @submit(%buf: memref<64xf32>) attributes {ccl.kind = "incore"} {
  ccl.submit @helper(%buf) : (memref<64xf32>) -> ()
  return
}

// Every call is opaque, even one that touches no window and returns a value.
// CHECK-LABEL: func.func @calls
// CHECK-NEXT: call @helper
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: %{{.*}} = call @pure_helper
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @calls(%buf: memref<64xf32>) -> i32 attributes {ccl.kind = "incore"} {
  func.call @helper(%buf) : (memref<64xf32>) -> ()
  %r = func.call @pure_helper() : () -> i32
  return %r : i32
}

// Skip: already followed by the pair.
// CHECK-LABEL: func.func @already_marked
// CHECK-NEXT: call @helper
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @already_marked(%buf: memref<64xf32>) attributes {ccl.kind = "incore"} {
  func.call @helper(%buf) : (memref<64xf32>) -> ()
  ccl.cacheinvalid
  ccl.fence
  return
}

// Not a skip: a region invalidate is not whole-GM, and an invalidate without
// its fence is only half of the pair.
// CHECK-LABEL: func.func @near_misses
// CHECK-SAME: %[[B:[^:]*]]: memref<64xf32>, %[[W:[^:]*]]: memref<64xf32, #ccl.window>
// CHECK-NEXT: call @helper
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid %[[W]] :
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.submit
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @near_misses(%buf: memref<64xf32>, %win: memref<64xf32, #ccl.window>) attributes {ccl.kind = "incore"} {
  func.call @helper(%buf) : (memref<64xf32>) -> ()
  ccl.cacheinvalid %win : memref<64xf32, #ccl.window>
  ccl.fence
  ccl.submit @helper(%buf) : (memref<64xf32>) -> ()
  ccl.cacheinvalid
  return
}
