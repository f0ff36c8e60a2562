// Rule 3: every ccl.all_to_all_v whose blocks operand is (now) a constant
// gets launch_width = B : i64, whatever the operand's integer type, wherever
// the launch sits. A stale launch_width is replaced; a dynamic width gets
// none (code generation reads the run-time value).
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width)' | FileCheck %s
// RUN: ccl-opt %s --pass-pipeline='builtin.module(func.func(ccl-admit-launch-width))' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o /dev/null

// CHECK-LABEL: func.func @launches(
// CHECK:         ccl.all_to_all_v {{.*}}, blocks %{{[^ ]+}} {launch_width = 4 : i64} : {{.*}}, i8{{$}}
// CHECK-NEXT:    ccl.all_to_all_v {{.*}}, blocks %{{[^ ]+}} {launch_width = 24 : i64, signal_stride = 32 : i64} : {{.*}}, index{{$}}
// CHECK-NEXT:    ccl.all_to_all_v {{.*}}, blocks %{{[^ ]+}} {launch_width = 4 : i64} : {{.*}}, i8{{$}}
// CHECK-NEXT:    ccl.all_to_all_v {{.*}}, blocks %{{[^ ]+}} : {{.*}}, i32{{$}}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      ccl.all_to_all_v {{.*}}, blocks %{{[^ ]+}} {launch_width = 24 : i64} : {{.*}}, index{{$}}
func.func @launches(%s: memref<?xi8>, %c: memref<?xi32>, %dyn: i32, %n: index) attributes {ccl.kind = "orchestration"} {
  %four = arith.constant 4 : i8
  %p = arith.constant 6 : index
  %l = arith.constant 29 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = ccl.cal_all_to_all_v_blocks %p, %l : index, index
  ccl.all_to_all_v %s, %c, %s, %c, blocks %four : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i8
  ccl.all_to_all_v %s, %c, %s, %c, blocks %b {signal_stride = 32 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, index
  ccl.all_to_all_v %s, %c, %s, %c, blocks %four {launch_width = 99 : i64} : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i8
  ccl.all_to_all_v %s, %c, %s, %c, blocks %dyn : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i32
  scf.for %i = %c0 to %n step %c1 {
    ccl.all_to_all_v %s, %c, %s, %c, blocks %b : memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, index
  }
  return
}
