// What the simulator found that the rules leave open: a block writes a plain
// buffer (no marker: rule 6), waits, and reads the element back. The
// whole-GM invalidate the insert pass puts after the wait writes the dirty
// line back as an in-flight unit with no fence after it, so the read can
// fetch the old value from memory before the unit lands: a stale read of the
// block's own write, in the insert pass's output, which the checker accepts.
// (docs/ccl-sim.md, "What the simulator found"; a fence after the
// invalidate, written by hand, makes it clean.)
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' | %expect-exit 3 ccl-sim - --ranks 2 2>&1 | FileCheck %s --check-prefix=INSERTED
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | sed 's/^\( *\)ccl.cacheinvalid$/&\n\1ccl.fence/' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s --check-prefix=FENCED

// INSERTED: error: data race: stale read of element 0 of argument #0 of @main on rank {{[01]}}
// INSERTED-NEXT: note: the stale read by rank [[R:[01]]] block 0 'ccl.read' in launch 1 of @kernel
// INSERTED-NEXT: note: the newer write by rank [[R]] block 0 'ccl.tensor_write' in launch 1 of @kernel, not yet visible to it
// FENCED: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks

func.func @kernel(%own: memref<1xi32>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %peer = arith.subi %c1, %me : i32
  ccl.tensor_write %own[%i0], %c1 : memref<1xi32>, i32
  ccl.notify set %sig, %peer, %c1 : memref<1xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
  %back = ccl.read %own[%i0] : memref<1xi32> -> i32
  return
}
func.func @main(%own: memref<1xi32>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @kernel(%own, %sig) : (memref<1xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}
