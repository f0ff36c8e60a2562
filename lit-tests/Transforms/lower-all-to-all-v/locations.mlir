// Every op of a step carries the step's name around the collective's own
// location, loc("ccl-lower-all-to-all-v.<step>"(file:line:col)), so dumps
// and the simulator's reports say which step an op belongs to, and a
// diagnostic about the kernel points at the collective in the source.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: not ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v,ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// The step list shows in a dump after the pass, as the kernel's ccl.protocol.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' --mlir-print-ir-after=ccl-lower-all-to-all-v -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: IR Dump After CclLowerAllToAllV (ccl-lower-all-to-all-v)
// DUMP: func.func @__ccl_all_to_all_v_p4_b4({{.*}}ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "snapshot", "push", "barrier-b.notify", "barrier-b.wait", "reset"]

// The call keeps the collective's location.
// CHECK-LABEL: func.func @entry(
// CHECK:         call @__ccl_all_to_all_v_p4_b4({{.*}}) loc("{{.*}}locations.mlir":[[LINE:[0-9]+]]:3)

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// CHECK:         ccl.rank : index loc("{{.*}}locations.mlir":[[LINE]]:3)
// CHECK:         ccl.notify atomic_add {{.*}} loc("ccl-lower-all-to-all-v.barrier-a.notify"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK:         ccl.wait ge {{.*}} loc("ccl-lower-all-to-all-v.barrier-a.wait"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK-NOT:     ccl.read
// CHECK:         ccl.remote_load {{.*}} loc("ccl-lower-all-to-all-v.snapshot"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK:         arith.minsi {{.*}} loc("ccl-lower-all-to-all-v.snapshot"(
// CHECK-NEXT:    ccl.tensor_write {{.*}} loc("ccl-lower-all-to-all-v.snapshot"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK-NEXT:    ccl.read {{.*}} loc("ccl-lower-all-to-all-v.push"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK:         ccl.put {{.*}} loc("ccl-lower-all-to-all-v.push"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK:         ccl.notify atomic_add {{.*}} loc("ccl-lower-all-to-all-v.barrier-b.notify"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK:         ccl.wait ge {{.*}} loc("ccl-lower-all-to-all-v.barrier-b.wait"("{{.*}}locations.mlir":[[LINE]]:3))
// CHECK:         ccl.notify atomic_add {{.*}} loc("ccl-lower-all-to-all-v.reset"("{{.*}}locations.mlir":[[LINE]]:3))
// The kernel's own return belongs to no step.
// CHECK:         return loc("{{.*}}locations.mlir":[[LINE]]:3)

// DIAG: locations.mlir:[[LINE:[0-9]+]]:3: error: ccl.wait reaches a GM read
// DIAG: locations.mlir:[[LINE]]:3: error: remote publish reaches a ccl.notify without ccl.fence

func.func @entry(%send: memref<8xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>,
                 %recv: memref<8xf32, #ccl.window>, %recv_counts: memref<4xi32>,
                 %signal: memref<4x4xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 4 : i32
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32>, i32,
        memref<4x4xi32, #ccl.window>
  return
}
