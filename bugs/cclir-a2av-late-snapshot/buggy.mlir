// cclir's own: the all_to_all_v count snapshot (docs/semantics.md,
// `ccl-lower-all-to-all-v`; the origin's review item). The protocol lowered
// with the old order (`ccl-lower-all-to-all-v{late-snapshot=true}`): a block
// reads each peer's send_counts (remote_load, step "snapshot") after Barrier B.
// A peer already past Barrier B returns, and its host restages send_counts for
// the next call while this rank still reads them. Two calls, P = 2, B = 1,
// each preceded by @stage; generated from docs/images/old-order-race.mlir by
//   ccl-opt -p 'builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true})'
module {
  func.func @stage(%arg0: memref<2xi32, #ccl.window>, %arg1: memref<2xi32, #ccl.window>, %arg2: index) attributes {ccl.kind = "aiv"} {
    %0 = ccl.rank : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1_0 = arith.constant 1 : index
    %c2_1 = arith.constant 2 : index
    scf.for %arg3 = %c0 to %c2 step %c1 {
      %1 = arith.addi %arg2, %0 : index
      %2 = arith.addi %1, %arg3 : index
      %3 = arith.remui %2, %c2_1 : index
      %4 = arith.index_cast %3 : index to i32
      ccl.tensor_write %arg1[%arg3], %4 : memref<2xi32, #ccl.window>, i32
      %5 = arith.muli %arg3, %c1_0 : index
      scf.for %arg4 = %c0 to %c1_0 step %c1 {
        %6 = arith.addi %5, %arg4 : index
        %7 = arith.index_cast %6 : index to i32
        ccl.tensor_write %arg0[%6], %7 : memref<2xi32, #ccl.window>, i32
      }
    }
    return
  }
  func.func @main(%arg0: memref<2xi32, #ccl.window>, %arg1: memref<2xi32, #ccl.window>, %arg2: memref<2xi32, #ccl.window>, %arg3: memref<2xi32>, %arg4: memref<2x1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
    %c1_i32 = arith.constant 1 : i32
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    scf.for %arg5 = %c0 to %c2 step %c1 {
      func.call @stage(%arg0, %arg1, %arg5) : (memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, index) -> ()
      func.call @__ccl_all_to_all_v_p2_b1(%arg0, %arg1, %arg2, %arg3, %arg4) {ccl.launch_width = 1 : i64} : (memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>, memref<2x1xi32, #ccl.window>) -> ()
    }
    return
  }
  func.func @__ccl_all_to_all_v_p2_b1(%arg0: memref<2xi32, #ccl.window>, %arg1: memref<2xi32, #ccl.window>, %arg2: memref<2xi32, #ccl.window>, %arg3: memref<2xi32>, %arg4: memref<2x1xi32, #ccl.window>) attributes {ccl.builtin_template_dir = "ccl-lower-all-to-all-v", ccl.kind = "aiv", ccl.launch_width = 1 : i64, ccl.protocol = ["barrier-a.notify", "barrier-a.wait", "push", "barrier-b.notify", "barrier-b.wait", "snapshot", "reset"]} {
    %0 = ccl.rank : index
    %1 = ccl.block_id : index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    scf.for %arg5 = %c0 to %c2 step %c1 {
      %2 = arith.cmpi ne, %arg5, %0 : index
      scf.if %2 {
        %subview = memref.subview %arg4[%0, %1] [1, 1] [1, 1] : memref<2x1xi32, #ccl.window> to memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>
        %c1_i32 = arith.constant 1 : i32
        ccl.notify atomic_add %subview, %arg5, %c1_i32 : memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>, index, i32
      }
    }
    %c0_0 = arith.constant 0 : index
    %c2_1 = arith.constant 2 : index
    %c1_2 = arith.constant 1 : index
    scf.for %arg5 = %c0_0 to %c2_1 step %c1_2 {
      %2 = arith.cmpi ne, %arg5, %0 : index
      scf.if %2 {
        %subview = memref.subview %arg4[%arg5, %1] [1, 1] [1, 1] : memref<2x1xi32, #ccl.window> to memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>
        %c1_i32 = arith.constant 1 : i32
        ccl.wait ge %subview, %c1_i32 : memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>, i32
      }
    }
    %c2_3 = arith.constant 2 : index
    %c1_4 = arith.constant 1 : index
    scf.for %arg5 = %1 to %c2_3 step %c1_4 {
      %2 = ccl.read %arg1[%arg5] : memref<2xi32, #ccl.window> -> i32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3 = arith.maxsi %2, %c0_i32 : i32
      %4 = arith.minsi %3, %c1_i32 : i32
      %5 = arith.index_cast %4 : i32 to index
      %c1_16 = arith.constant 1 : index
      %6 = arith.muli %5, %c1_16 : index
      %c0_17 = arith.constant 0 : index
      %7 = arith.cmpi sgt, %6, %c0_17 : index
      scf.if %7 {
        %c1_18 = arith.constant 1 : index
        %8 = arith.muli %arg5, %c1_18 : index
        %9 = arith.muli %0, %c1_18 : index
        %subview = memref.subview %arg0[%8] [%6] [1] : memref<2xi32, #ccl.window> to memref<?xi32, strided<[1], offset: ?>, #ccl.window>
        %subview_19 = memref.subview %arg2[%9] [%6] [1] : memref<2xi32, #ccl.window> to memref<?xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.put %subview_19, %subview, %arg5 : memref<?xi32, strided<[1], offset: ?>, #ccl.window>, memref<?xi32, strided<[1], offset: ?>, #ccl.window>, index
      }
    }
    %c0_5 = arith.constant 0 : index
    %c2_6 = arith.constant 2 : index
    %c1_7 = arith.constant 1 : index
    scf.for %arg5 = %c0_5 to %c2_6 step %c1_7 {
      %2 = arith.cmpi ne, %arg5, %0 : index
      scf.if %2 {
        %subview = memref.subview %arg4[%0, %1] [1, 1] [1, 1] : memref<2x1xi32, #ccl.window> to memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>
        %c1_i32 = arith.constant 1 : i32
        ccl.notify atomic_add %subview, %arg5, %c1_i32 : memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>, index, i32
      }
    }
    %c0_8 = arith.constant 0 : index
    %c2_9 = arith.constant 2 : index
    %c1_10 = arith.constant 1 : index
    scf.for %arg5 = %c0_8 to %c2_9 step %c1_10 {
      %2 = arith.cmpi ne, %arg5, %0 : index
      scf.if %2 {
        %subview = memref.subview %arg4[%arg5, %1] [1, 1] [1, 1] : memref<2x1xi32, #ccl.window> to memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>
        %c2_i32 = arith.constant 2 : i32
        ccl.wait ge %subview, %c2_i32 : memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>, i32
      }
    }
    %c2_11 = arith.constant 2 : index
    %c1_12 = arith.constant 1 : index
    scf.for %arg5 = %1 to %c2_11 step %c1_12 {
      %subview = memref.subview %arg1[%0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %2 = ccl.remote_load %subview, %arg5 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index -> i32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3 = arith.maxsi %2, %c0_i32 : i32
      %4 = arith.minsi %3, %c1_i32 : i32
      ccl.tensor_write %arg3[%arg5], %4 : memref<2xi32>, i32
    }
    %c0_13 = arith.constant 0 : index
    %c2_14 = arith.constant 2 : index
    %c1_15 = arith.constant 1 : index
    scf.for %arg5 = %c0_13 to %c2_14 step %c1_15 {
      %2 = arith.cmpi ne, %arg5, %0 : index
      scf.if %2 {
        %subview = memref.subview %arg4[%arg5, %1] [1, 1] [1, 1] : memref<2x1xi32, #ccl.window> to memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>
        %c-2_i32 = arith.constant -2 : i32
        ccl.notify atomic_add %subview, %0, %c-2_i32 : memref<1x1xi32, strided<[1, 1], offset: ?>, #ccl.window>, index, i32
      }
    }
    return
  }
}

