// A deadlock: no step is possible and some thread has not finished. Exit 3
// (a finding, like a race), with a note for every thread that is stuck and
// what it waits for: a wait's cell, its condition and the value the cell
// holds (and when no notify of the program can write it), a collective the
// other ranks have not reached, a host's launch still running; the schedule
// leads to the stuck state.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --random 5 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_barrier 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_late 2>&1 | FileCheck %s --check-prefix=LATE

// Every rank waits for a signal nobody sends: both blocks are stuck from the
// start.
// WAIT:      {{^}}error: deadlock: no step is possible and some threads have not finished{{$}}
// WAIT-NEXT: deadlock.mlir:[[@LINE+8]]:3: note: rank 0 block 0 waits at 'ccl.wait' for element 0 of argument #0 of @main on rank 0 to be >= 1: it holds 0; no notify of the program can write it; launch 1 of @waiter{{$}}
// WAIT-NEXT: deadlock.mlir:[[@LINE+7]]:3: note: rank 1 block 0 waits at 'ccl.wait' for element 0 of argument #0 of @main on rank 1 to be >= 1: it holds 0; no notify of the program can write it; launch 1 of @waiter{{$}}
// WAIT-NEXT: deadlock.mlir:[[@LINE+11]]:3: note: rank 0 host waits for its launch of @waiter to finish: 1 of its 1 blocks still running, 0 units of their writes in flight{{$}}
// WAIT-NEXT: deadlock.mlir:[[@LINE+10]]:3: note: rank 1 host waits for its launch of @waiter to finish
// WAIT-NEXT: schedule (0 steps, found after {{[0-9]+}} states{{(, in random schedule 1 of seed 0)?}}):
// WAIT-NOT:  {{.}}
func.func @waiter(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %one = arith.constant 1 : i32
  ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
  return
}

func.func @main(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @waiter(%sig) : (memref<1xi32, #ccl.window>) -> ()
  return
}

// Only rank 0 reaches the barrier: its host waits there for ever, rank 1's
// host has finished.
// BARRIER:      {{^}}error: deadlock: no step is possible and some threads have not finished{{$}}
// BARRIER-NEXT: deadlock.mlir:[[@LINE+8]]:5: note: rank 0 host waits at 'ccl.barrier' for every rank to reach it{{$}}
// BARRIER-NEXT: schedule (0 steps, found after {{[0-9]+}} states):
// BARRIER-NOT:  {{.}}
func.func @main_barrier() attributes {ccl.kind = "orchestration"} {
  %zero = arith.constant 0 : i32
  %rank = ccl.rank : i32
  %first = arith.cmpi eq, %rank, %zero : i32
  scf.if %first {
    ccl.barrier
  }
  return
}

// Rank 1 signals rank 0 once, rank 0 waits for 2: it gets stuck only after
// the notify, so the schedule has that step.
// LATE:      {{^}}error: deadlock: no step is possible and some threads have not finished{{$}}
// LATE-NEXT: deadlock.mlir:[[@LINE+12]]:5: note: rank 0 block 0 waits at 'ccl.wait' for element 0 of argument #0 of @main_late on rank 0 to be >= 2: it holds 1; launch 1 of @late{{$}}
// LATE-NEXT: deadlock.mlir:[[@LINE+19]]:3: note: rank 0 host waits for its launch of @late to finish
// LATE-NEXT: schedule (1 steps, found after {{[0-9]+}} states):
// LATE-NEXT: {{^ +}}1. rank 1 block 0: 'ccl.notify' at {{.*}}deadlock.mlir:[[@LINE+11]]:5
// LATE-NOT:  {{.}}
func.func @late(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %rank = ccl.rank : i32
  %first = arith.cmpi eq, %rank, %zero : i32
  scf.if %first {
    ccl.wait ge %sig, %two : memref<1xi32, #ccl.window>, i32
  } else {
    ccl.notify atomic_add %sig, %zero, %one : memref<1xi32, #ccl.window>, i32, i32
  }
  return
}

func.func @main_late(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @late(%sig) : (memref<1xi32, #ccl.window>) -> ()
  return
}
