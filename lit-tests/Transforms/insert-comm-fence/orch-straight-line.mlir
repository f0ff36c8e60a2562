// Phase B in straight-line orchestration code: a kernel launched (func.call
// or ccl.submit) after a publish (a collective, any ccl.submit, a call to a
// ccl.builtin_template_dir function) is marked and gets the prologue
// ccl.cacheinvalid() + ccl.fence at the start of its entry block.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// `coll; consume` marks consume.
// CHECK-LABEL: func.func @consume_after()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @consume_after() attributes {ccl.kind = "incore"} {
  return
}
func.func @coll_then_consume() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @consume_after() : () -> ()
  return
}

// `consume; coll` marks nothing.
// CHECK-LABEL: func.func @consume_before()
// CHECK-NEXT: return
func.func @consume_before() attributes {ccl.kind = "incore"} {
  return
}
func.func @consume_then_coll() attributes {ccl.kind = "orchestration"} {
  func.call @consume_before() : () -> ()
  ccl.barrier
  return
}

// `stage; coll; consume` marks only consume; the prologue goes before the
// kernel's own first op.
// CHECK-LABEL: func.func @stage
// CHECK-NEXT: ccl.tile_load
// CHECK-LABEL: func.func @consume
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.tile_load
func.func @stage(%b: memref<64xf32>, %i: index) attributes {ccl.kind = "aic"} {
  %v = ccl.tile_load %b[%i] : memref<64xf32> -> vector<16xf32>
  return
}
func.func @consume(%b: memref<64xf32>, %i: index) attributes {ccl.kind = "aiv"} {
  %v = ccl.tile_load %b[%i] : memref<64xf32> -> vector<16xf32>
  return
}
func.func @stage_coll_consume(%src: memref<64xf32>, %dst: memref<64xf32>, %i: index) attributes {ccl.kind = "orchestration"} {
  func.call @stage(%src, %i) : (memref<64xf32>, index) -> ()
  ccl.all_reduce sum %src, %dst : memref<64xf32>, memref<64xf32>
  func.call @consume(%dst, %i) : (memref<64xf32>, index) -> ()
  return
}

// all_to_all_v is a collective; a consumer launched by ccl.submit is marked.
// CHECK-LABEL: func.func @a2a_consumer()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @a2a_consumer() attributes {ccl.kind = "incore"} {
  return
}
func.func @a2a(%s: memref<64xf32>, %sc: memref<8xi32>, %r: memref<64xf32>, %rc: memref<8xi32>, %b: i32)
    attributes {ccl.kind = "orchestration"} {
  ccl.all_to_all_v %s, %sc, %r, %rc, blocks %b : memref<64xf32>, memref<8xi32>, memref<64xf32>, memref<8xi32>, i32
  ccl.submit @a2a_consumer() : () -> ()
  return
}

// Any ccl.submit publishes: the submitted kernel itself is not marked (seen
// was false), the kernel after it is.
// CHECK-LABEL: func.func @submitted()
// CHECK-NEXT: return
// CHECK-LABEL: func.func @after_submit()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @submitted() attributes {ccl.kind = "incore"} {
  return
}
func.func @after_submit() attributes {ccl.kind = "incore"} {
  return
}
func.func @submit_publishes() attributes {ccl.kind = "orchestration"} {
  ccl.submit @submitted() : () -> ()
  func.call @after_submit() : () -> ()
  return
}

// A call to a ccl.builtin_template_dir function (a synthesized collective
// kernel) publishes; so does a call to a builtin declaration.
// CHECK-LABEL: func.func @builtin_a2a()
// CHECK-NEXT: return
// CHECK-LABEL: func.func @after_builtin()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @after_builtin_decl()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @builtin_a2a() attributes {ccl.kind = "incore", ccl.builtin_template_dir = "templates/all_to_all_v"} {
  return
}
func.func private @builtin_decl() attributes {ccl.builtin_template_dir = "templates/all_reduce"}
func.func @after_builtin() attributes {ccl.kind = "incore"} {
  return
}
func.func @after_builtin_decl() attributes {ccl.kind = "incore"} {
  return
}
func.func @builtin_publishes() attributes {ccl.kind = "orchestration"} {
  func.call @builtin_a2a() : () -> ()
  func.call @after_builtin() : () -> ()
  return
}
func.func @builtin_decl_publishes() attributes {ccl.kind = "orchestration"} {
  func.call @builtin_decl() : () -> ()
  func.call @after_builtin_decl() : () -> ()
  return
}

// A call to a plain (non-builtin) function is no publish.
// CHECK-LABEL: func.func @after_plain_call()
// CHECK-NEXT: return
func.func private @plain_helper()
func.func @after_plain_call() attributes {ccl.kind = "incore"} {
  return
}
func.func @plain_call_no_publish() attributes {ccl.kind = "orchestration"} {
  func.call @plain_helper() : () -> ()
  func.call @after_plain_call() : () -> ()
  return
}

// A kernel launched both before and after the collective, twice: marked,
// and the prologue is inserted once.
// CHECK-LABEL: func.func @twice()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @twice() attributes {ccl.kind = "incore"} {
  return
}
func.func @launch_twice() attributes {ccl.kind = "orchestration"} {
  func.call @twice() : () -> ()
  ccl.barrier
  func.call @twice() : () -> ()
  ccl.submit @twice() : () -> ()
  return
}

// A builtin collective kernel is itself an InCore callee: launched after a
// publish, it is marked like any kernel, and it publishes in turn.
// CHECK-LABEL: func.func @builtin_late()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @builtin_late() attributes {ccl.kind = "aiv", ccl.builtin_template_dir = "templates/all_reduce"} {
  return
}
func.func @builtin_after_submit() attributes {ccl.kind = "orchestration"} {
  ccl.submit @submitted() : () -> ()
  func.call @builtin_late() : () -> ()
  return
}
