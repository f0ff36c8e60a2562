// Phase B prologue skip and robustness: a prologue already in place is not
// doubled (only an exact "cacheinvalid() then fence" at the start counts);
// marked declarations, orchestration declarations and unstructured control
// flow neither crash nor change anything they should not. (A callee that is
// no function of the module no longer reaches the pass: ccl.submit's callee
// is a flat symbol reference to a function, which the dialect verifier
// checks, as func.call's does; see Dialect/invalid.mlir.)
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @has_prologue()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @has_prologue() attributes {ccl.kind = "incore"} {
  ccl.cacheinvalid
  ccl.fence
  return
}

// Half a prologue, or the two ops the wrong way round, is no prologue.
// CHECK-LABEL: func.func @half_prologue()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @swapped_prologue()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @half_prologue() attributes {ccl.kind = "incore"} {
  ccl.cacheinvalid
  return
}
func.func @swapped_prologue() attributes {ccl.kind = "incore"} {
  ccl.fence
  ccl.cacheinvalid
  return
}

// A region invalidate at the start is not the whole-GM form.
// CHECK-LABEL: func.func @region_form_first
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @region_form_first(%w: memref<8xf32, #ccl.window>) attributes {ccl.kind = "incore"} {
  ccl.cacheinvalid %w : memref<8xf32, #ccl.window>
  ccl.fence
  return
}

// A marked kernel's own Phase A markers stay after its ops; the prologue
// goes first.
// CHECK-LABEL: func.func @publishing_consumer
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @publishing_consumer(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}

// CHECK-LABEL: func.func private @kernel_decl()
// CHECK-NOT: ccl.cacheinvalid
// CHECK-LABEL: func.func private @orchestration_decl()
func.func private @kernel_decl() attributes {ccl.kind = "incore"}

// An orchestration declaration has nothing to scan.
func.func private @orchestration_decl() attributes {ccl.kind = "orchestration"}

// CHECK-LABEL: func.func @main
// CHECK-NEXT: ccl.barrier
// CHECK-NEXT: call @has_prologue()
// CHECK-NEXT: call @half_prologue()
// CHECK-NEXT: call @swapped_prologue()
// CHECK-NEXT: ccl.submit @region_form_first()
// CHECK-NEXT: call @publishing_consumer(
// CHECK-NEXT: call @kernel_decl()
// CHECK-NEXT: call @orchestration_decl()
// CHECK-NEXT: return
func.func @main(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @has_prologue() : () -> ()
  func.call @half_prologue() : () -> ()
  func.call @swapped_prologue() : () -> ()
  ccl.submit @region_form_first() : () -> ()
  func.call @publishing_consumer(%t, %w, %i) : (vector<16xf32>, memref<64xf32, #ccl.window>, index) -> ()
  func.call @kernel_decl() : () -> ()
  func.call @orchestration_decl() : () -> ()
  return
}

// Unstructured control flow: the blocks of a multi-block region are not in
// execution order, so such a region is treated like a loop body. Here the
// launch in ^bb1 follows the barrier of the previous trip round the loop.
// CHECK-LABEL: func.func @k_cfg()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @k_cfg() attributes {ccl.kind = "incore"} {
  return
}
func.func @cfg_loop(%c: i1) attributes {ccl.kind = "orchestration"} {
  cf.br ^bb1
^bb1:
  func.call @k_cfg() : () -> ()
  ccl.barrier
  cf.cond_br %c, ^bb1, ^bb2
^bb2:
  return
}
