// A block's own accesses to one element are coherent (SEMANTICS.md, "Own
// accesses are coherent"). This block writes a plain buffer (no marker:
// rule 6), waits, and reads the element back. The whole-GM invalidate the
// insert pass puts after the wait writes the dirty line back as an
// in-flight unit and nothing fences it, but the read returns the block's own
// newest write from its queue, landed or not: no schedule reads the old
// value, so the insert pass's output is clean without a fence, as it is with
// one written by hand after the invalidate.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | sed 's/^\( *\)ccl.cacheinvalid$/&\n\1ccl.fence/' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s
// The read returns the queued write before it lands: with every ccl op a
// scheduling point the landing can come after the read, and still no race.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 --no-reduction | FileCheck %s

// CHECK: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks

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
