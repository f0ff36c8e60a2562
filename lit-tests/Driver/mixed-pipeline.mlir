// Rust passes and upstream passes in one pipeline, in any order and nesting.
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse),ccl-admit-launch-width,func.func(canonicalize,cse),ccl-insert-comm-fence,symbol-dce)' | FileCheck %s
// RUN: ccl-opt %s --cse --ccl-admit-launch-width --canonicalize --ccl-insert-comm-fence | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline,func.func(cse))' | FileCheck %s

// CHECK-LABEL: func.func @kernel
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %arg1 : memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.fence
// CHECK-LABEL: func.func @entry
// CHECK: ccl.all_to_all_v {{.*}}launch_width = 8 : i64
// CHECK-NEXT: call @kernel
func.func @kernel(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}

func.func @entry(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %c: memref<8xi32>, %i: index)
    attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 8 : i32
  %l = arith.constant 12 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  ccl.all_to_all_v %win, %c, %win, %c, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32
  func.call @kernel(%t, %win, %i) : (vector<16xf32>, memref<64xf32, #ccl.window>, index) -> ()
  return
}
