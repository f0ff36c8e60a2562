// A put without its fence before the notify: the peer sees the signal before
// the data. ccl-sim finds the stale read, the insert pass's fence removes it,
// and ccl-verify-comm-order rejects the same program statically.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
//
// Why it races, step by step (2 ranks, one block each, all memory zero):
//  1. rank 0 runs `ccl.put`: four writes into rank 1's copy of %win leave
//     rank 0, in flight; nothing says when they land.
//  2. rank 0 runs `ccl.notify` at once: no `ccl.fence` waits for the writes
//     first, so the signal can arrive before them.
//  3. rank 1's `ccl.wait` sees the signal: everything rank 0 did before the
//     notify, the put included, now happens before rank 1's next steps.
//  4. rank 1 invalidates its cache (that marker is there) and reads
//     %win[0] from memory, where the put has not landed yet: the read returns
//     the old zero although the put's write happens before it. A stale read.
// With the fence after the put (the insert pass's rule 2), the notify waits
// until the writes have landed, and every schedule reads the put's value.

// FIXED-NOT: {{.}}
// FIXED: {{^}}ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks{{$}}
// FIXED-NEXT: {{^}}ccl-sim: executed: fences 1, region invalidates 0, whole-GM invalidates 1, lines written back 0{{$}}
// FIXED-NEXT: {{^}}ccl-sim:   @kernel: launches 2, fences 1, region invalidates 0, whole-GM invalidates 1, lines written back 0{{$}}
// FIXED-NOT: {{.}}

func.func @kernel(%win: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %rank = ccl.rank : i32
  %sender = arith.cmpi eq, %rank, %zero : i32
  scf.if %sender {
    // VERIFY: put-without-fence.mlir:[[@LINE+1]]:5: error: remote publish reaches a ccl.notify without ccl.fence
    ccl.put %win, %src, %one : memref<4xi32, #ccl.window>, memref<4xi32>, i32
    // VERIFY: put-without-fence.mlir:[[@LINE+1]]:5: note: the ccl.notify it reaches
    ccl.notify set %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    // RACE:      put-without-fence.mlir:[[@LINE+3]]:10: error: data race: stale read of element 0 of argument #0 of @main on rank 1: it returns an older value than a write that happens before it
    // RACE-NEXT: put-without-fence.mlir:[[@LINE+2]]:10: note: the stale read by rank 1 block 0 'ccl.read' in launch 1 of @kernel
    // RACE-NEXT: put-without-fence.mlir:[[@LINE-8]]:5: note: the newer write by rank 0 block 0 'ccl.put' in launch 1 of @kernel, not yet visible to it
    %v = ccl.read %win[%c0] : memref<4xi32, #ccl.window> -> i32
    // The shortest racy schedule: rank 0 signals (its put ran eagerly before,
    // as a local step) and rank 1's wait passes in the same step (a wait is
    // taken as soon as it holds); rank 1 reads; nothing has landed.
    // RACE-NEXT: schedule (2 steps, found after {{[0-9]+}} states):
    // RACE-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}put-without-fence.mlir:[[@LINE-12]]:5
    // RACE-NEXT: {{^ +}}2. rank 1 block 0: 'ccl.read' at {{.*}}put-without-fence.mlir:[[@LINE-6]]:10
    // RACE-NOT: {{.}}
  }
  // VERIFY: error: remote publish reaches the function's return without ccl.fence
  // VERIFY: put-without-fence.mlir:[[@LINE+1]]:3: note: the return it reaches
  return
}

func.func @main(%win: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%win, %src, %sig) : (memref<4xi32, #ccl.window>, memref<4xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}
