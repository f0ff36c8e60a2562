// Phase A rule 2: a remote publish (ccl.remote_store, ccl.put) is followed by
// a fence only: the peer-region invalidate is the code generator's job. Skip
// when the next op already is a fence.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @remote_store
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @remote_store(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %peer: i32)
    attributes {ccl.kind = "incore"} {
  ccl.remote_store %t, %win, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  return
}

// A put is remote whatever the memory space of its operands.
// CHECK-LABEL: func.func @put
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @put(%dst: memref<64xf32, #ccl.window>, %src: memref<64xf32>, %plain: memref<64xf32>, %peer: index)
    attributes {ccl.kind = "incore"} {
  ccl.put %dst, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, index
  ccl.put %plain, %src, %peer : memref<64xf32>, memref<64xf32>, index
  return
}

// Skip: a fence is already next.
// CHECK-LABEL: func.func @already_fenced
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @already_fenced(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %src: memref<64xf32>, %peer: i32)
    attributes {ccl.kind = "incore"} {
  ccl.remote_store %t, %win, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.fence
  ccl.put %win, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  ccl.fence
  return
}

// No invalidate is added, and an invalidate in between is not a fence.
// CHECK-LABEL: func.func @invalidate_is_not_a_fence
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @invalidate_is_not_a_fence(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %peer: i32)
    attributes {ccl.kind = "incore"} {
  ccl.remote_store %t, %win, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.cacheinvalid
  ccl.fence
  return
}
