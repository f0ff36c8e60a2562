// ccl-pipeline runs itself on each builtin.module nested in the module, at
// any depth, as a program of its own, before the module's own passes (its
// per-function steps would not reach a nested module's functions): the
// nested collectives are admitted and lowered, every kernel gets its
// markers, and the checker then passes the whole output.
// The exchange is in place (send and recv are one buffer, so are the counts): peers write what a
// rank still sends, a race the checker reports; sync=false checks the markers alone.
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{lower-collectives=true sync=false})' -o %t.lowered
// RUN: FileCheck %s --check-prefix=LOWERED < %t.lowered
// RUN: ccl-opt %t.lowered -p 'builtin.module(ccl-verify-comm-order{sync=false})' -o /dev/null
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{sync=false})' -o %t.default
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.default
// RUN: ccl-opt %t.default -p 'builtin.module(ccl-verify-comm-order{sync=false})' -o /dev/null
// The same as the passes one by one on the whole module.
// RUN: ccl-opt %s -p 'builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v,ccl-insert-comm-fence,ccl-verify-comm-order{sync=false})' | diff %t.lowered -
// RUN: ccl-opt %s -p 'builtin.module(ccl-admit-launch-width,ccl-insert-comm-fence,ccl-verify-comm-order{sync=false})' | diff %t.default -
// The options reach the nested runs: a width above max-blocks in the deepest
// module is an error there, and the pipeline stops (exit 1).
// RUN: not ccl-opt %s -p 'builtin.module(ccl-pipeline{max-blocks=2})' 2>&1 | FileCheck %s --check-prefix=MAX
// MAX: nested-modules.mlir:[[# @LINE + 34]]:12: error: admitted launch width 4 exceeds max-blocks=2
// MAX-NOT: error

// LOWERED-LABEL: module @inner {
// LOWERED-LABEL:   func.func @publish(
// LOWERED:           ccl.tensor_write
// LOWERED-NEXT:      ccl.cacheinvalid %{{.*}} : memref<4xi32, #ccl.window>
// LOWERED-NEXT:      ccl.fence
// LOWERED-LABEL:   module @deeper {
// LOWERED-LABEL:     func.func @entry(
// LOWERED:             call @__ccl_all_to_all_v_p4_b4({{.*}}) {ccl.launch_width = 4 : i64}
// LOWERED:           func.func @__ccl_all_to_all_v_p4_b4(
// DEFAULT-LABEL: module @deeper {
// DEFAULT:         ccl.all_to_all_v {{.*}} {launch_width = 4 : i64}

func.func @top() attributes {ccl.kind = "orchestration"} {
  return
}

module @inner {
  func.func @publish(%w: memref<4xi32, #ccl.window>, %s: memref<1xi32, #ccl.window>) attributes {ccl.kind = "incore"} {
    %c0 = arith.constant 0 : index
    %v = arith.constant 1 : i32
    %peer = arith.constant 0 : i32
    %one = arith.constant 1 : i64
    ccl.tensor_write %w[%c0], %v : memref<4xi32, #ccl.window>, i32
    ccl.notify atomic_add %s, %peer, %one : memref<1xi32, #ccl.window>, i32, i64
    return
  }

  module @deeper {
    func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>)
        attributes {ccl.kind = "orchestration"} {
      %p = arith.constant 4 : i32
      %b = ccl.cal_all_to_all_v_blocks %p, %p : i32, i32
      ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig
          : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
      return
    }
  }
}
