// Every op of DIALECT.md in its documented form verifies, in ccl-opt and
// in upstream mlir-opt, and prints back unchanged (generic form).
// RUN: ccl-opt %s | FileCheck %s
// RUN: ccl-opt %s > %t.ccl
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: ccl-opt %t.ccl | diff %t.ccl -

// CHECK-LABEL: func.func @every_op
// CHECK: ccl.tile_store
// CHECK: ccl.tensor_write
// CHECK: ccl.get
// CHECK: ccl.remote_store
// CHECK: ccl.put
// CHECK: ccl.remote_load
// CHECK: ccl.tile_load
// CHECK: ccl.read
// CHECK: "ccl.notify"{{.*}}{op = "atomic_add"}
// CHECK: "ccl.wait"{{.*}}{cmp = "eq"}
// CHECK: ccl.fence{{$}}
// CHECK: ccl.cacheinvalid %{{.*}} : memref<64xf32, #ccl.window>
// CHECK: ccl.cacheinvalid{{$}}
// CHECK: "ccl.submit"{{.*}}{callee = @every_op}
// CHECK: "ccl.all_to_all_v"{{.*}}{launch_width = 8 : i64, signal_stride = 8 : i64}
// CHECK: "ccl.all_reduce"{{.*}}{reduce = "max"}
// CHECK: ccl.barrier{{$}}
// CHECK: ccl.cal_all_to_all_v_blocks
// CHECK: ccl.comm_size
// CHECK: ccl.rank
func.func @every_op(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %gm: memref<64xf32>,
                    %sig: memref<8xi32, #ccl.window>, %counts: memref<8xi32>, %i: index, %peer: i32,
                    %v: i64, %x: f32) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.tensor_write %win[%i], %x : memref<64xf32, #ccl.window>, f32
  ccl.get %win, %gm, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  ccl.remote_store %t, %win, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  ccl.put %win, %gm, %i : memref<64xf32, #ccl.window>, memref<64xf32>, index
  %r = ccl.remote_load %win, %peer : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
  %l = ccl.tile_load %gm[%i] : memref<64xf32> -> vector<16xf32>
  %s = ccl.read %counts[%i] : memref<8xi32> -> i32
  ccl.notify atomic_add %sig, %peer, %v : memref<8xi32, #ccl.window>, i32, i64
  ccl.wait eq %sig, %s : memref<8xi32, #ccl.window>, i32
  ccl.fence
  ccl.cacheinvalid %win : memref<64xf32, #ccl.window>
  ccl.cacheinvalid
  %res = ccl.submit @every_op(%i, %i) : (index, index) -> i32
  %c8 = arith.constant 8 : i32
  ccl.all_to_all_v %win, %counts, %win, %counts, blocks %c8 {launch_width = 8 : i64, signal_stride = 8 : i64}
      : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32
  ccl.all_reduce max %gm, %win : memref<64xf32>, memref<64xf32, #ccl.window>
  ccl.barrier
  %b = ccl.cal_all_to_all_v_blocks %peer, %v : i32, i64
  %p = ccl.comm_size : index
  %me = ccl.rank : i16
  return
}
