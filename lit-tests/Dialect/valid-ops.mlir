// Every ccl op in its custom syntax verifies, in ccl-opt and in upstream
// mlir-opt with the dialect plugin, prints in that syntax, and parses back
// to the same text; the generic form (--mlir-print-op-generic) round-trips
// too.
// RUN: ccl-opt %s | FileCheck %s
// RUN: ccl-opt %s > %t.ccl
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: ccl-opt %t.ccl | diff %t.ccl -
// RUN: ccl-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: ccl-opt %s --mlir-print-op-generic | ccl-opt | diff %t.ccl -

// CHECK-LABEL: func.func @every_op
// CHECK-SAME: (%[[T:[^:]*]]: vector<16xf32>, %[[WIN:[^:]*]]: memref<64xf32, #ccl.window>, %[[GM:[^:]*]]: memref<64xf32>,
// CHECK-SAME: %[[SIG:[^:]*]]: memref<8xi32, #ccl.window>, %[[CNT:[^:]*]]: memref<8xi32>, %[[I:[^:]*]]: index,
// CHECK-SAME: %[[PEER:[^:]*]]: i32, %[[V:[^:]*]]: i64, %[[X:[^:]*]]: f32)
// CHECK-NEXT: ccl.tile_store %[[T]], %[[WIN]][%[[I]]] : vector<16xf32>, memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.tensor_write %[[WIN]][%[[I]]], %[[X]] : memref<64xf32, #ccl.window>, f32
// CHECK-NEXT: ccl.get %[[WIN]], %[[GM]], %[[PEER]] : memref<64xf32, #ccl.window>, memref<64xf32>, i32
// CHECK-NEXT: ccl.remote_store %[[T]], %[[WIN]], %[[PEER]] : vector<16xf32>, memref<64xf32, #ccl.window>, i32
// CHECK-NEXT: ccl.put %[[WIN]], %[[GM]], %[[I]] : memref<64xf32, #ccl.window>, memref<64xf32>, index
// CHECK-NEXT: = ccl.remote_load %[[WIN]], %[[PEER]] : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
// CHECK-NEXT: = ccl.tile_load %[[GM]][%[[I]]] : memref<64xf32> -> vector<16xf32>
// CHECK-NEXT: %[[S:.*]] = ccl.read %[[CNT]][%[[I]]] : memref<8xi32> -> i32
// CHECK-NEXT: ccl.notify atomic_add %[[SIG]], %[[PEER]], %[[V]] : memref<8xi32, #ccl.window>, i32, i64
// CHECK-NEXT: ccl.wait eq %[[SIG]], %[[S]] : memref<8xi32, #ccl.window>, i32
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: ccl.cacheinvalid %[[WIN]] : memref<64xf32, #ccl.window>{{$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: = ccl.submit @every_op(%[[I]], %[[I]]) : (index, index) -> i32
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: ccl.all_to_all_v %[[WIN]], %[[CNT]], %[[WIN]], %[[CNT]], blocks %[[C8]] {launch_width = 8 : i64, signal_stride = 8 : i64} : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32{{$}}
// CHECK-NEXT: ccl.all_reduce max %[[GM]], %[[WIN]] : memref<64xf32>, memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.barrier{{$}}
// CHECK-NEXT: = ccl.cal_all_to_all_v_blocks %[[PEER]], %[[V]] : i32, i64
// CHECK-NEXT: = ccl.comm_size : index
// CHECK-NEXT: = ccl.rank : i16
// CHECK-NEXT: = ccl.block_id : i32
// CHECK-NEXT: %[[SIG2:.*]] = memref.alloc() : memref<8x8xi32, #ccl.window>
// CHECK-NEXT: ccl.all_to_all_v %[[WIN]], %[[CNT]], %[[WIN]], %[[CNT]], blocks %[[C8]], signal %[[SIG2]] : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32, memref<8x8xi32, #ccl.window>{{$}}
// CHECK-NEXT: return

// The generic form spells the enums as dialect attributes; the optional
// signal is a sixth operand or none.
// GENERIC: "ccl.notify"({{.*}}) <{op = #ccl<notify_kind atomic_add>}>
// GENERIC: "ccl.wait"({{.*}}) <{cmp = #ccl<wait_cmp eq>}>
// GENERIC: "ccl.all_to_all_v"({{[^,]*, [^,]*, [^,]*, [^,]*, [^,]*}}) <{launch_width = 8 : i64, signal_stride = 8 : i64}>
// GENERIC: "ccl.all_reduce"({{.*}}) <{reduce = #ccl<reduce_kind max>}>
// GENERIC: "ccl.all_to_all_v"({{[^,]*, [^,]*, [^,]*, [^,]*, [^,]*, [^,]*}}) : ({{.*}}, memref<8x8xi32, #ccl.window>) -> ()

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
  %blk = ccl.block_id : i32
  %sig2 = memref.alloc() : memref<8x8xi32, #ccl.window>
  ccl.all_to_all_v %win, %counts, %win, %counts, blocks %c8, signal %sig2
      : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32,
        memref<8x8xi32, #ccl.window>
  return
}
