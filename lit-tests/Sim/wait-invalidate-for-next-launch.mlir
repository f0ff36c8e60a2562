// Why ccl-sink-comm-markers keeps a wait's whole-GM invalidate before the
// return when nothing in the kernel reads after it: caches outlive the
// launch. Rank 1 reads its window early, lets rank 0 put new data into it
// and waits for rank 0's signal; @consume, launched next on the same block
// slot (no collective between, so no prologue), reads the element. Without
// that invalidate the program races; no GM read follows the wait in
// @exchange, but the checker sees that the line @exchange read early stays
// in the block slot's cache for @consume, which is launched after it and
// reads the element another rank's put made stale: it asks for @consume's
// prologue. With the invalidate, nothing is left there, and @consume needs
// none (the minimal placement gives it none).
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t
// RUN: FileCheck %s --check-prefix=PLACED < %t
// RUN: %expect-exit 0 ccl-sim %t --ranks 2 | FileCheck %s --check-prefix=CLEAN
// RUN: awk '/ccl.wait ge %arg3/ { found = 1 } found && /ccl.cacheinvalid$/ && !done { done = 1; next } { print }' %t > %t.deleted
// RUN: not ccl-opt %t.deleted -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: %expect-exit 3 ccl-sim %t.deleted --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE

// PLACED-LABEL: func.func @consume
// PLACED-NEXT: arith.constant
// PLACED-NEXT: ccl.read
// CHECKER: error: InCore function @consume is launched after another launch on this rank but reads GM before a whole-GM ccl.cacheinvalid()
// CHECKER: note: another block's write, which may make a line an earlier launch left in the block slot's cache stale
// CLEAN: ccl-sim: no race
// RACE: error: data race: stale read of element 0 of argument #0 of @main on rank 1
// RACE-NEXT: note: the stale read by rank 1 block 0 'ccl.read' in launch 1 of @consume
// RACE-NEXT: note: the newer write by rank 0 block 0 'ccl.put' in launch 1 of @exchange

func.func @exchange(%win: memref<1xi32, #ccl.window>, %src: memref<1xi32>, %ready: memref<1xi32, #ccl.window>,
                    %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %me, %c0 : i32
  scf.if %is0 {
    ccl.wait ge %ready, %c1 : memref<1xi32, #ccl.window>, i32
    ccl.put %win, %src, %c1 : memref<1xi32, #ccl.window>, memref<1xi32>, i32
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    %early = ccl.read %win[%i0] : memref<1xi32, #ccl.window> -> i32
    ccl.notify set %ready, %c0, %c1 : memref<1xi32, #ccl.window>, i32, i32
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
  }
  return
}
func.func @consume(%win: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  %late = ccl.read %win[%i0] : memref<1xi32, #ccl.window> -> i32
  return
}
func.func @main(%win: memref<1xi32, #ccl.window>, %src: memref<1xi32>, %ready: memref<1xi32, #ccl.window>,
                %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @exchange(%win, %src, %ready, %sig)
      : (memref<1xi32, #ccl.window>, memref<1xi32>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  call @consume(%win) : (memref<1xi32, #ccl.window>) -> ()
  return
}
