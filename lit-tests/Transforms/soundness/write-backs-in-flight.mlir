// Family 1 of issue 36, through the cache: a write inside an scf.if and a
// later write of the same element, each written back by its own
// cacheinvalid, put two write-backs of one element in flight together, and
// they land in either order. Rank 0 writes 1 (when %c holds) then 2 into its
// window and notifies after one fence; rank 1 waits and remote-loads the
// element: the reference finds it returning 1. The checker rejects the pair
// at the first write (the notes name the later write and both invalidates);
// the minimal placement keeps a fence inside the branch, and its output is
// race-free and accepted.
// REQUIRES: ccl-sim
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: ccl-opt %t.minimal -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// RACE: error: data race: stale read of element 0
// CLEAN: ccl-sim: no race
// MINIMAL: scf.if %arg2 {
// MINIMAL-NEXT: ccl.tensor_write
// MINIMAL-NEXT: ccl.cacheinvalid %
// MINIMAL-NEXT: ccl.fence
// MINIMAL-NEXT: }

func.func @exchange(%w: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %c: i1) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %i0 = arith.constant 0 : index
  %first = arith.cmpi eq, %me, %c0 : i32
  scf.if %first {
    scf.if %c {
      // CHECKER: write-backs-in-flight.mlir:[[@LINE+1]]:7: error: the write-back of this ccl.tensor_write may still be in flight when the write-back of a later ccl.tensor_write writes an overlapping location
      ccl.tensor_write %w[%i0], %c1 : memref<1xi32, #ccl.window>, i32
      // CHECKER: write-backs-in-flight.mlir:[[@LINE+4]]:5: note: the later write
      // CHECKER: write-backs-in-flight.mlir:[[@LINE+1]]:7: note: the ccl.cacheinvalid that starts the first write-back
      ccl.cacheinvalid %w : memref<1xi32, #ccl.window>
    }
    ccl.tensor_write %w[%i0], %c2 : memref<1xi32, #ccl.window>, i32
    // CHECKER: write-backs-in-flight.mlir:[[@LINE+1]]:5: note: the ccl.cacheinvalid that starts the later write-back
    ccl.cacheinvalid %w : memref<1xi32, #ccl.window>
    ccl.fence
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %r = ccl.remote_load %w, %c0 : memref<1xi32, #ccl.window>, i32 -> vector<1xi32>
  }
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %t = arith.constant true
  func.call @exchange(%w, %sig, %t) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, i1) -> ()
  return
}
