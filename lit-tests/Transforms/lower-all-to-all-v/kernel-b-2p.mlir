// B = 2P (P = 4 ranks, B = 8 blocks, K = 2 lanes per peer): block blk
// serves peer blk / 2 at lane blk % 2. Only lane 0 snapshots the peer's
// count; each lane pushes its half of the peer's elements
// (flat_lane_slice: e = ceil(v / K), begin = min(lane * e, v),
// end = min(begin + e, v)). Between Barrier A's last wait and Barrier B's
// first notify, op by op.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | mlir-opt --load-dialect-plugin=%ccl_plugin -o /dev/null

// CHECK-LABEL: func.func @entry(
// CHECK:         call @__ccl_all_to_all_v_p4_b8({{.*}}) {ccl.launch_width = 8 : i64}

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b8(
// CHECK-SAME:      %[[SEND:[^:]+]]: memref<8x3xf32, #ccl.window>, %[[SC:[^:]+]]: memref<4xi32, #ccl.window>,
// CHECK-SAME:      %[[RECV:[^:]+]]: memref<8x3xf32, #ccl.window>, %[[RC:[^:]+]]: memref<4xi32>, %[[SIG:[^:]+]]: memref<4x8xi32, #ccl.window>)
// CHECK-SAME:      ccl.launch_width = 8 : i64
// CHECK-NEXT:    %[[SENDF:.*]] = memref.collapse_shape %[[SEND]]
// CHECK-NEXT:    %[[RECVF:.*]] = memref.collapse_shape %[[RECV]]
// CHECK-NEXT:    %[[ME:.*]] = ccl.rank : index
// CHECK-NEXT:    %[[BLK:.*]] = ccl.block_id : index
// Barrier A.
// CHECK:           ccl.notify atomic_add %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK:           ccl.wait ge %{{.*}}, %{{.*}} :
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// The snapshot, by lane 0 of the peer only (MR = 8 / 4 = 2).
// CHECK-NEXT:  %[[K:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[Q:.*]] = arith.divui %[[BLK]], %[[K]] : index
// CHECK-NEXT:  %[[LANE:.*]] = arith.remui %[[BLK]], %[[K]] : index
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %[[Z]] : index
// CHECK-NEXT:  scf.if %[[FIRST]] {
// CHECK-NEXT:    %[[MINE:.*]] = memref.subview %[[SC]][%[[ME]]] [1] [1]
// CHECK-NEXT:    %[[THEIRS:.*]] = ccl.remote_load %[[MINE]], %[[Q]] : {{.*}} -> i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[MR:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[ATLEAST:.*]] = arith.maxsi %[[THEIRS]], %[[LO]] : i32
// CHECK-NEXT:    %[[CLAMPED:.*]] = arith.minsi %[[ATLEAST]], %[[MR]] : i32
// CHECK-NEXT:    ccl.tensor_write %[[RC]][%[[Q]]], %[[CLAMPED]] : memref<4xi32>, i32
// CHECK-NEXT:  }
// The push of this lane's part of the rows * 3 elements.
// CHECK-NEXT:  %[[K:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[Q:.*]] = arith.divui %[[BLK]], %[[K]] : index
// CHECK-NEXT:  %[[LANE:.*]] = arith.remui %[[BLK]], %[[K]] : index
// CHECK-NEXT:  %[[N:.*]] = ccl.read %[[SC]][%[[Q]]] : memref<4xi32, #ccl.window> -> i32
// CHECK-NEXT:  %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[MR:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[ATLEAST:.*]] = arith.maxsi %[[N]], %[[LO]] : i32
// CHECK-NEXT:  %[[ROWS:.*]] = arith.minsi %[[ATLEAST]], %[[MR]] : i32
// CHECK-NEXT:  %[[ROWSI:.*]] = arith.index_cast %[[ROWS]] : i32 to index
// CHECK-NEXT:  %[[ROW:.*]] = arith.constant 3 : index
// CHECK-NEXT:  %[[V:.*]] = arith.muli %[[ROWSI]], %[[ROW]] : index
// CHECK-NEXT:  %[[K2:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[E:.*]] = arith.ceildivsi %[[V]], %[[K2]] : index
// CHECK-NEXT:  %[[START:.*]] = arith.muli %[[LANE]], %[[E]] : index
// CHECK-NEXT:  %[[BEGIN:.*]] = arith.minsi %[[START]], %[[V]] : index
// CHECK-NEXT:  %[[STOP:.*]] = arith.addi %[[BEGIN]], %[[E]] : index
// CHECK-NEXT:  %[[END:.*]] = arith.minsi %[[STOP]], %[[V]] : index
// CHECK-NEXT:  %[[LEN:.*]] = arith.subi %[[END]], %[[BEGIN]] : index
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[ANY:.*]] = arith.cmpi sgt, %[[LEN]], %[[Z]] : index
// CHECK-NEXT:  scf.if %[[ANY]] {
// CHECK-NEXT:    %[[BLOCK:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[FROMROW:.*]] = arith.muli %[[Q]], %[[BLOCK]] : index
// CHECK-NEXT:    %[[TOROW:.*]] = arith.muli %[[ME]], %[[BLOCK]] : index
// CHECK-NEXT:    %[[FROM:.*]] = arith.addi %[[FROMROW]], %[[BEGIN]] : index
// CHECK-NEXT:    %[[TO:.*]] = arith.addi %[[TOROW]], %[[BEGIN]] : index
// CHECK-NEXT:    %[[SRC:.*]] = memref.subview %[[SENDF]][%[[FROM]]] [%[[LEN]]] [1] : memref<24xf32, #ccl.window>
// CHECK-NEXT:    %[[DST:.*]] = memref.subview %[[RECVF]][%[[TO]]] [%[[LEN]]] [1] : memref<24xf32, #ccl.window>
// CHECK-NEXT:    ccl.put %[[DST]], %[[SRC]], %[[Q]] :
// CHECK-NEXT:  }
// Barrier B and the reset follow; no peer count is read after the push.
// CHECK-NEXT:  %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:  %{{.*}} = arith.constant 4 : index
// CHECK-NEXT:  %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:  scf.for
// CHECK-NOT:       ccl.remote_load
// CHECK:           %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      ccl.notify atomic_add %{{.*}}, %{{.*}}, %[[ONE]] :
// CHECK-NOT:       ccl.remote_load
// CHECK:           %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      ccl.wait ge %{{.*}}, %[[TWO]] :
// CHECK-NOT:       ccl.remote_load
// CHECK:           %[[UNDO:.*]] = arith.constant -2 : i32
// CHECK-NEXT:      ccl.notify atomic_add %{{.*}}, %[[ME]], %[[UNDO]] :
// CHECK-NOT:   {{^ +ccl\.}}
// CHECK:       return

func.func @entry(%send: memref<8x3xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>,
                 %recv: memref<8x3xf32, #ccl.window>, %recv_counts: memref<4xi32>,
                 %signal: memref<4x8xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 8 : i32
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 8 : i64}
      : memref<8x3xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8x3xf32, #ccl.window>, memref<4xi32>, i32,
        memref<4x8xi32, #ccl.window>
  return
}
