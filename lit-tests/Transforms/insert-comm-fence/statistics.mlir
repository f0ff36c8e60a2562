// The pass's statistics (--mlir-pass-statistics): markers inserted in kernel
// bodies by kind, prologues, marked kernels, loop rescans and calls that
// publish through a wrapper. A second run
// over the output inserts nothing.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' --mlir-pass-statistics -o %t1 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: ccl-opt %t1 -p 'builtin.module(ccl-insert-comm-fence)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// FIRST: CclInsertCommFence
// FIRST-NEXT: (S) 3 fences
// FIRST-NEXT: (S) 2 kernels-marked
// FIRST-NEXT: (S) 1 loops-rescanned
// FIRST-NEXT: (S) 1 prologues
// FIRST-NEXT: (S) 1 region-invalidates
// FIRST-NEXT: (S) 3 whole-gm-invalidates
// FIRST-NEXT: (S) 0 wrapper-publishes

// SECOND: CclInsertCommFence
// SECOND-NEXT: (S) 0 fences
// SECOND-NEXT: (S) 2 kernels-marked
// SECOND-NEXT: (S) 1 loops-rescanned
// SECOND-NEXT: (S) 0 prologues
// SECOND-NEXT: (S) 0 region-invalidates
// SECOND-NEXT: (S) 0 whole-gm-invalidates
// SECOND-NEXT: (S) 0 wrapper-publishes

func.func private @helper()

// 1 region invalidate + 1 fence, 1 fence, 1 whole invalidate + 1 fence,
// 1 whole invalidate after the wait, 1 after the pure wait loop.
func.func @kernel(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                  %x: i32, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%lb] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  func.call @helper() : () -> ()
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

// Marked, but already has its prologue.
func.func @ready() attributes {ccl.kind = "incore"} {
  ccl.cacheinvalid
  ccl.fence
  return
}

// One rescan: the loop body publishes and seen was false on entry.
func.func @main(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                %x: i32, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    func.call @kernel(%t, %win, %sig, %x, %lb, %ub, %s)
      : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32, index, index, index) -> ()
    ccl.submit @ready() : () -> ()
    ccl.barrier
  }
  return
}
