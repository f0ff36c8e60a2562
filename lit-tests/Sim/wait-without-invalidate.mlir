// A read after a wait without the whole-GM invalidate: the reader's cache
// still holds the line it read before the wait, and returns that. ccl-sim
// finds the stale read, the insert pass's invalidate removes it, and
// ccl-verify-comm-order rejects the same program statically.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
//
// Why it races, step by step (2 ranks, one block each, all memory zero):
//  1. rank 1 reads %win[0]: a miss, so the line (value 0, written by nobody)
//     is now clean in rank 1's cache.
//  2. rank 1 notifies rank 0 that it is done reading (without this handshake
//     the put below would race with that first read: a write after a read it
//     is not ordered with).
//  3. rank 0 waits for it and puts into rank 1's %win, fences (the put's
//     writes have landed in rank 1's memory) and notifies rank 1. Rank 0
//     has every marker.
//  4. rank 1's wait sees the signal: the put happens before its next read.
//  5. nothing drops rank 1's cached line (no `ccl.cacheinvalid` after the
//     wait), so the second read of %win[0] hits the cache and returns the old
//     zero, not the put's value that is in memory. A stale read.
// With the invalidate after the wait (the insert pass's rule 4) the read
// misses and fetches the put's value from memory.

// FIXED-NOT: {{.}}
// FIXED: {{^}}ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks{{$}}
// FIXED-NOT: {{.}}

func.func @kernel(%win: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %rank = ccl.rank : i32
  %writer = arith.cmpi eq, %rank, %zero : i32
  scf.if %writer {
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    ccl.put %win, %src, %one : memref<4xi32, #ccl.window>, memref<4xi32>, i32
    ccl.fence
    ccl.notify set %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
  } else {
    %early = ccl.read %win[%c0] : memref<4xi32, #ccl.window> -> i32
    ccl.notify set %sig, %zero, %one : memref<1xi32, #ccl.window>, i32, i32
    // VERIFY: wait-without-invalidate.mlir:[[@LINE+1]]:5: error: ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    // VERIFY-NEXT: ccl.wait ge %sig
    // VERIFY-NEXT: ^
    // VERIFY-NEXT: wait-without-invalidate.mlir:[[@LINE+6]]:13: note: the GM read (ccl.read) it reaches
    // VERIFY-NOT: error
    //
    // RACE:      wait-without-invalidate.mlir:[[@LINE+3]]:13: error: data race: stale read of element 0 of argument #0 of @main on rank 1: it returns an older value than a write that happens before it
    // RACE-NEXT: wait-without-invalidate.mlir:[[@LINE+2]]:13: note: the stale read by rank 1 block 0 'ccl.read' in launch 1 of @kernel
    // RACE-NEXT: wait-without-invalidate.mlir:[[@LINE-15]]:5: note: the newer write by rank 0 block 0 'ccl.put' in launch 1 of @kernel, not yet visible to it
    %late = ccl.read %win[%c0] : memref<4xi32, #ccl.window> -> i32
    // The first read ran eagerly at the start (a local step: nothing else
    // touches %win yet); the put's writes land before rank 0's fence passes.
    // RACE-NEXT: schedule (6 steps, found after {{[0-9]+}} states):
    // RACE-NEXT: {{^ +}}1. rank 1 block 0: 'ccl.notify' at {{.*}}wait-without-invalidate.mlir:[[@LINE-15]]:5
    // RACE-NEXT: {{^ +}}2. rank 0 block 0: 'ccl.wait' at {{.*}}wait-without-invalidate.mlir:[[@LINE-23]]:5
    // RACE-NEXT: {{^ +}}3. rank 0 block 0: the 4 writes of 'ccl.put' at {{.*}}wait-without-invalidate.mlir:[[@LINE-22]]:5 land
    // RACE-NEXT: {{^ +}}4. rank 0 block 0: 'ccl.fence' at {{.*}}wait-without-invalidate.mlir:[[@LINE-22]]:5
    // RACE-NEXT: {{^ +}}5. rank 0 block 0: 'ccl.notify' at {{.*}}wait-without-invalidate.mlir:[[@LINE-22]]:5
    // RACE-NEXT: {{^ +}}6. rank 1 block 0: 'ccl.wait' at {{.*}}wait-without-invalidate.mlir:[[@LINE-18]]:5
    // RACE-NOT: {{.}}
  }
  return
}

func.func @main(%win: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%win, %src, %sig) : (memref<4xi32, #ccl.window>, memref<4xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}
