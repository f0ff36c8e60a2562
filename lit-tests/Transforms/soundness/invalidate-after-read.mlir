// Family 3 of issue 36: cacheinvalid(W) also drops W's clean lines, so it
// never moves past a read of W that could then return a different value. The
// launch of @peek caches element 0 of %w on its block slot; the all_reduce
// writes %w behind every cache; the launch of @reader on the same slot reads
// the stale clean line because its invalidate of %w comes after the read
// (where a sink that ignored clean lines would put it). The reference finds the
// stale read; the checker rejects the second launch (no prologue, no
// whole-GM invalidate before its first GM read, the note at that read); the
// minimal placement invalidates before the read, and its output is
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
// MINIMAL-LABEL: func.func @reader
// MINIMAL-NEXT: ccl.cacheinvalid{{$}}
// MINIMAL-NEXT: arith.constant
// MINIMAL-NEXT: ccl.read

func.func @peek(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  %v = ccl.read %w[%i0] : memref<1xi32, #ccl.window> -> i32
  return
}

func.func @reader(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  // CHECKER-DAG: invalidate-after-read.mlir:[[@LINE+1]]:8: note: the first GM read of @reader it reaches
  %v = ccl.read %w[%i0] : memref<1xi32, #ccl.window> -> i32
  ccl.cacheinvalid %w : memref<1xi32, #ccl.window>
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @peek(%w) : (memref<1xi32, #ccl.window>) -> ()
  ccl.all_reduce sum %src, %w : memref<1xi32>, memref<1xi32, #ccl.window>
  // CHECKER-DAG: invalidate-after-read.mlir:[[@LINE+1]]:3: error: InCore function @reader is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid()
  func.call @reader(%w) : (memref<1xi32, #ccl.window>) -> ()
  return
}
