// A local write into a window without its markers (`ccl.cacheinvalid` of the
// window, then `ccl.fence`), followed by a notify: the peer reads the window
// remotely and gets what memory holds, not what sits in the writer's cache.
// ccl-sim finds the stale read, the insert pass's markers remove it, and
// ccl-verify-comm-order rejects the same program statically. Two programs:
// @main has no marker at all, @main_half only the invalidate.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_half 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 --entry main_half 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
//
// @kernel, step by step (2 ranks, one block each, all memory zero):
//  1. rank 0's `ccl.tile_store` writes %win[0..3] = 7 into its own cache:
//     dirty lines, memory still holds zeros.
//  2. rank 0 notifies rank 1; nothing wrote the dirty lines back first.
//  3. rank 1's wait sees the signal: the store happens before its next steps.
//  4. rank 1 invalidates its own cache (that marker is there) and `ccl.get`
//     reads rank 0's %win from rank 0's memory: zeros, although the store of
//     7 happens before the read. A stale read.
// The insert pass's rule 1 adds `ccl.cacheinvalid %win` (the dirty lines
// leave the cache, in flight toward memory) and `ccl.fence` (wait until they
// have landed) before the notify.
//
// @half has the invalidate but not the fence: the write-back is in flight
// when the notify goes out, and the peer's `ccl.remote_load` can still read
// memory before it lands. The invalidate alone is not enough.

// FIXED-NOT: {{.}}
// FIXED: {{^}}ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks{{$}}
// FIXED-NEXT: {{^}}ccl-sim: executed: fences 1,
// FIXED-NOT: error

// RACE:      local-publish-without-markers.mlir:[[@LINE+25]]:5: error: data race: stale read of element 0 of argument #0 of @main on rank 0: it returns an older value than a write that happens before it
// RACE-NEXT: local-publish-without-markers.mlir:[[@LINE+24]]:5: note: the stale read by rank 1 block 0 'ccl.get' in launch 1 of @kernel
// RACE-NEXT: local-publish-without-markers.mlir:[[@LINE+18]]:5: note: the newer write by rank 0 block 0 'ccl.tile_store' in launch 1 of @kernel, not yet visible to it
// RACE-NEXT: schedule (2 steps, found after {{[0-9]+}} states):
// RACE-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}local-publish-without-markers.mlir:[[@LINE+17]]:5
// RACE-NEXT: {{^ +}}2. rank 1 block 0: 'ccl.get' at {{.*}}local-publish-without-markers.mlir:[[@LINE+20]]:5
// RACE-NOT: {{.}}

// VERIFY: local-publish-without-markers.mlir:[[@LINE+12]]:5: error: local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence
// VERIFY: local-publish-without-markers.mlir:[[@LINE+12]]:5: note: the ccl.notify it reaches
// VERIFY: local-publish-without-markers.mlir:[[@LINE+10]]:5: error: local publish reaches the function's return without ccl.cacheinvalid of the written window followed by ccl.fence
func.func @kernel(%win: memref<4xi32, #ccl.window>, %local: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %tile = arith.constant dense<7> : vector<4xi32>
  %rank = ccl.rank : i32
  %writer = arith.cmpi eq, %rank, %zero : i32
  scf.if %writer {
    ccl.tile_store %tile, %win[%c0] : vector<4xi32>, memref<4xi32, #ccl.window>
    ccl.notify set %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    ccl.get %local, %win, %zero : memref<4xi32>, memref<4xi32, #ccl.window>, i32
  }
  return
}

func.func @main(%win: memref<4xi32, #ccl.window>, %local: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%win, %local, %sig) : (memref<4xi32, #ccl.window>, memref<4xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}

// HALF:      local-publish-without-markers.mlir:[[@LINE+29]]:10: error: data race: stale read of element 0 of argument #0 of @main_half on rank 0: it returns an older value than a write that happens before it
// HALF-NEXT: local-publish-without-markers.mlir:[[@LINE+28]]:10: note: the stale read by rank 1 block 0 'ccl.remote_load' in launch 1 of @half
// HALF-NEXT: local-publish-without-markers.mlir:[[@LINE+21]]:5: note: the newer write by rank 0 block 0 'ccl.tensor_write' in launch 1 of @half, not yet visible to it
// The write-back of the invalidate is in flight and stays there: it never
// lands in this schedule.
// HALF-NEXT: schedule (2 steps, found after {{[0-9]+}} states):
// HALF-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}local-publish-without-markers.mlir:[[@LINE+19]]:5
// HALF-NEXT: {{^ +}}2. rank 1 block 0: 'ccl.remote_load' at {{.*}}local-publish-without-markers.mlir:[[@LINE+22]]:10
// HALF-NOT: {{.}}

// VERIFY: local-publish-without-markers.mlir:[[@LINE+13]]:5: error: local publish reaches a ccl.notify without ccl.fence after the ccl.cacheinvalid of its window
// VERIFY: local-publish-without-markers.mlir:[[@LINE+14]]:5: note: the ccl.notify it reaches
// VERIFY: local-publish-without-markers.mlir:[[@LINE+11]]:5: error: local publish reaches the function's return without ccl.fence after the ccl.cacheinvalid of its window
// VERIFY-NOT: error
func.func @half(%win: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %seven = arith.constant 7 : i32
  %rank = ccl.rank : i32
  %writer = arith.cmpi eq, %rank, %zero : i32
  scf.if %writer {
    ccl.tensor_write %win[%c0], %seven : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid %win : memref<1xi32, #ccl.window>
    ccl.notify set %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %x = ccl.remote_load %win, %zero : memref<1xi32, #ccl.window>, i32 -> i32
  }
  return
}

func.func @main_half(%win: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @half(%win, %sig) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
