// B = P (P = 4 ranks, B = 4 blocks, K = 1 lane per peer): block blk is the
// one block of peer blk, so the snapshot and the push need no loop. Between
// the last wait of Barrier A and Barrier B's first notify, op by op.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | mlir-opt --load-dialect-plugin=%ccl_plugin -o /dev/null

// CHECK-LABEL: func.func @entry(
// CHECK:         call @__ccl_all_to_all_v_p4_b4({{.*}}) {ccl.launch_width = 4 : i64}

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// CHECK-SAME:      %[[SEND:[^:]+]]: memref<4x2xi16, #ccl.window>, %[[SC:[^:]+]]: memref<4xi64, #ccl.window>,
// CHECK-SAME:      %[[RECV:[^:]+]]: memref<4x2xi16, #ccl.window>, %[[RC:[^:]+]]: memref<4xi64, #ccl.window>, %[[SIG:[^:]+]]: memref<4x4xi32, #ccl.window>)
// CHECK-SAME:      ccl.launch_width = 4 : i64
// CHECK-NEXT:    %[[SENDF:.*]] = memref.collapse_shape %[[SEND]]
// CHECK-NEXT:    %[[RECVF:.*]] = memref.collapse_shape %[[RECV]]
// CHECK-NEXT:    %[[ME:.*]] = ccl.rank : index
// CHECK-NEXT:    %[[BLK:.*]] = ccl.block_id : index
// Barrier A.
// CHECK:           ccl.notify atomic_add %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK:           ccl.wait ge %{{.*}}, %{{.*}} :
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// The snapshot of peer blk's send_counts[me] (MR = 4 / 4 = 1).
// CHECK-NEXT:  %[[MINE:.*]] = memref.subview %[[SC]][%[[ME]]] [1] [1]
// CHECK-NEXT:  %[[THEIRS:.*]] = ccl.remote_load %[[MINE]], %[[BLK]] : {{.*}} -> i64
// CHECK-NEXT:  %[[LO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:  %[[MR:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  %[[ATLEAST:.*]] = arith.maxsi %[[THEIRS]], %[[LO]] : i64
// CHECK-NEXT:  %[[CLAMPED:.*]] = arith.minsi %[[ATLEAST]], %[[MR]] : i64
// CHECK-NEXT:  ccl.tensor_write %[[RC]][%[[BLK]]], %[[CLAMPED]] : memref<4xi64, #ccl.window>, i64
// The push of all rows to peer blk, with no lane arithmetic (K = 1).
// CHECK-NEXT:  %[[N:.*]] = ccl.read %[[SC]][%[[BLK]]] : memref<4xi64, #ccl.window> -> i64
// CHECK-NEXT:  %[[LO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:  %[[MR:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  %[[ATLEAST:.*]] = arith.maxsi %[[N]], %[[LO]] : i64
// CHECK-NEXT:  %[[ROWS:.*]] = arith.minsi %[[ATLEAST]], %[[MR]] : i64
// CHECK-NEXT:  %[[ROWSI:.*]] = arith.index_cast %[[ROWS]] : i64 to index
// CHECK-NEXT:  %[[ROW:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[LEN:.*]] = arith.muli %[[ROWSI]], %[[ROW]] : index
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[ANY:.*]] = arith.cmpi sgt, %[[LEN]], %[[Z]] : index
// CHECK-NEXT:  scf.if %[[ANY]] {
// CHECK-NEXT:    %[[BLOCK:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[FROM:.*]] = arith.muli %[[BLK]], %[[BLOCK]] : index
// CHECK-NEXT:    %[[TO:.*]] = arith.muli %[[ME]], %[[BLOCK]] : index
// CHECK-NEXT:    %[[SRC:.*]] = memref.subview %[[SENDF]][%[[FROM]]] [%[[LEN]]] [1] : memref<8xi16, #ccl.window>
// CHECK-NEXT:    %[[DST:.*]] = memref.subview %[[RECVF]][%[[TO]]] [%[[LEN]]] [1] : memref<8xi16, #ccl.window>
// CHECK-NEXT:    ccl.put %[[DST]], %[[SRC]], %[[BLK]] :
// CHECK-NEXT:  }
// Barrier B and the reset follow.
// CHECK-NEXT:  %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:  %{{.*}} = arith.constant 4 : index
// CHECK-NEXT:  %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:  scf.for
// CHECK:           %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      ccl.notify atomic_add %{{.*}}, %{{.*}}, %[[ONE]] :
// CHECK:           %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      ccl.wait ge %{{.*}}, %[[TWO]] :
// CHECK:           %[[UNDO:.*]] = arith.constant -2 : i32
// CHECK-NEXT:      ccl.notify atomic_add %{{.*}}, %[[ME]], %[[UNDO]] :
// CHECK-NOT:   {{^ +ccl\.}}
// CHECK:       return

// i64 counts in a window-bound recv_counts, two-element rows of i16.
func.func @entry(%send: memref<4x2xi16, #ccl.window>, %send_counts: memref<4xi64, #ccl.window>,
                 %recv: memref<4x2xi16, #ccl.window>, %recv_counts: memref<4xi64, #ccl.window>,
                 %signal: memref<4x4xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 4 : index
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 4 : i64}
      : memref<4x2xi16, #ccl.window>, memref<4xi64, #ccl.window>, memref<4x2xi16, #ccl.window>, memref<4xi64, #ccl.window>,
        index, memref<4x4xi32, #ccl.window>
  return
}
