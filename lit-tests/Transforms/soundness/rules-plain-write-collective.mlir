// The rules' own race (issue 36; SEMANTICS.md, the checker's Soundness
// paragraph): a plain (non-window) buffer written in a kernel and never
// written back, then read by a collective. The rules mark window writes
// only, so their output leaves the dirty line in the block's cache and the
// all_reduce reads the older value from memory. The checker rejects the
// rules' output at the write (notes at the return and at the collective);
// the minimal placement writes the line back before the return, and its
// output is race-free and accepted. No fence: the join waits for every
// write of the launch in flight (SEMANTICS.md, "Launches"), so the
// write-back has landed before the collective reads.
// REQUIRES: ccl-sim
// RUN: ccl-opt %s --mlir-print-debuginfo -p 'builtin.module(ccl-insert-comm-fence)' -o %t.rules
// RUN: not ccl-opt %t.rules -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: %expect-exit 3 ccl-sim %t.rules --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 | FileCheck %s --check-prefix=CLEAN
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// RACE: error: data race: stale read of element 0
// RACE-NEXT: note: read by rank {{[01]}} host 'ccl.all_reduce'
// CLEAN: ccl-sim: no race
// MINIMAL: ccl.tensor_write
// MINIMAL-NEXT: ccl.cacheinvalid %
// MINIMAL-NEXT: return

func.func @produce(%p: memref<1xi32>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  // CHECKER: rules-plain-write-collective.mlir:[[@LINE+1]]:3: error: plain-buffer write is read by another block but reaches the function's return
  ccl.tensor_write %p[%i0], %c7 : memref<1xi32>, i32
  // CHECKER: rules-plain-write-collective.mlir:[[@LINE+1]]:3: note: the return it reaches
  return
}

func.func @main(%p: memref<1xi32>, %w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @produce(%p) : (memref<1xi32>) -> ()
  // CHECKER: rules-plain-write-collective.mlir:[[@LINE+1]]:3: note: another block reads it here (ccl.all_reduce)
  ccl.all_reduce sum %p, %w : memref<1xi32>, memref<1xi32, #ccl.window>
  return
}
