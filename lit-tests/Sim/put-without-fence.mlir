// A put without its fence before the notify: rank 0 puts into rank 1's
// window and notifies; rank 1 waits and reads. The put is still in flight
// when the notify lands, so the read returns the old value of a write that
// happens before it (put -> notify -> wait -> read).
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s --check-prefix=MARKED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC

// RAW: put-without-fence.mlir:30:10: error: data race: stale read of element 0 of argument #1 of @main on rank 1: it returns an older value than a write that happens before it
// RAW-NEXT: put-without-fence.mlir:30:10: note: the stale read by rank 1 block 0 'ccl.read' in launch 1 of @kernel
// RAW-NEXT: put-without-fence.mlir:26:5: note: the newer write by rank 0 block 0 'ccl.put' in launch 1 of @kernel, not yet visible to it
// RAW-NEXT: schedule (3 steps, found after {{[0-9]+}} states):
// RAW-NEXT: 1. rank 0 block 0: 'ccl.notify' at {{.*}}put-without-fence.mlir:27:5
// RAW-NEXT: 2. rank 1 block 0: 'ccl.wait' at {{.*}}put-without-fence.mlir:29:5
// RAW-NEXT: 3. rank 1 block 0: 'ccl.read' at {{.*}}put-without-fence.mlir:30:10
// MARKED: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks
// STATIC: put-without-fence.mlir:26:5: error: remote publish reaches a ccl.notify without ccl.fence

func.func @kernel(%src: memref<4xi32>, %win: memref<4xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %me, %c0 : i32
  scf.if %is0 {
    ccl.put %win, %src, %c1 : memref<4xi32, #ccl.window>, memref<4xi32>, i32
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    %v = ccl.read %win[%i0] : memref<4xi32, #ccl.window> -> i32
  }
  return
}
func.func @main(%src: memref<4xi32>, %win: memref<4xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @kernel(%src, %win, %sig) : (memref<4xi32>, memref<4xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
