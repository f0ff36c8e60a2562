// Family 1 of issue 36: two writes of one element in flight together land in
// either order (SEMANTICS.md's execution model). Rank 0 remote-stores 1 then 2
// into element 0 of rank 1's window with no fence between them, then fences
// and notifies; rank 1 waits, invalidates and reads. The reference finds the
// read returning 1 after 2 landed first; the checker rejects the pair at
// both writes' lines; the minimal placement puts the fence between them, and
// its output is race-free and accepted.
// REQUIRES: ccl-sim
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: ccl-opt %t.minimal -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// RACE: error: data race: stale read of element 0
// CLEAN: ccl-sim: no race
// MINIMAL: ccl.remote_store
// MINIMAL-NEXT: ccl.fence
// MINIMAL-NEXT: ccl.remote_store
// MINIMAL-NEXT: ccl.fence
// MINIMAL-NEXT: ccl.notify

func.func @exchange(%w: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %old = arith.constant dense<1> : vector<1xi32>
  %new = arith.constant dense<2> : vector<1xi32>
  %first = arith.cmpi eq, %me, %c0 : i32
  scf.if %first {
    // CHECKER: writes-in-flight.mlir:[[@LINE+1]]:5: error: this ccl.remote_store may still be in flight when a later ccl.remote_store writes an overlapping location
    ccl.remote_store %old, %w, %c1 : vector<1xi32>, memref<1xi32, #ccl.window>, i32
    // CHECKER: writes-in-flight.mlir:[[@LINE+1]]:5: note: the later write
    ccl.remote_store %new, %w, %c1 : vector<1xi32>, memref<1xi32, #ccl.window>, i32
    ccl.fence
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %r = ccl.read %w[%i0] : memref<1xi32, #ccl.window> -> i32
  }
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @exchange(%w, %sig) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
