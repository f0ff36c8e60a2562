// --mlir-pass-statistics reports what each Rust pass counted, in MLIR's
// report layout (Debian's MLIR compiles upstream statistics out, so only the
// Rust passes have entries); the header is byte for byte mlir-opt's.
// RUN: ccl-opt %s -p 'builtin.module(ccl-admit-launch-width,func.func(cse),ccl-verify-comm-order)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(cse)' --mlir-pass-statistics -o /dev/null 2>&1 | head -n 3 > %t.ccl
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -p 'builtin.module(cse)' --mlir-pass-statistics -o /dev/null 2>&1 | head -n 3 > %t.upstream
// RUN: diff %t.ccl %t.upstream
// CHECK: ... Pass statistics report ...
// CHECK: {{^}}CclAdmitLaunchWidth
// CHECK-NEXT: {{^}}  (S) 1 launches-stamped - launches stamped with launch_width
// CHECK-NEXT: {{^}}  (S) 2 ops-folded       - cal ops folded into a constant
// CHECK-NEXT: {{^}}  (S) 0 ops-lowered      - cal ops lowered to arith
// CHECK-NEXT: {{^}}  (S) 0 ops-merged       - duplicate cal ops merged into the first
// CHECK-NEXT: {{^}}CclVerifyCommOrder
// CHECK-NEXT: {{^}}  (S) 1 kernels-checked

// List display: one entry per pass name, sorted.
// RUN: ccl-opt %s -p 'builtin.module(ccl-verify-comm-order,ccl-admit-launch-width,ccl-verify-comm-order)' --mlir-pass-statistics --mlir-pass-statistics-display=list -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: {{^}}  CclAdmitLaunchWidth
// LIST: {{^}}  CclVerifyCommOrder
// LIST-NEXT: {{^}}    (S) 2 kernels-checked
func.func @entry(%m: memref<64xf32, #ccl.window>, %c: memref<8xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 10 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  %l2 = arith.constant 3 : i32
  %b2 = ccl.cal_all_to_all_v_blocks %p, %l2 : i32, i32
  ccl.all_to_all_v %m, %c, %m, %c, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32
  return
}

func.func @kernel() attributes {ccl.kind = "incore"} {
  return
}
