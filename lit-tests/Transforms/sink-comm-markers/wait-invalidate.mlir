// T1 for a wait's whole-GM invalidate: it only has to come before the next
// GM read (ccl.read, ccl.tile_load, ccl.remote_load, the sources of
// ccl.get and ccl.put, a call), so it moves forward to the first of them,
// past notifies. It stops before the return (caches outlive the launch)
// and, with no fence carried with it, before a write (so that it never
// starts a write-back that no fence lands before the data is exposed),
// unless the rules' markers for that write follow it.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers),ccl-verify-comm-order)' -o /dev/null

// CHECK-LABEL: func.func @to_read
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.tile_load
func.func @to_read(%w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %i: index, %x: i32)
    attributes {ccl.kind = "aiv"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  %v = ccl.tile_load %w[%i] : memref<64xf32, #ccl.window> -> vector<16xf32>
  return
}

// Two waits, each with its invalidate, and no read between: one remains.
// CHECK-LABEL: func.func @two_waits
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.put
func.func @two_waits(%w: memref<64xf32, #ccl.window>, %src: memref<64xf32>, %sig: memref<8xi32, #ccl.window>,
                     %x: i32) attributes {ccl.kind = "aiv"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.put %w, %src, %x : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  ccl.fence
  return
}

// No read follows: it stays before the return.
// CHECK-LABEL: func.func @kept_at_return
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @kept_at_return(%sig: memref<8xi32, #ccl.window>, %x: i32) attributes {ccl.kind = "aiv"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  return
}

// A write into a plain buffer keeps it before: nothing would fence the
// line it would write back.
// CHECK-LABEL: func.func @before_plain_write
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.read
func.func @before_plain_write(%plain: memref<64xi32>, %sig: memref<8xi32, #ccl.window>, %i: index, %x: i32)
    attributes {ccl.kind = "aiv"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.tensor_write %plain[%i], %x : memref<64xi32>, i32
  %v = ccl.read %plain[%i] : memref<64xi32> -> i32
  return
}

// A window write whose markers follow it: the invalidate passes it and
// covers the window's, and the fence lands what it writes back.
// CHECK-LABEL: func.func @past_published_write
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @past_published_write(%w: memref<64xi32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %i: index,
                                %x: i32) attributes {ccl.kind = "aiv"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.tensor_write %w[%i], %x : memref<64xi32, #ccl.window>, i32
  ccl.cacheinvalid %w : memref<64xi32, #ccl.window>
  ccl.fence
  ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  return
}
