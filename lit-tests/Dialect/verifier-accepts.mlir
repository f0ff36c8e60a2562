// What the verifier's checks (invalid.mlir) still accept, under ccl-opt and
// upstream mlir-opt with the plugin alike: an unranked memref indexed with
// any number of indices, a rank-0 memref with none, signals of any integer
// width or index (unranked too), a submit of a declaration or of a function
// of its own nested module, and any positive ccl.launch_width.
// RUN: ccl-opt %s > %t.ccl
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: FileCheck %s < %t.ccl

// CHECK-LABEL: func.func @indices(
// CHECK-COUNT-4: ccl.
func.func @indices(%u: memref<*xi32>, %s: memref<f32>, %t: vector<4xf32>, %i: index) {
  %a = ccl.read %u[] : memref<*xi32> -> i32
  %b = ccl.read %u[%i, %i, %i] : memref<*xi32> -> i32
  %c = ccl.tile_load %s[] : memref<f32> -> vector<4xf32>
  ccl.tile_store %t, %s[] : vector<4xf32>, memref<f32>
  return
}

// CHECK-LABEL: func.func @signals(
// CHECK-COUNT-3: ccl.
func.func @signals(%a: memref<4xi64, #ccl.window>, %b: memref<?xindex>, %c: memref<*xi8>, %peer: i32, %v: i32) {
  ccl.notify set %a, %peer, %v : memref<4xi64, #ccl.window>, i32, i32
  ccl.wait eq %b, %v : memref<?xindex>, i32
  ccl.notify atomic_add %c, %peer, %v : memref<*xi8>, i32, i32
  return
}

// CHECK-LABEL: func.func private @declared(
func.func private @declared(i32) -> i32 attributes {ccl.kind = "aiv", ccl.launch_width = 8 : i64}

// CHECK-LABEL: func.func @launches(
// CHECK: ccl.submit @declared
// CHECK: call @declared({{.*}}) {ccl.launch_width = 1 : i32}
// CHECK: call @declared({{.*}}) {ccl.launch_width = 9223372036854775807 : i64}
func.func @launches(%x: i32) {
  %r = ccl.submit @declared(%x) : (i32) -> i32
  %s = func.call @declared(%x) {ccl.launch_width = 1 : i32} : (i32) -> i32
  %t = func.call @declared(%x) {ccl.launch_width = 9223372036854775807 : i64} : (i32) -> i32
  return
}

// CHECK-LABEL: module @inner
module @inner {
  func.func private @local()
  func.func @submit_local() {
    ccl.submit @local() : () -> ()
    return
  }
}
