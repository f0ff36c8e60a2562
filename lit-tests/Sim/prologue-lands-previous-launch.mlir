// Why ccl-sink-comm-markers keeps a kernel prologue's markers together and
// before the kernel's first exposure, though the checker asks only for the
// invalidate, and only before the first GM read. A launch leaves lines
// dirty in its block's cache (here a plain write of @produce); the next
// kernel on that block slot, launched after a collective, writes them back
// in its prologue and lands them with the prologue's fence before it
// notifies. Block 1 of @consume reads the element after that notify. Each
// deletion races. The rules' placement relies on this (on the prologue of
// the block slot @produce ran on); the checker asks more of a plain write
// another block reads: its own write-back in @produce (the minimal
// placement adds it, the last RUN lines; no fence: the join waits for the
// launch's writes in flight, so the reference finds no race without one),
// and it rejects the rules' placement, with or without these markers (a
// false alarm for the placement with both: docs/passes/verify-comm-order.md).
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,func.func(ccl-sink-comm-markers))' -o %t
// RUN: FileCheck %s --check-prefix=PLACED < %t
// RUN: %expect-exit 0 ccl-sim %t --ranks 2 | FileCheck %s --check-prefix=CLEAN
// RUN: awk '/func.func @consume/ { found = 1 } found && /ccl.fence/ && !done { done = 1; next } { print }' %t > %t.fence
// RUN: not ccl-opt %t.fence -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: %expect-exit 3 ccl-sim %t.fence --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: awk '/func.func @consume/ { found = 1 } found && /ccl.cacheinvalid$/ && !done { done = 1; next } { print }' %t > %t.invalidate
// RUN: not ccl-opt %t.invalidate -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: %expect-exit 3 ccl-sim %t.invalidate --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 | FileCheck %s --check-prefix=CLEAN
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// PLAIN: error: plain-buffer write is read by another block but reaches the function's return without ccl.cacheinvalid of the written buffer followed by ccl.fence
// MINIMAL-LABEL: func.func @produce
// MINIMAL: ccl.tensor_write
// MINIMAL-NEXT: ccl.cacheinvalid %
// MINIMAL-NEXT: return

// PLACED-LABEL: func.func @consume
// PLACED-NEXT: ccl.cacheinvalid{{$}}
// PLACED-NEXT: ccl.fence
// CLEAN: ccl-sim: no race
// RACE: error: data race: stale read of element 0 of argument #0 of @main on rank {{[01]}}
// RACE-NEXT: note: the stale read by rank {{[01]}} block 1 'ccl.read' in launch 1 of @consume
// RACE-NEXT: note: the newer write by rank {{[01]}} block 0 'ccl.tensor_write' in launch 1 of @produce

func.func @produce(%plain: memref<1xi32>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  ccl.tensor_write %plain[%i0], %c7 : memref<1xi32>, i32
  return
}
func.func @consume(%plain: memref<1xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv", ccl.launch_width = 2 : i64} {
  %me = ccl.rank : i32
  %blk = ccl.block_id : index
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %first = arith.cmpi eq, %blk, %i0 : index
  scf.if %first {
    ccl.notify set %sig, %me, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    %v = ccl.read %plain[%i0] : memref<1xi32> -> i32
  }
  return
}
func.func @main(%plain: memref<1xi32>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @produce(%plain) : (memref<1xi32>) -> ()
  ccl.barrier
  call @consume(%plain, %sig) : (memref<1xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}
