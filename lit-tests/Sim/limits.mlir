// The simulator's bounds (docs/ccl-sim.md, "Limits"): memory (--max-memory),
// states (--max-states) and local steps (--max-steps). A run that needs more
// ends with a located "no conclusion" error and exit 1, never "no race", and
// is checked before anything is allocated: none of these runs holds more
// than the bound it is given.
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry alloc_1e9 --max-memory 1G 2>&1 | FileCheck %s --check-prefix=ALLOC
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry entry_4e9 --max-memory 1G 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry alloc_in_loop --max-memory 64M 2>&1 | FileCheck %s --check-prefix=GROWS
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry alloc_free_in_loop --max-memory 64M | FileCheck %s --check-prefix=FREED
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide_launch --max-states 10 2>&1 | FileCheck %s --check-prefix=STATES
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide_launch --random 3 --max-states 10 2>&1 | FileCheck %s --check-prefix=STATES
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide_launch --max-time 0 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide_launch --por off --max-time 0 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide_launch --max-memory 256K 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide_launch --max-memory 2M 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry long_loop 2>&1 | FileCheck %s --check-prefix=STEPS
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry long_loop --max-steps 2000000 | FileCheck %s --check-prefix=LONGER
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry long_loop --max-steps 1000 2>&1 | FileCheck %s --check-prefix=SHORTER
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry branch_loop --max-steps 1000 2>&1 | FileCheck %s --check-prefix=CF
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry recursion 2>&1 | FileCheck %s --check-prefix=DEPTH

// 10^9 i32 elements on 2 ranks.
// ALLOC: limits.mlir:[[@LINE+2]]:8: error: this allocation needs {{[0-9.]+}} GiB with {{.*}} already held, more than --max-memory 1 GiB: no conclusion{{$}}
func.func @alloc_1e9() attributes {ccl.kind = "orchestration"} {
  %m = memref.alloc() : memref<1000000000xi32>
  return
}

// ENTRY: limits.mlir:[[@LINE+1]]:1: error: argument #0 of @entry_4e9 needs {{[0-9.]+}} GiB with {{.*}} already held, more than --max-memory 1 GiB: no conclusion{{$}}
func.func @entry_4e9(%m: memref<4000000000xi32>) attributes {ccl.kind = "orchestration"} {
  return
}

// Each iteration allocates anew: memory grows until the bound.
// GROWS: limits.mlir:[[@LINE+6]]:10: error: this allocation needs {{.*}}, more than --max-memory 64 MiB: no conclusion{{$}}
func.func @alloc_in_loop() attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = memref.alloc() : memref<1024xi32>
  }
  return
}

// With its dealloc, the same loop holds one buffer at a time.
// FREED: ccl-sim: no race: 1 states explored, every schedule of 2 ranks
func.func @alloc_free_in_loop() attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = memref.alloc() : memref<1024xi32>
    memref.dealloc %m : memref<1024xi32>
  }
  return
}

// 200 blocks per rank, each a scheduling point: --max-states is checked on
// every state made, so 10 states take no time and no memory.
// STATES: limits.mlir:[[@LINE+16]]:1: error: --max-states 10 reached ({{[0-9]+}} states generated, {{[0-9]+}} distinct) before the search finished: no conclusion
// TIME: limits.mlir:[[@LINE+15]]:1: error: --max-time 0 s reached ({{[0-9]+}} states generated) before the search finished: no conclusion
// STATES-NOT: no race
// The 402 threads' vector clocks alone need more than 256 KiB; the search
// of their schedules, more than 2 MiB.
// THREADS: limits.mlir:[[@LINE+11]]:1: error: the state of 402 threads needs {{.*}}, more than --max-memory 256 KiB: no conclusion{{$}}
// SEARCH: limits.mlir:[[@LINE+10]]:1: error: --max-memory 2 MiB reached ({{.*}} held after {{[0-9]+}} states generated, {{[0-9]+}} distinct) before the search finished: no conclusion
func.func @notify_all(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %me = ccl.rank : i32
  %peer = arith.subi %one, %me : i32
  ccl.notify atomic_add %sig, %peer, %one : memref<1xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
  return
}
func.func @wide_launch(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @notify_all(%sig) {ccl.launch_width = 200 : i64} : (memref<1xi32, #ccl.window>) -> ()
  return
}

// 300,000 iterations of 4 steps each, none observable: past the default
// 1,000,000 local steps, which the error names with the loop it stopped in.
// STEPS: limits.mlir:[[@LINE+7]]:3: error: rank {{[01]}} host ran 1000000 steps in this 'scf.for' without one another thread can observe (--max-steps 1000000): no conclusion{{$}}
// SHORTER: limits.mlir:[[@LINE+6]]:3: error: rank {{[01]}} host ran 1000 steps in this 'scf.for' without one another thread can observe (--max-steps 1000): no conclusion{{$}}
// LONGER: ccl-sim: no race: 1 states explored, every schedule of 2 ranks
func.func @long_loop() attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 300000 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.addi %i, %c1 : index
  }
  return
}

// A loop of cf branches has no loop op: the error is at the op it stopped at.
// CF: limits.mlir:{{[0-9]+}}:{{[0-9]+}}: error: rank {{[01]}} host ran 1000 steps without one another thread can observe (--max-steps 1000): no conclusion{{$}}
func.func @branch_loop() attributes {ccl.kind = "orchestration"} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%next : index)
}

// DEPTH: limits.mlir:[[@LINE+2]]:3: error: calls nested deeper than 256 (recursion?): no conclusion{{$}}
func.func @recursion() attributes {ccl.kind = "orchestration"} {
  func.call @recursion() : () -> ()
  return
}
