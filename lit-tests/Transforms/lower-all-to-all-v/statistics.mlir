// The pass counts the collectives it lowered, the kernels it made and the
// calls that reused one. A second run finds no collective.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' --mlir-pass-statistics -o %t.mlir 2>&1 | FileCheck %s
// RUN: ccl-opt %t.mlir -p 'builtin.module(ccl-lower-all-to-all-v)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=AGAIN

// CHECK:      CclLowerAllToAllV
// CHECK-NEXT:   (S) 3 collectives-lowered - ccl.all_to_all_v ops replaced by a kernel call
// CHECK-NEXT:   (S) 2 kernels-created     - Kernels synthesized (one per distinct signature)
// CHECK-NEXT:   (S) 1 kernels-reused      - Calls of a kernel made earlier for the same signature

// AGAIN:      CclLowerAllToAllV
// AGAIN-NEXT:   (S) 0 collectives-lowered
// AGAIN-NEXT:   (S) 0 kernels-created
// AGAIN-NEXT:   (S) 0 kernels-reused

func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  %b4 = arith.constant 4 : i32
  %b2 = arith.constant 2 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b4, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b4, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b2, signal %sig {launch_width = 2 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}
