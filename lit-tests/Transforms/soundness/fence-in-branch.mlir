// Family 2 of issue 36: a marker inside a region that may not run never
// stands for one that always runs. Rank 0 writes its window and starts the
// write-back, but fences only when %c holds (false here), then notifies;
// rank 1 waits and remote-loads the element before the write-back lands.
// The checker rejects the path that skips the branch (at the write, with a
// note at the notify); the minimal placement fences on every path, and its
// output is race-free and accepted.
// REQUIRES: ccl-sim
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: ccl-opt %t.minimal -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// RACE: error: data race
// CLEAN: ccl-sim: no race
// MINIMAL: ccl.tensor_write
// MINIMAL: ccl.fence
// MINIMAL-NEXT: ccl.notify

func.func @exchange(%w: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %c: i1) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %i0 = arith.constant 0 : index
  %first = arith.cmpi eq, %me, %c0 : i32
  scf.if %first {
    // CHECKER: fence-in-branch.mlir:[[@LINE+1]]:5: error:
    ccl.tensor_write %w[%i0], %c7 : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid %w : memref<1xi32, #ccl.window>
    scf.if %c {
      ccl.fence
    }
    // CHECKER: fence-in-branch.mlir:[[@LINE+1]]:5: note:
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %r = ccl.remote_load %w, %c0 : memref<1xi32, #ccl.window>, i32 -> vector<1xi32>
  }
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %f = arith.constant false
  func.call @exchange(%w, %sig, %f) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, i1) -> ()
  return
}
