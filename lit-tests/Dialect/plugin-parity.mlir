// The dialect ccl-opt links is the one upstream mlir-opt loads from the
// plugin: both accept the same program and print it the same way.
// RUN: ccl-opt %s > %t.ccl
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: FileCheck %s < %t.ccl

// CHECK-LABEL: func.func @publish
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.notify set
func.func @publish(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                   %i: index, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.notify set %sig, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
  return
}
