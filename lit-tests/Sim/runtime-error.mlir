// Runtime errors of the program: exit 1 (not a race), located at the op that
// failed, with the schedule that got there.
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=PEER
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --random 3 2>&1 | FileCheck %s --check-prefix=PEER-RANDOM
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry main_bounds 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry main_diverge 2>&1 | FileCheck %s --check-prefix=DIVERGE
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry main_in_kernel 2>&1 | FileCheck %s --check-prefix=IN-KERNEL
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry main_dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// With one rank, peer 0 + 1 is out of range at once; with three, rank 2's.
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %expect-exit 1 ccl-sim %s --ranks 3 2>&1 | FileCheck %s --check-prefix=THREE

// A random schedule may let rank 0 notify first; it ends at rank 1's.
// PEER-RANDOM:      error: peer 2 is not a rank (0..2){{$}}
// PEER-RANDOM-NEXT: schedule ({{[12]}} steps, found after {{[0-9]+}} states, in random schedule 1 of seed 0):
// PEER-RANDOM:      rank 1 block 0: 'ccl.notify' at {{.*}}runtime-error.mlir:{{[0-9]+}}:3{{$}}
// PEER-RANDOM-NOT:  {{.}}

// Every rank notifies rank + 1: rank 0's notify goes to rank 1, rank 1's to
// rank 2, which does not exist. (The failing notify touches nothing, so the
// partial-order reduction takes rank 0's first.)
// PEER:      {{^}}{{.*}}runtime-error.mlir:[[@LINE+13]]:3: error: peer 2 is not a rank (0..2){{$}}
// PEER-NEXT: schedule (2 steps, found after {{[0-9]+}} states):
// PEER-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}runtime-error.mlir:[[@LINE+11]]:3
// PEER-NEXT: {{^ +}}2. rank 1 block 0: 'ccl.notify' at {{.*}}runtime-error.mlir:[[@LINE+10]]:3
// PEER-NOT:  {{.}}
// ONE:       runtime-error.mlir:[[@LINE+8]]:3: error: peer 1 is not a rank (0..1){{$}}
// ONE:       {{^ +}}1. rank 0 block 0: 'ccl.notify'
// THREE:     runtime-error.mlir:[[@LINE+6]]:3: error: peer 3 is not a rank (0..3){{$}}
// THREE:     {{^ +}}{{[0-9]+}}. rank 2 block 0: 'ccl.notify'
func.func @next(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %one = arith.constant 1 : i32
  %rank = ccl.rank : i32
  %peer = arith.addi %rank, %one : i32
  ccl.notify set %sig, %peer, %one : memref<1xi32, #ccl.window>, i32, i32
  return
}

func.func @main(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @next(%sig) : (memref<1xi32, #ccl.window>) -> ()
  return
}

// A read one past the end of its buffer.
// BOUNDS:      runtime-error.mlir:[[@LINE+5]]:8: error: indices [4] out of bounds of [4]{{$}}
// BOUNDS-NEXT: schedule (1 steps, found after {{[0-9]+}} states):
// BOUNDS-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.read' at {{.*}}runtime-error.mlir:[[@LINE+3]]:8
func.func @past_the_end(%buf: memref<4xi32>) attributes {ccl.kind = "aiv"} {
  %c4 = arith.constant 4 : index
  %x = ccl.read %buf[%c4] : memref<4xi32> -> i32
  return
}

func.func @main_bounds(%buf: memref<4xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @past_the_end(%buf) : (memref<4xi32>) -> ()
  return
}

// Rank 0 reaches a barrier, rank 1 an all_reduce: the error is at the one that
// differs from rank 0's.
// DIVERGE: runtime-error.mlir:[[@LINE+8]]:5: error: ranks reached different collectives: ccl.barrier at {{.*}}runtime-error.mlir:[[@LINE+6]]:5 and ccl.all_reduce at {{.*}}runtime-error.mlir:[[@LINE+8]]:5{{$}}
func.func @main_diverge(%buf: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %zero = arith.constant 0 : i32
  %rank = ccl.rank : i32
  %first = arith.cmpi eq, %rank, %zero : i32
  scf.if %first {
    ccl.barrier
  } else {
    ccl.all_reduce sum %buf, %buf : memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>
  }
  return
}

// ccl-sim runs collectives from host code only; inside a kernel one is an
// error, not a deadlock.
// IN-KERNEL:      runtime-error.mlir:[[@LINE+4]]:3: error: a collective inside a kernel: ccl-sim runs collectives from host code only{{$}}
// IN-KERNEL-NEXT: schedule (1 steps, found after {{[0-9]+}} states):
// IN-KERNEL-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.barrier' at {{.*}}runtime-error.mlir:[[@LINE+2]]:3
func.func @barrier_kernel() attributes {ccl.kind = "aiv"} {
  ccl.barrier
  return
}

func.func @main_in_kernel() attributes {ccl.kind = "orchestration"} {
  func.call @barrier_kernel() : () -> ()
  return
}

// The simulator allocates the entry's memrefs, so it needs their sizes.
// DYNAMIC: runtime-error.mlir:[[@LINE+1]]:1: error: the entry @main_dynamic takes a memref of dynamic shape: ccl-sim needs static shapes{{$}}
func.func @main_dynamic(%buf: memref<?xi32>) attributes {ccl.kind = "orchestration"} {
  return
}
