// --mlir-pass-statistics reports what each Rust pass counted, in MLIR's
// report layout (Debian's MLIR compiles upstream statistics out); the header
// is byte for byte mlir-opt's.
// RUN: ccl-opt %s -p 'builtin.module(ccl-admit-launch-width)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(cse)' --mlir-pass-statistics -o /dev/null 2>&1 | head -n 3 > %t.ccl
// RUN: mlir-opt --irdl-file=%irdl %s -p 'builtin.module(cse)' --mlir-pass-statistics -o /dev/null 2>&1 | head -n 3 > %t.upstream
// RUN: diff %t.ccl %t.upstream
// CHECK: ... Pass statistics report ...
// CHECK: ccl-admit-launch-width
// CHECK-NEXT: (S) 2 ops-folded
// CHECK-NEXT: (S) 0 ops-merged
// CHECK-NEXT: (S) 0 ops-lowered
// CHECK-NEXT: (S) 1 launches-stamped
func.func @entry(%m: memref<64xf32, #ccl.window>, %c: memref<8xi32>) attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 10 : i32
  %b = "ccl.cal_all_to_all_v_blocks"(%p, %l) : (i32, i32) -> i32
  %l2 = arith.constant 3 : i32
  %b2 = "ccl.cal_all_to_all_v_blocks"(%p, %l2) : (i32, i32) -> i32
  "ccl.all_to_all_v"(%m, %c, %m, %c, %b) : (memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32) -> ()
  return
}
