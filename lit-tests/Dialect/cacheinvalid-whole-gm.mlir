// The whole-GM `ccl.cacheinvalid` has no operand, so the op after it may be
// read as its target: a `%name` that starts the next op's result list
// (`%v =`, `%a, %b =`, `%r:2 =`) is not one. The region form still takes its
// target, with or without a space before the colon. What ccl-opt prints
// parses back to itself, in ccl-opt and in upstream mlir-opt.
// RUN: ccl-opt %s | FileCheck %s
// RUN: ccl-opt %s > %t.ccl
// RUN: ccl-opt %t.ccl | diff %t.ccl -
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s | diff %t.ccl -
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %t.ccl | diff %t.ccl -

// CHECK-LABEL: func.func @then_results
// CHECK-SAME: (%[[W:[^:]*]]: memref<64xf32, #ccl.window>, %[[I:[^:]*]]: index)
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: %[[V:.*]] = ccl.read %[[W]][%[[I]]] : memref<64xf32, #ccl.window> -> f32
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: %[[AB:.*]]:2 = ccl.submit @two() : () -> (i32, i32)
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: %[[CD:.*]]:2 = ccl.submit @two() : () -> (i32, i32)
// CHECK-NEXT: ccl.cacheinvalid %[[W]] : memref<64xf32, #ccl.window>{{$}}
// CHECK-NEXT: ccl.cacheinvalid %[[W]] : memref<64xf32, #ccl.window> {note = 1 : i64}{{$}}
// CHECK-NEXT: ccl.cacheinvalid {note = 2 : i64}{{$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return %[[V]], %[[AB]]#1, %[[CD]]#0
func.func @then_results(%w: memref<64xf32, #ccl.window>, %i: index) -> (f32, i32, i32) {
  ccl.cacheinvalid
  %v = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  ccl.cacheinvalid // a comment between
  %a, %b = ccl.submit @two() : () -> (i32, i32)
  ccl.cacheinvalid
  %cd:2 = ccl.submit @two() : () -> (i32, i32)
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w: memref<64xf32, #ccl.window> {note = 1}
  ccl.cacheinvalid {note = 2}
  ccl.cacheinvalid
  return %v, %b, %cd#0 : f32, i32, i32
}

func.func private @two() -> (i32, i32)
