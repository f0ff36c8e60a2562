// A kernel made by an earlier run (known by its ccl.builtin_template_dir,
// its ccl.protocol, its argument types and its launch width) is reused by a
// collective with its signature; the pass makes no second one. A run with
// late-snapshot=true runs another protocol, so it makes its own kernel.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v{late-snapshot=true})' | FileCheck %s --check-prefix=LATE

// CHECK-LABEL: func.func @entry(
// CHECK:         call @kept(%arg0, %arg1, %arg0, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// The lookalike with another launch width is not reused.
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b2(
// CHECK-NOT:     func.func @__ccl_all_to_all_v_p4_b4

// LATE-LABEL: func.func @entry(
// LATE:         call @__ccl_all_to_all_v_p4_b4(%arg0, %arg1, %arg0, %arg1, %arg2) {ccl.launch_width = 4 : i64}
// LATE-NEXT:    call @__ccl_all_to_all_v_p4_b2(
// LATE:         func.func @__ccl_all_to_all_v_p4_b4({{.*}}ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "push", "barrier-b.notify", "barrier-b.wait", "snapshot", "reset"]

func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 4 : i32
  %b2 = arith.constant 2 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b2, signal %sig {launch_width = 2 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// As an earlier run left it (its body elided here: only the attributes and
// the types identify it).
func.func @kept(%send: memref<8xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>, %recv: memref<8xf32, #ccl.window>,
                %recv_counts: memref<4xi32, #ccl.window>, %signal: memref<4x4xi32, #ccl.window>)
    attributes {ccl.builtin_template_dir = "ccl-lower-all-to-all-v", ccl.kind = "aiv", ccl.launch_width = 4 : i64,
                ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "snapshot", "push", "barrier-b.notify", "barrier-b.wait", "reset"]} {
  return
}

// The same types at another width: not the kernel of the width-2 call.
func.func @other_width(%send: memref<8xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>, %recv: memref<8xf32, #ccl.window>,
                       %recv_counts: memref<4xi32, #ccl.window>, %signal: memref<4x4xi32, #ccl.window>)
    attributes {ccl.builtin_template_dir = "ccl-lower-all-to-all-v", ccl.kind = "aiv", ccl.launch_width = 8 : i64,
                ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "snapshot", "push", "barrier-b.notify", "barrier-b.wait", "reset"]} {
  return
}
