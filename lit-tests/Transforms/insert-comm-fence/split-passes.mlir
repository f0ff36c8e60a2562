// ccl-insert-comm-fence as ccl-pipeline runs it: the scan of Phase B alone
// (ccl-find-post-collective-kernels, which changes nothing), then the
// insertions function by function (ccl-insert-kernel-fence), the kernels
// the scan marked handed over through MLIR's analysis manager. The output
// is the module pass's, with threading and without.
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-insert-comm-fence)' -o %t.module
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-find-post-collective-kernels,func.func(ccl-insert-kernel-fence))' -o %t.split
// RUN: diff %t.module %t.split
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-find-post-collective-kernels,func.func(ccl-insert-kernel-fence))' --mlir-disable-threading | diff %t.module -
// The prologues are there (the three kernels launched after the collective).
// RUN: FileCheck %s --check-prefix=PROLOGUE < %t.split
// PROLOGUE-LABEL: func.func @dispatch_pack(
// PROLOGUE-NEXT:   ccl.cacheinvalid{{$}}
// PROLOGUE-NEXT:   ccl.fence{{$}}
// PROLOGUE-LABEL: func.func @expert_ffn(
// PROLOGUE-NEXT:   ccl.cacheinvalid{{$}}
// PROLOGUE-NEXT:   ccl.fence{{$}}
// PROLOGUE-LABEL: func.func @combine_send(
// PROLOGUE-NEXT:   ccl.cacheinvalid{{$}}
// PROLOGUE-NEXT:   ccl.fence{{$}}
//
// A pass that preserves everything in between keeps the marks cached.
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-find-post-collective-kernels,print-op-stats,func.func(ccl-insert-kernel-fence))' -o - 2>/dev/null | diff %t.module -
//
// Without the scan, or after a pass that changed the module (MLIR then drops
// every analysis the change did not preserve), the function pass refuses to
// run rather than leave the prologues out; functions that are not kernels
// need no marks and are left alone.
// RUN: not ccl-opt %s -p 'builtin.module(func.func(ccl-insert-kernel-fence))' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels,ccl-insert-comm-fence,func.func(ccl-insert-kernel-fence))' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: split-passes.mlir:[[@LINE+2]]:1: error: 'ccl-insert-kernel-fence' needs 'ccl-find-post-collective-kernels' to run on the enclosing module first (as in ccl-pipeline); or use 'ccl-insert-comm-fence'
// MISSING-NOT: error
func.func @kernel(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}

func.func @host() attributes {ccl.kind = "orchestration"} {
  return
}
//
// Each pass runs only where it can: the scan on a module, the insertions on
// a function.
// RUN: not ccl-opt %s -p 'builtin.module(ccl-insert-kernel-fence)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: error: Can't add pass 'CclInsertKernelFence' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?
