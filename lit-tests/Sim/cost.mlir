// What a run executes: ccl-sim counts the fences, the region and whole-GM
// invalidates and the lines they write back, per kernel (with its launches
// over all ranks) and in total. A kernel that stores 8 rows of its window in
// a loop and then notifies its peer: the insert pass's markers run inside
// the loop (8 write-backs, 8 fences per block); one invalidate and fence
// after the loop is as safe (no race on any schedule) and runs once.
// REQUIRES: ccl-sim
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' | %expect-exit 0 ccl-sim - --ranks 2 --entry main_rules | FileCheck %s --check-prefix=RULES
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_once | FileCheck %s --check-prefix=ONCE
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_once --random 5 | FileCheck %s --check-prefix=ONCE-RANDOM
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_once --no-reduction | FileCheck %s --check-prefix=ONCE
// The rows come from an argument: --arg sets it, by name or position.
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_rows --arg rows=3 | FileCheck %s --check-prefix=ROWS
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_rows --arg %rows=3 | FileCheck %s --check-prefix=ROWS
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_rows --arg 2=3 | FileCheck %s --check-prefix=ROWS
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_rows | FileCheck %s --check-prefix=NO-ROWS

// Per block: 8 region invalidates writing back one line each, 8 fences.
// RULES:      {{^}}ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks{{$}}
// RULES-NEXT: {{^}}ccl-sim: executed: fences 16, region invalidates 16, whole-GM invalidates 2, lines written back 16{{$}}
// RULES-NEXT: {{^}}ccl-sim:   @rows_in_a_loop: launches 2, fences 16, region invalidates 16, whole-GM invalidates 2, lines written back 16{{$}}
// RULES-NOT:  {{.}}

// Per block: one invalidate writing back the 8 lines, one fence.
// ONCE:      {{^}}ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks{{$}}
// ONCE-NEXT: {{^}}ccl-sim: executed: fences 2, region invalidates 2, whole-GM invalidates 2, lines written back 16{{$}}
// ONCE-NEXT: {{^}}ccl-sim:   @rows_then_markers: launches 2, fences 2, region invalidates 2, whole-GM invalidates 2, lines written back 16{{$}}
// ONCE-NOT:  {{.}}
// ONCE-RANDOM:      {{^}}ccl-sim: no race: 5 random schedules of 2 ranks ({{[0-9]+}} states, seed 0){{$}}
// ONCE-RANDOM-NEXT: {{^}}ccl-sim: executed: fences 2, region invalidates 2, whole-GM invalidates 2, lines written back 16{{$}}

// ROWS:    {{^}}ccl-sim: executed: fences 2, region invalidates 2, whole-GM invalidates 2, lines written back 6{{$}}
// NO-ROWS: {{^}}ccl-sim: executed: fences 2, region invalidates 2, whole-GM invalidates 2, lines written back 0{{$}}

// The kernel as a front end writes it: the insert pass adds the markers.
func.func @rows_in_a_loop(%win: memref<8xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : i32
  %peer = arith.subi %one, %me : i32
  scf.for %row = %c0 to %c8 step %c1 {
    ccl.tensor_write %win[%row], %me : memref<8xi32, #ccl.window>, i32
  }
  ccl.notify set %sig, %peer, %one : memref<1xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
  %v = ccl.remote_load %win, %peer : memref<8xi32, #ccl.window>, i32 -> vector<8xi32>
  return
}
func.func @main_rules(%win: memref<8xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @rows_in_a_loop(%win, %sig) : (memref<8xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}

// The same with one invalidate and fence after the loop, placed by hand.
func.func @rows_then_markers(%win: memref<8xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %rows: index) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : i32
  %peer = arith.subi %one, %me : i32
  scf.for %row = %c0 to %rows step %c1 {
    ccl.tensor_write %win[%row], %me : memref<8xi32, #ccl.window>, i32
  }
  ccl.cacheinvalid %win : memref<8xi32, #ccl.window>
  ccl.fence
  ccl.notify set %sig, %peer, %one : memref<1xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
  ccl.cacheinvalid
  %v = ccl.remote_load %win, %peer : memref<8xi32, #ccl.window>, i32 -> vector<8xi32>
  return
}
func.func @main_once(%win: memref<8xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %c8 = arith.constant 8 : index
  func.call @rows_then_markers(%win, %sig, %c8) : (memref<8xi32, #ccl.window>, memref<1xi32, #ccl.window>, index) -> ()
  return
}
func.func @main_rows(%win: memref<8xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %rows: index) attributes {ccl.kind = "orchestration"} {
  func.call @rows_then_markers(%win, %sig, %rows) : (memref<8xi32, #ccl.window>, memref<1xi32, #ccl.window>, index) -> ()
  return
}
