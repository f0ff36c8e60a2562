// late-snapshot=true (test only): the old, racy order, for ccl-sim to
// catch. The peers' counts are read after Barrier B, when a peer that is
// past it may be restaging its send_counts for the next call. Everything
// else is as in the fixed protocol, and the markers still verify. This
// module makes one call, with no next call to race with, so the checker
// accepts it; Sim/all-to-all-v-late-snapshot.mlir makes two, and the
// checker rejects that (no synchronisation orders the late read).
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v{late-snapshot=true})' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence,ccl-verify-comm-order{ranks=4})' -o /dev/null
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s --check-prefix=FIXED
// RUN: ccl-opt %s --ccl-lower-all-to-all-v='late-snapshot=1' | FileCheck %s
// RUN: not ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v{late-snapshot=maybe})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not ccl-opt %s -p 'builtin.module(func.func(ccl-lower-all-to-all-v))' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BAD: ccl-opt: for the --late-snapshot option: 'maybe' is invalid value for boolean argument! Try 0 or 1
// BAD-NOT: func.func
// ANCHOR: error: Can't add pass 'CclLowerAllToAllV' restricted to 'builtin.module' on a PassManager intended to run on 'func.func'

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// CHECK-SAME:      ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "push", "barrier-b.notify", "barrier-b.wait", "snapshot", "reset"]
// CHECK-NOT:     ccl.remote_load
// CHECK:         ccl.notify atomic_add
// CHECK-NOT:     ccl.remote_load
// CHECK:         ccl.wait ge
// CHECK-NOT:     ccl.remote_load
// CHECK:         ccl.put
// CHECK-NOT:     ccl.remote_load
// CHECK:         ccl.notify atomic_add
// CHECK-NOT:     ccl.remote_load
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    ccl.wait ge %{{.*}}, %[[TWO]] :
// CHECK-NEXT:  }
// CHECK-NEXT:  }
// The snapshot, after Barrier B's last wait.
// CHECK-NEXT:  memref.subview
// CHECK-NEXT:  ccl.remote_load
// CHECK:       ccl.tensor_write
// CHECK:       arith.constant -2 : i32
// CHECK-NEXT:  ccl.notify atomic_add
// CHECK-NOT:   ccl.remote_load

// Without the option the snapshot is before the first put.
// FIXED-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// FIXED:         ccl.remote_load
// FIXED:         ccl.put
// FIXED-NOT:     ccl.remote_load

func.func @entry(%send: memref<8xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>,
                 %recv: memref<8xf32, #ccl.window>, %recv_counts: memref<4xi32>,
                 %signal: memref<4x4xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 4 : i32
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32>, i32,
        memref<4x4xi32, #ccl.window>
  return
}
