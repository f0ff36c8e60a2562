// B < P (P = 4 ranks, B = 2 blocks, K = 0 lanes per peer): block blk owns
// peers blk, blk + B, ... < P at lane 0, and moves all of each one's rows.
// The whole kernel, op by op: Barrier A (notify, then wait), the snapshot
// of the peers' counts, the push, Barrier B, the -2 reset.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | mlir-opt --load-dialect-plugin=%ccl_plugin -o /dev/null

// The collective becomes a call that launches B blocks.
// CHECK-LABEL: func.func @entry(
// CHECK-NEXT:    %{{.*}} = arith.constant 2 : i32
// CHECK-NEXT:    call @__ccl_all_to_all_v_p4_b2(%arg0, %arg1, %arg2, %arg3, %arg4) {ccl.launch_width = 2 : i64}
// CHECK-SAME:      : (memref<8x4xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8x4xf32, #ccl.window>, memref<4xi32>, memref<4x8xi32, #ccl.window>) -> ()
// CHECK-NEXT:    return

// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b2(
// CHECK-SAME:      %[[SEND:[^:]+]]: memref<8x4xf32, #ccl.window>, %[[SC:[^:]+]]: memref<4xi32, #ccl.window>,
// CHECK-SAME:      %[[RECV:[^:]+]]: memref<8x4xf32, #ccl.window>, %[[RC:[^:]+]]: memref<4xi32>, %[[SIG:[^:]+]]: memref<4x8xi32, #ccl.window>)
// CHECK-SAME:      attributes {ccl.builtin_template_dir = "ccl-lower-all-to-all-v", ccl.kind = "aiv", ccl.launch_width = 2 : i64,
// CHECK-SAME:      ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "snapshot", "push", "barrier-b.notify", "barrier-b.wait", "reset"]}
// CHECK-NEXT:    %[[SENDF:.*]] = memref.collapse_shape %[[SEND]] {{\[\[}}0, 1]] : memref<8x4xf32, #ccl.window> into memref<32xf32, #ccl.window>
// CHECK-NEXT:    %[[RECVF:.*]] = memref.collapse_shape %[[RECV]] {{\[\[}}0, 1]] : memref<8x4xf32, #ccl.window> into memref<32xf32, #ccl.window>
// CHECK-NEXT:    %[[ME:.*]] = ccl.rank : index
// CHECK-NEXT:    %[[BLK:.*]] = ccl.block_id : index

// Barrier A, notify: +1 into signal[me, blk] of every peer p != me.
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[PEER:.*]] = %[[Z]] to %[[P]] step %[[ONE]] {
// CHECK-NEXT:      %[[NE:.*]] = arith.cmpi ne, %[[PEER]], %[[ME]] : index
// CHECK-NEXT:      scf.if %[[NE]] {
// CHECK-NEXT:        %[[CELL:.*]] = memref.subview %[[SIG]][%[[ME]], %[[BLK]]] [1, 1] [1, 1] : memref<4x8xi32, #ccl.window> to memref<1x1xi32, strided<[8, 1], offset: ?>, #ccl.window>
// CHECK-NEXT:        %[[V:.*]] = arith.constant 1 : i32
// CHECK-NEXT:        ccl.notify atomic_add %[[CELL]], %[[PEER]], %[[V]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// Barrier A, wait: signal[p, blk] >= 1 for every peer p != me.
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[PEER:.*]] = %[[Z]] to %[[P]] step %[[ONE]] {
// CHECK-NEXT:      %[[NE:.*]] = arith.cmpi ne, %[[PEER]], %[[ME]] : index
// CHECK-NEXT:      scf.if %[[NE]] {
// CHECK-NEXT:        %[[CELL:.*]] = memref.subview %[[SIG]][%[[PEER]], %[[BLK]]] [1, 1] [1, 1]
// CHECK-NEXT:        %[[V:.*]] = arith.constant 1 : i32
// CHECK-NEXT:        ccl.wait ge %[[CELL]], %[[V]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// Snapshot, right after the last wait of Barrier A: for each owned peer q,
// q's send_counts[me] (a remote read), clamped to 0..MR (MR = 8 / 4 = 2),
// into this rank's recv_counts[q].
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[B:.*]] = arith.constant 2 : index
// CHECK-NEXT:    scf.for %[[Q:.*]] = %[[BLK]] to %[[P]] step %[[B]] {
// CHECK-NEXT:      %[[MINE:.*]] = memref.subview %[[SC]][%[[ME]]] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
// CHECK-NEXT:      %[[THEIRS:.*]] = ccl.remote_load %[[MINE]], %[[Q]] : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index -> i32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[MR:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[ATLEAST:.*]] = arith.maxsi %[[THEIRS]], %[[LO]] : i32
// CHECK-NEXT:      %[[CLAMPED:.*]] = arith.minsi %[[ATLEAST]], %[[MR]] : i32
// CHECK-NEXT:      ccl.tensor_write %[[RC]][%[[Q]]], %[[CLAMPED]] : memref<4xi32>, i32
// CHECK-NEXT:    }

// Push: rows = clamp(send_counts[q], 0, MR), all rows * 4 elements of them
// from send[q * MR] into q's recv[me * MR], when there are any.
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[B:.*]] = arith.constant 2 : index
// CHECK-NEXT:    scf.for %[[Q:.*]] = %[[BLK]] to %[[P]] step %[[B]] {
// CHECK-NEXT:      %[[N:.*]] = ccl.read %[[SC]][%[[Q]]] : memref<4xi32, #ccl.window> -> i32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[MR:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[ATLEAST:.*]] = arith.maxsi %[[N]], %[[LO]] : i32
// CHECK-NEXT:      %[[ROWS:.*]] = arith.minsi %[[ATLEAST]], %[[MR]] : i32
// CHECK-NEXT:      %[[ROWSI:.*]] = arith.index_cast %[[ROWS]] : i32 to index
// CHECK-NEXT:      %[[ROW:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[LEN:.*]] = arith.muli %[[ROWSI]], %[[ROW]] : index
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[ANY:.*]] = arith.cmpi sgt, %[[LEN]], %[[Z]] : index
// CHECK-NEXT:      scf.if %[[ANY]] {
// CHECK-NEXT:        %[[BLOCK:.*]] = arith.constant 8 : index
// CHECK-NEXT:        %[[FROM:.*]] = arith.muli %[[Q]], %[[BLOCK]] : index
// CHECK-NEXT:        %[[TO:.*]] = arith.muli %[[ME]], %[[BLOCK]] : index
// CHECK-NEXT:        %[[SRC:.*]] = memref.subview %[[SENDF]][%[[FROM]]] [%[[LEN]]] [1] : memref<32xf32, #ccl.window> to memref<?xf32, strided<[1], offset: ?>, #ccl.window>
// CHECK-NEXT:        %[[DST:.*]] = memref.subview %[[RECVF]][%[[TO]]] [%[[LEN]]] [1] : memref<32xf32, #ccl.window> to memref<?xf32, strided<[1], offset: ?>, #ccl.window>
// CHECK-NEXT:        ccl.put %[[DST]], %[[SRC]], %[[Q]] : memref<?xf32, strided<[1], offset: ?>, #ccl.window>, memref<?xf32, strided<[1], offset: ?>, #ccl.window>, index
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// Barrier B, notify then wait for 2 (each peer's +1 of both barriers).
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[PEER:.*]] = %[[Z]] to %[[P]] step %[[ONE]] {
// CHECK-NEXT:      %[[NE:.*]] = arith.cmpi ne, %[[PEER]], %[[ME]] : index
// CHECK-NEXT:      scf.if %[[NE]] {
// CHECK-NEXT:        %[[CELL:.*]] = memref.subview %[[SIG]][%[[ME]], %[[BLK]]] [1, 1] [1, 1]
// CHECK-NEXT:        %[[V:.*]] = arith.constant 1 : i32
// CHECK-NEXT:        ccl.notify atomic_add %[[CELL]], %[[PEER]], %[[V]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[PEER:.*]] = %[[Z]] to %[[P]] step %[[ONE]] {
// CHECK-NEXT:      %[[NE:.*]] = arith.cmpi ne, %[[PEER]], %[[ME]] : index
// CHECK-NEXT:      scf.if %[[NE]] {
// CHECK-NEXT:        %[[CELL:.*]] = memref.subview %[[SIG]][%[[PEER]], %[[BLK]]] [1, 1] [1, 1]
// CHECK-NEXT:        %[[V:.*]] = arith.constant 2 : i32
// CHECK-NEXT:        ccl.wait ge %[[CELL]], %[[V]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// The reset without a reset: -2 into this rank's own cells signal[p, blk]
// (p != me), so the next call starts from 0.
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[PEER:.*]] = %[[Z]] to %[[P]] step %[[ONE]] {
// CHECK-NEXT:      %[[NE:.*]] = arith.cmpi ne, %[[PEER]], %[[ME]] : index
// CHECK-NEXT:      scf.if %[[NE]] {
// CHECK-NEXT:        %[[CELL:.*]] = memref.subview %[[SIG]][%[[PEER]], %[[BLK]]] [1, 1] [1, 1]
// CHECK-NEXT:        %[[V:.*]] = arith.constant -2 : i32
// CHECK-NEXT:        ccl.notify atomic_add %[[CELL]], %[[ME]], %[[V]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// Nothing after Barrier B reads a peer's counts, and nothing reads them twice.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' | FileCheck %s --check-prefix=ONCE
// ONCE-COUNT-1: ccl.remote_load
// ONCE-NOT:     ccl.remote_load

func.func @entry(%send: memref<8x4xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>,
                 %recv: memref<8x4xf32, #ccl.window>, %recv_counts: memref<4xi32>,
                 %signal: memref<4x8xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 2 : i32
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 2 : i64}
      : memref<8x4xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8x4xf32, #ccl.window>, memref<4xi32>, i32,
        memref<4x8xi32, #ccl.window>
  return
}
