// A read after a wait without the invalidate: rank 1 reads its window
// early (the line stays in its block's cache) and tells rank 0 it is done;
// rank 0 waits for that, puts new data into the window, fences and
// notifies; rank 1 waits and reads again, from its cache: the old value of
// a write that happens before the read.
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s --check-prefix=MARKED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC

// RAW: stale-line-after-wait.mlir:31:13: error: data race: stale read of element 0 of argument #1 of @main on rank 1
// RAW-NEXT: note: the stale read by rank 1 block 0 'ccl.read' in launch 1 of @kernel
// RAW-NEXT: note: the newer write by rank 0 block 0 'ccl.put' in launch 1 of @kernel, not yet visible to it
// MARKED: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks
// STATIC: error: ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it

func.func @kernel(%src: memref<4xi32>, %win: memref<4xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %ready: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %me, %c0 : i32
  scf.if %is0 {
    ccl.wait ge %ready, %c1 : memref<1xi32, #ccl.window>, i32
    ccl.put %win, %src, %c1 : memref<4xi32, #ccl.window>, memref<4xi32>, i32
    ccl.fence
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    %early = ccl.read %win[%i0] : memref<4xi32, #ccl.window> -> i32
    ccl.notify set %ready, %c0, %c1 : memref<1xi32, #ccl.window>, i32, i32
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    %late = ccl.read %win[%i0] : memref<4xi32, #ccl.window> -> i32
  }
  return
}
func.func @main(%src: memref<4xi32>, %win: memref<4xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %ready: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @kernel(%src, %win, %sig, %ready) : (memref<4xi32>, memref<4xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
