module {
  func.func @k0(%arg0: memref<2xi32, #ccl.window>, %arg1: memref<3xi32, #ccl.window>, %arg2: memref<2xi32>, %arg3: memref<2xi32, #ccl.window>, %arg4: i32) attributes {ccl.kind = "aiv", ccl.launch_width = 1 : i64} {
    %0 = ccl.rank : i32
    %1 = ccl.block_id : index
    %true = arith.constant true
    %c-1_i32 = arith.constant -1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c21_i32 = arith.constant 21 : i32
    %c31_i32 = arith.constant 31 : i32
    %c51_i32 = arith.constant 51 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant dense<11> : vector<1xi32>
    %cst_0 = arith.constant dense<41> : vector<1xi32>
    %2 = arith.addi %0, %c1_i32 : i32
    %3 = arith.remui %2, %c2_i32 : i32
    %4 = arith.addi %0, %c1_i32 : i32
    %5 = arith.remui %4, %c2_i32 : i32
    %6 = arith.index_cast %3 : i32 to index
    %7 = arith.index_cast %5 : i32 to index
    %subview = memref.subview %arg3[%c0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %8 = arith.cmpi eq, %0, %c0_i32 : i32
    %9 = arith.cmpi eq, %0, %c1_i32 : i32
    scf.if %8 {
      %c1_i32_1 = arith.constant 1 : i32
      ccl.wait ge %subview, %c1_i32_1 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_2 = memref.subview %arg2[%c0] [1] [1] : memref<2xi32> to memref<1xi32, strided<[1], offset: ?>>
      %subview_3 = memref.subview %arg0[%c1] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.get %subview_2, %subview_3, %3 : memref<1xi32, strided<[1], offset: ?>>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      %10 = ccl.read %subview_2[%c0] : memref<1xi32, strided<[1], offset: ?>> -> i32
      %11 = ccl.read %arg3[%c0] : memref<2xi32, #ccl.window> -> i32
      %12 = arith.cmpi sge, %11, %c1_i32 : i32
      %subview_4 = memref.subview %arg2[%c1] [1] [1] : memref<2xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.if %12 {
        ccl.tensor_write %subview_4[%c0], %c21_i32 : memref<1xi32, strided<[1], offset: ?>>, i32
      } else {
        ccl.tensor_write %subview_4[%c0], %c31_i32 : memref<1xi32, strided<[1], offset: ?>>, i32
      }
      %subview_5 = memref.subview %arg1[%c1] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.remote_store %cst_0, %subview_5, %3 : vector<1xi32>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.fence
      ccl.notify atomic_add %arg3, %5, %c1_i32 : memref<2xi32, #ccl.window>, i32, i32
      %c2_i32_6 = arith.constant 2 : i32
      ccl.wait eq %arg3, %c2_i32_6 : memref<2xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %13 = ccl.read %arg1[%c2] : memref<3xi32, #ccl.window> -> i32
      ccl.notify atomic_add %arg3, %c0_i32, %c-1_i32 : memref<2xi32, #ccl.window>, i32, i32
    }
    scf.if %9 {
      ccl.tile_store %cst, %arg0[%c1] : vector<1xi32>, memref<2xi32, #ccl.window>
      ccl.cacheinvalid %arg0 : memref<2xi32, #ccl.window>
      ccl.fence
      ccl.notify atomic_add %subview, %3, %c2_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
      ccl.notify atomic_add %arg3, %c0_i32, %c-1_i32 : memref<2xi32, #ccl.window>, i32, i32
      %c1_i32_1 = arith.constant 1 : i32
      ccl.wait ge %subview, %c1_i32_1 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.cacheinvalid
      %10 = ccl.read %arg1[%c1] : memref<3xi32, #ccl.window> -> i32
      %subview_2 = memref.subview %arg2[%c0] [1] [1] : memref<2xi32> to memref<1xi32, strided<[1], offset: ?>>
      %subview_3 = memref.subview %arg1[%c2] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.tensor_write %subview_2[%c0], %c51_i32 : memref<1xi32, strided<[1], offset: ?>>, i32
      ccl.put %subview_3, %subview_2, %3 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, memref<1xi32, strided<[1], offset: ?>>, i32
      ccl.fence
      ccl.notify atomic_add %arg3, %5, %c1_i32 : memref<2xi32, #ccl.window>, i32, i32
    }
    return
  }
  func.func @main(%arg0: memref<2xi32, #ccl.window>, %arg1: memref<3xi32, #ccl.window>, %arg2: memref<2xi32>, %arg3: memref<2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    call @k0(%arg0, %arg1, %arg2, %arg3, %c0_i32) : (memref<2xi32, #ccl.window>, memref<3xi32, #ccl.window>, memref<2xi32>, memref<2xi32, #ccl.window>, i32) -> ()
    return
  }
}

