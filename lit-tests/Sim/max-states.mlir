// --max-states N bounds the search: reaching it is exit 1 and "no
// conclusion", never "no race", whether or not a race would have come later.
// REQUIRES: ccl-sim
// RUN: %expect-exit 0 ccl-sim %s --ranks 4 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: %expect-exit 1 ccl-sim %s --ranks 4 --max-states 5 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: %expect-exit 1 ccl-sim %s --ranks 4 --max-states=5 --exhaustive 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: %expect-exit 1 ccl-sim %s --ranks 4 --random 50 --max-states 5 2>&1 | FileCheck %s --check-prefix=RANDOM
// RUN: %expect-exit 0 ccl-sim %s --ranks 4 --random 50 2>&1 | FileCheck %s --check-prefix=RANDOM-FULL
// The checker stops at whole batches of states, so a small space may be
// explored entirely before the bound is looked at; the answer is "no
// conclusion" all the same.
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --max-states 5 2>&1 | FileCheck %s --check-prefix=SMALL
//
// Every rank notifies the next one (rank + 1 mod P) eight times and nothing
// else: no race, and each rank's count of notifies done, 0 to 8, is
// independent of the others', so the full search visits 9^4 = 6561 states
// on 4 ranks.

// FULL:     {{^}}ccl-sim: no race: 6561 states explored, every schedule of 4 ranks{{$}}
// FULL-NOT: {{.}}

// The exhaustive search looks at the bound between batches of states: it
// stops past 5 but short of 6561, at a count not pinned here.
// LIMIT:     {{^}}ccl-sim: error: --max-states 5 reached after {{[0-9]+}} states, before the search finished: no conclusion{{$}}
// LIMIT-NOT: {{.}}

// Random schedules count their steps, and stop exactly at the bound.
// RANDOM:     {{^}}ccl-sim: error: --max-states 5 reached after 5 states, before the search finished: no conclusion{{$}}
// RANDOM-NOT: {{.}}
// RANDOM-FULL: {{^}}ccl-sim: no race: 50 random schedules of 4 ranks ({{[0-9]+}} states, seed 0){{$}}

// SMALL:     {{^}}ccl-sim: error: --max-states 5 reached after {{[0-9]+}} states, before the search finished: no conclusion{{$}}
// SMALL-NOT: ccl-sim: no race

func.func @kernel(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  %rank = ccl.rank : i32
  %size = ccl.comm_size : i32
  %after = arith.addi %rank, %one : i32
  %next = arith.remsi %after, %size : i32
  scf.for %i = %c0 to %c8 step %c1 {
    ccl.notify atomic_add %sig, %next, %one : memref<1xi32, #ccl.window>, i32, i32
  }
  return
}

func.func @main(%sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%sig) : (memref<1xi32, #ccl.window>) -> ()
  return
}
