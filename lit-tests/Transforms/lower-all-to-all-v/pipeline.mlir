// The pass writes no markers: lowered and then checked without
// ccl-insert-comm-fence, the kernel fails ccl-verify-comm-order (each put
// reaches Barrier B's notify unfenced; the waits reach the snapshot's
// remote read and the push's count read with no invalidate; the snapshot's
// write into a window-bound recv_counts is not flushed; the consumer after
// the call has no prologue). Through
// ccl-pipeline{lower-collectives=true ranks=4} (admit -> lower -> insert -> verify)
// it passes, with the markers insert placed, and the result re-parses
// upstream. The default pipeline keeps the collective as it is.
// RUN: not ccl-opt %s -p 'builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v,ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{lower-collectives=true ranks=4})' > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %t.mlir -o /dev/null
// RUN: ccl-opt %t.mlir -p 'builtin.module(ccl-verify-comm-order{ranks=4})' -o /dev/null
// RUN: ccl-opt %t.mlir -p 'builtin.module(ccl-pipeline{lower-collectives=true ranks=4})' | diff %t.mlir -
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{ranks=4})' | FileCheck %s --check-prefix=DEFAULT

// RAW-DAG: error: ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it
// RAW-DAG: note: the GM read (ccl.remote_load) it reaches
// RAW-DAG: note: the GM read (ccl.read) it reaches
// RAW-DAG: error: remote publish reaches a ccl.notify without ccl.fence
// RAW-DAG: note: the ccl.notify it reaches
// RAW-DAG: error: remote publish reaches the function's return without ccl.fence
// RAW-DAG: error: local publish reaches a ccl.notify without ccl.cacheinvalid of the written window followed by ccl.fence
// RAW-DAG: error: InCore function @consume is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence

// The entry: the width is folded (4 ranks, 6 cores -> 4), the collective
// is a call launching 4 blocks, and the consumer after it is marked.
// CHECK-LABEL: func.func @consume(
// CHECK-NEXT:    ccl.cacheinvalid{{$}}
// CHECK-NEXT:    ccl.fence{{$}}
// CHECK-LABEL: func.func @layer(
// CHECK:         call @__ccl_all_to_all_v_p4_b4({{.*}}) {ccl.launch_width = 4 : i64}
// CHECK-NEXT:    call @consume(
// CHECK-NOT:     ccl.all_to_all_v

// The kernel, in step order, with the markers of insert.
// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// Barrier A: no marker after a notify; one whole-GM invalidate after the
// wait loop (views are side-effect-free, so the loop is a pure wait loop).
// CHECK:           ccl.notify atomic_add
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   ccl.cacheinvalid
// CHECK:           ccl.wait ge
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  ccl.cacheinvalid{{$}}
// The snapshot: its write into the window-bound recv_counts is a local
// publish, so its region invalidate and a fence follow.
// CHECK-NEXT:  memref.subview
// CHECK-NEXT:  ccl.remote_load
// CHECK:       ccl.tensor_write %[[RC:arg[0-9]+]]{{\[}}
// CHECK-NEXT:  ccl.cacheinvalid %[[RC]] : memref<4xi32, #ccl.window>
// CHECK-NEXT:  ccl.fence{{$}}
// The push: a fence right after the put, before Barrier B's notify.
// CHECK:         ccl.put
// CHECK-NEXT:    ccl.fence{{$}}
// CHECK-NEXT:  }
// Barrier B, its invalidate, the reset.
// CHECK:           ccl.notify atomic_add
// CHECK:           ccl.wait ge
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  ccl.cacheinvalid{{$}}
// CHECK:           ccl.notify atomic_add
// CHECK-NOT:   ccl.fence
// CHECK:       return

// DEFAULT-LABEL: func.func @layer(
// DEFAULT:         ccl.all_to_all_v {{.*}} {launch_width = 4 : i64}
// DEFAULT-NOT:   __ccl_all_to_all_v

func.func @consume(%recv: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  %x = ccl.read %recv[%i] : memref<8xf32, #ccl.window> -> f32
  return
}

func.func @layer(%send: memref<8xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>,
                 %recv: memref<8xf32, #ccl.window>, %recv_counts: memref<4xi32, #ccl.window>,
                 %signal: memref<4x4xi32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  %ranks = arith.constant 4 : i32
  %cores = arith.constant 6 : i32
  %blocks = ccl.cal_all_to_all_v_blocks %ranks, %cores : i32, i32
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32,
        memref<4x4xi32, #ccl.window>
  func.call @consume(%recv, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  return
}
