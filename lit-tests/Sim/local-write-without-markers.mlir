// A local window write without its markers: rank 0 writes its window
// (a dirty line in its block's cache, visible to nobody) and notifies;
// rank 1 waits and reads rank 0's window remotely: memory still holds the
// old value of a write that happens before the read.
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s --check-prefix=MARKED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC

// RAW: local-write-without-markers.mlir:27:14: error: data race: stale read of element 0 of argument #0 of @main on rank 0
// RAW-NEXT: local-write-without-markers.mlir:27:14: note: the stale read by rank 1 block 0 'ccl.remote_load' in launch 1 of @kernel
// RAW-NEXT: local-write-without-markers.mlir:23:5: note: the newer write by rank 0 block 0 'ccl.tensor_write' in launch 1 of @kernel, not yet visible to it
// MARKED: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks
// STATIC: local-write-without-markers.mlir:23:5: error: local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence

func.func @kernel(%win: memref<4xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %i0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %me, %c0 : i32
  scf.if %is0 {
    ccl.tensor_write %win[%i0], %c7 : memref<4xi32, #ccl.window>, i32
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    %first = ccl.remote_load %win, %c0 : memref<4xi32, #ccl.window>, i32 -> vector<4xi32>
  }
  return
}
func.func @main(%win: memref<4xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @kernel(%win, %sig) : (memref<4xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
