// Reading back one's own remote write (found by the markers campaign,
// litmus seeds 899 and 1163): rank 0's block remote-loads rank 1's element,
// which caches its line; its own remote_store to that element lands (the
// fence waits for it), but the line is still in the block's cache, so the
// second remote_load hits it and returns the old value, older than the
// block's own write that happens before it: a stale read. The rules'
// placement puts no invalidate between the write and the read, so its
// output races; the checker rejects it at the write, with a note at the
// read. The minimal placement adds a region invalidate of what the read
// reads before it; its output is race-free and accepted.
// REQUIRES: ccl-sim
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' -o %t.rules
// RUN: %expect-exit 3 ccl-sim %t.rules --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// RACE: error: data race: stale read of element 0
// CLEAN: ccl-sim: no race
// MINIMAL: ccl.remote_store
// MINIMAL-NEXT: ccl.cacheinvalid %arg0 : memref<1xi32, #ccl.window>
// MINIMAL-NEXT: ccl.remote_load

func.func @k(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %seven = arith.constant 7 : i32
  %rank = ccl.rank : i32
  %first = arith.cmpi eq, %rank, %zero : i32
  scf.if %first {
    %old = ccl.remote_load %w, %one : memref<1xi32, #ccl.window>, i32 -> i32
    // CHECKER: read-back-after-remote-write.mlir:[[@LINE+1]]:5: error: this block reads back what this ccl.remote_store writes
    ccl.remote_store %seven, %w, %one : i32, memref<1xi32, #ccl.window>, i32
    ccl.fence
    // CHECKER: read-back-after-remote-write.mlir:[[@LINE+1]]:12: note: the ccl.remote_load that may read it back
    %new = ccl.remote_load %w, %one : memref<1xi32, #ccl.window>, i32 -> i32
  }
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @k(%w) : (memref<1xi32, #ccl.window>) -> ()
  return
}
