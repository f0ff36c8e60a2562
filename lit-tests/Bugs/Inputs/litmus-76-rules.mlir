module {
  func.func @k0(%arg0: memref<4xi32, #ccl.window>, %arg1: memref<4xi32>, %arg2: memref<1xi32, #ccl.window>, %arg3: memref<2xi32, #ccl.window>, %arg4: memref<2xi32, #ccl.window>, %arg5: memref<2xi32, #ccl.window>, %arg6: memref<2xi32>, %arg7: i32) attributes {ccl.kind = "aic", ccl.launch_width = 1 : i64} {
    ccl.cacheinvalid
    ccl.fence
    %0 = ccl.rank : i32
    %1 = ccl.block_id : index
    %true = arith.constant true
    %c-1_i32 = arith.constant -1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c31_i32 = arith.constant 31 : i32
    %c41_i32 = arith.constant 41 : i32
    %c51_i32 = arith.constant 51 : i32
    %c61_i32 = arith.constant 61 : i32
    %c71_i32 = arith.constant 71 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %cst = arith.constant dense<11> : vector<1xi32>
    %cst_0 = arith.constant dense<21> : vector<1xi32>
    %2 = arith.addi %0, %c1_i32 : i32
    %3 = arith.remui %2, %c2_i32 : i32
    %4 = arith.addi %0, %c1_i32 : i32
    %5 = arith.remui %4, %c2_i32 : i32
    %6 = arith.index_cast %3 : i32 to index
    %7 = arith.index_cast %5 : i32 to index
    %8 = arith.cmpi eq, %0, %c0_i32 : i32
    %9 = arith.cmpi eq, %0, %c1_i32 : i32
    scf.if %8 {
      %c1_i32_1 = arith.constant 1 : i32
      ccl.wait ge %arg2, %c1_i32_1 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %subview = memref.subview %arg0[%c1] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %subview_2 = memref.subview %arg0[%c3] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %10 = arith.cmpi eq, %0, %c0_i32 : i32
      %11 = arith.select %10, %subview, %subview_2 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %12 = ccl.remote_load %11, %c1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
      ccl.notify atomic_add %arg2, %0, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      ccl.tensor_write %arg0[%c3], %c31_i32 : memref<4xi32, #ccl.window>, i32
      ccl.cacheinvalid %arg0 : memref<4xi32, #ccl.window>
      ccl.fence
      ccl.cacheinvalid
      ccl.tensor_write %arg0[%c3], %c41_i32 : memref<4xi32, #ccl.window>, i32
      ccl.cacheinvalid %arg0 : memref<4xi32, #ccl.window>
      ccl.fence
      %subview_3 = memref.subview %arg0[%c3] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %subview_4 = memref.subview %arg0[%c0] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %13 = arith.cmpi eq, %0, %c0_i32 : i32
      %14 = arith.xori %13, %true : i1
      %15 = arith.select %14, %subview_4, %subview_3 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.cacheinvalid %15 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %16 = ccl.read %arg0[%c3] : memref<4xi32, #ccl.window> -> i32
      scf.for %arg8 = %c0 to %c2 step %c1 {
        ccl.notify atomic_add %arg2, %c1_i32, %c1_i32 : memref<1xi32, #ccl.window>, i32, i32
      }
      %cast = memref.cast %arg0 : memref<4xi32, #ccl.window> to memref<?xi32, #ccl.window>
      ccl.tensor_write %cast[%c2], %c61_i32 : memref<?xi32, #ccl.window>, i32
      ccl.cacheinvalid %cast : memref<?xi32, #ccl.window>
      ccl.fence
      ccl.notify atomic_add %arg2, %5, %c1_i32 : memref<1xi32, #ccl.window>, i32, i32
      %c1_i32_5 = arith.constant 1 : i32
      ccl.wait ge %arg2, %c1_i32_5 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_6 = memref.subview %arg0[%c0] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %17 = ccl.remote_load %subview_6, %c1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
      %18 = arith.subi %17, %c71_i32 : i32
      %19 = arith.index_cast %18 : i32 to index
      %subview_7 = memref.subview %arg1[%c0] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
      %20 = ccl.read %subview_7[%19] : memref<1xi32, strided<[1], offset: ?>> -> i32
    } else {
      %10 = ccl.read %arg5[%7] : memref<2xi32, #ccl.window> -> i32
      ccl.tile_store %cst, %arg0[%c1] : vector<1xi32>, memref<4xi32, #ccl.window>
      ccl.cacheinvalid %arg0 : memref<4xi32, #ccl.window>
      ccl.fence
      %subview = memref.subview %arg0[%c1] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.cacheinvalid %subview : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.tile_store %cst_0, %arg0[%c1] : vector<1xi32>, memref<4xi32, #ccl.window>
      ccl.cacheinvalid %arg0 : memref<4xi32, #ccl.window>
      ccl.fence
      ccl.cacheinvalid
      ccl.notify atomic_add %arg2, %c0_i32, %c2_i32 : memref<1xi32, #ccl.window>, i32, i32
      ccl.notify atomic_add %arg2, %c0_i32, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      %c2_i32_1 = arith.constant 2 : i32
      scf.for %arg8 = %c0 to %c1 step %c1 {
        ccl.wait ge %arg2, %c2_i32_1 : memref<1xi32, #ccl.window>, i32
      }
      ccl.cacheinvalid
      %subview_2 = memref.subview %arg0[%c3] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %11 = ccl.remote_load %subview_2, %c0_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
      %12 = arith.cmpi eq, %11, %c41_i32 : i32
      %subview_3 = memref.subview %arg1[%c0] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.if %12 {
        %c3_i32 = arith.constant 3 : i32
        ccl.wait ge %arg2, %c3_i32 : memref<1xi32, #ccl.window>, i32
        ccl.cacheinvalid
        %subview_4 = memref.subview %arg0[%c2] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        %13 = ccl.remote_load %subview_4, %c0_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
        ccl.tensor_write %arg0[%c0], %c71_i32 : memref<4xi32, #ccl.window>, i32
        ccl.cacheinvalid %arg0 : memref<4xi32, #ccl.window>
        ccl.fence
        %subview_5 = memref.subview %arg0[%c0] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.cacheinvalid %subview_5 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        %14 = ccl.read %arg0[%c0] : memref<4xi32, #ccl.window> -> i32
        ccl.notify atomic_add %arg2, %3, %c2_i32 : memref<1xi32, #ccl.window>, i32, i32
        ccl.notify atomic_add %arg2, %3, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      } else {
        ccl.tensor_write %subview_3[%c0], %c51_i32 : memref<1xi32, strided<[1], offset: ?>>, i32
      }
    }
    return
  }
  func.func @main(%arg0: memref<4xi32, #ccl.window>, %arg1: memref<4xi32>, %arg2: memref<1xi32, #ccl.window>, %arg3: memref<2xi32, #ccl.window>, %arg4: memref<2xi32, #ccl.window>, %arg5: memref<2xi32, #ccl.window>, %arg6: memref<2xi32>) attributes {ccl.kind = "graph"} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i32_0 = arith.constant 1 : i32
    ccl.all_to_all_v %arg3, %arg4, %arg5, %arg6, blocks %c1_i32_0 {launch_width = 1 : i64} : memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>, i32
    call @k0(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %c0_i32) : (memref<4xi32, #ccl.window>, memref<4xi32>, memref<1xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>, i32) -> ()
    return
  }
}

