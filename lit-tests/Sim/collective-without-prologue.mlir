// A kernel launched after a collective without its prologue
// (`ccl.cacheinvalid` + `ccl.fence` at its entry): the block slot that runs
// it kept its cache from an earlier launch, and the collective changed memory
// behind that cache. ccl-sim finds the stale read, the insert pass's prologue
// (Phase B) removes it, and ccl-verify-comm-order rejects the same program
// statically. Two programs: @main (an all_reduce writes the buffer) and
// @main_barrier (a peer's put, ordered by barriers, writes it).
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_barrier 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 --entry main_barrier 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
//
// @main, step by step (2 ranks, one block slot each, all memory zero):
//  1. launch 1 of @consume reads %buf[0]: a miss, the line (0, written by
//     nobody) is now clean in the cache of block slot 0.
//  2. the block finishes and joins its host; nothing empties its cache.
//  3. `ccl.all_reduce` writes the sum into every rank's %buf, straight into
//     memory, behind every cache. It happens before what the host does next.
//  4. launch 2 of @consume runs on the same block slot and reads %buf[0]:
//     the old line is still cached, so it returns the zero from before the
//     all_reduce instead of the sum. A stale read.
// The insert pass marks @consume as launched after a publish and gives it the
// prologue: every launch drops the cache before its first read.
//
// @main_barrier: the same with the data coming from a peer. Launch 1 of
// @consume caches %buf[0] on both ranks; a barrier orders that read before
// rank 0's put into rank 1's %buf (fenced, so it has landed when @produce
// ends); a second barrier orders the put before launch 2, whose read of rank
// 1's %buf[0] hits the cached line from launch 1.

// FIXED-NOT: {{.}}
// FIXED: {{^}}ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks{{$}}
// FIXED-NOT: {{.}}

// RACE:      collective-without-prologue.mlir:[[@LINE+22]]:8: error: data race: stale read of element 0 of argument #1 of @main on rank 1: it returns an older value than a write that happens before it
// RACE-NEXT: collective-without-prologue.mlir:[[@LINE+21]]:8: note: the stale read by rank 1 block 0 'ccl.read' in launch 2 of @consume
// RACE-NEXT: collective-without-prologue.mlir:[[@LINE+30]]:3: note: the newer write by rank 1 host 'ccl.all_reduce', not yet visible to it
// Launch 1 ran eagerly from the initial state (its read touches nothing
// another thread writes); the all_reduce is the one observable step, and
// launch 2 reads in the step that follows it.
// RACE-NEXT: schedule (1 steps, found after {{[0-9]+}} states):
// RACE-NEXT: {{^ +}}1. every rank: 'ccl.all_reduce' at {{.*}}collective-without-prologue.mlir:[[@LINE+25]]:3
// RACE-NOT: {{.}}

// BARRIER:      collective-without-prologue.mlir:[[@LINE+12]]:8: error: data race: stale read of element 0 of argument #0 of @main_barrier on rank 1: it returns an older value than a write that happens before it
// BARRIER-NEXT: collective-without-prologue.mlir:[[@LINE+11]]:8: note: the stale read by rank 1 block 0 'ccl.read' in launch 2 of @consume
// BARRIER-NEXT: collective-without-prologue.mlir:[[@LINE+31]]:5: note: the newer write by rank 0 block 0 'ccl.put' in launch 1 of @produce, not yet visible to it
// BARRIER-NEXT: schedule (4 steps, found after {{[0-9]+}} states):
// BARRIER-NEXT: {{^ +}}1. every rank: 'ccl.barrier' at {{.*}}collective-without-prologue.mlir:[[@LINE+44]]:3
// BARRIER-NEXT: {{^ +}}2. rank 0 block 0: the 1 write of 'ccl.put' at {{.*}}collective-without-prologue.mlir:[[@LINE+28]]:5 lands
// BARRIER-NEXT: {{^ +}}3. rank 0 block 0: 'ccl.fence' at {{.*}}collective-without-prologue.mlir:[[@LINE+28]]:5
// BARRIER-NEXT: {{^ +}}4. every rank: 'ccl.barrier' at {{.*}}collective-without-prologue.mlir:[[@LINE+43]]:3
// BARRIER-NOT: {{.}}

func.func @consume(%buf: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %x = ccl.read %buf[%c0] : memref<1xi32, #ccl.window> -> i32
  return
}

// VERIFY:      collective-without-prologue.mlir:[[@LINE+7]]:3: error: InCore function @consume is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence
// VERIFY:      collective-without-prologue.mlir:[[@LINE-5]]:8: note: the first GM read of @consume it reaches
// VERIFY:      collective-without-prologue.mlir:[[@LINE+4]]:3: note: the publish it runs after
func.func @main(%src: memref<1xi32, #ccl.window>, %buf: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @consume(%buf) : (memref<1xi32, #ccl.window>) -> ()
  ccl.all_reduce sum %src, %buf : memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>
  func.call @consume(%buf) : (memref<1xi32, #ccl.window>) -> ()
  return
}

func.func @produce(%buf: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "aiv"} {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %rank = ccl.rank : i32
  %first = arith.cmpi eq, %rank, %zero : i32
  scf.if %first {
    ccl.put %buf, %src, %one : memref<1xi32, #ccl.window>, memref<1xi32>, i32
    ccl.fence
  }
  return
}

// @produce reads no GM (a put's source is not a GM read for the checker), so
// only the second launch of @consume is reported.
// VERIFY:      collective-without-prologue.mlir:[[@LINE+10]]:3: error: InCore function @consume is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence
// VERIFY:      collective-without-prologue.mlir:[[@LINE-30]]:8: note: the first GM read of @consume it reaches
// VERIFY:      collective-without-prologue.mlir:[[@LINE+5]]:3: note: the publish it runs after
// VERIFY-NOT:  error
func.func @main_barrier(%buf: memref<1xi32, #ccl.window>, %src: memref<1xi32>)
    attributes {ccl.kind = "orchestration"} {
  func.call @consume(%buf) : (memref<1xi32, #ccl.window>) -> ()
  ccl.barrier
  func.call @produce(%buf, %src) : (memref<1xi32, #ccl.window>, memref<1xi32>) -> ()
  ccl.barrier
  func.call @consume(%buf) : (memref<1xi32, #ccl.window>) -> ()
  return
}
