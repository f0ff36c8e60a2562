module {
  func.func @store0(%arg0: memref<4xi32, #ccl.window>, %arg1: i32) {
    %c2 = arith.constant 2 : index
    ccl.tensor_write %arg0[%c2], %arg1 : memref<4xi32, #ccl.window>, i32
    return
  }
  func.func @k0(%arg0: memref<4xi32, #ccl.window>, %arg1: memref<2xi32, #ccl.window>, %arg2: memref<3xi32>, %arg3: memref<1xi32, #ccl.window>, %arg4: i32) attributes {ccl.kind = "aic"} {
    %0 = ccl.rank : i32
    %1 = ccl.block_id : index
    %true = arith.constant true
    %c-1_i32 = arith.constant -1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c11_i32 = arith.constant 11 : i32
    %c21_i32 = arith.constant 21 : i32
    %c31_i32 = arith.constant 31 : i32
    %c1000_i32 = arith.constant 1000 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant dense<41> : vector<2xi32>
    %cst_0 = arith.constant dense<1041> : vector<2xi32>
    %2 = arith.muli %arg4, %c1000_i32 : i32
    %3 = arith.cmpi eq, %arg4, %c0_i32 : i32
    %4 = arith.addi %0, %c1_i32 : i32
    %5 = arith.remui %4, %c2_i32 : i32
    %6 = arith.addi %0, %c1_i32 : i32
    %7 = arith.remui %6, %c2_i32 : i32
    %8 = arith.index_cast %5 : i32 to index
    %9 = arith.index_cast %7 : i32 to index
    %subview = memref.subview %arg3[%c0] [1] [1] : memref<1xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %10 = arith.cmpi eq, %0, %c0_i32 : i32
    %11 = arith.cmpi eq, %0, %c1_i32 : i32
    scf.if %10 {
      %subview_1 = memref.subview %arg2[%c0] [1] [1] : memref<3xi32> to memref<1xi32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg0[%c2] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.get %subview_1, %subview_2, %5 : memref<1xi32, strided<[1], offset: ?>>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      %12 = ccl.read %subview_1[%c0] : memref<1xi32, strided<[1], offset: ?>> -> i32
      ccl.notify atomic_add %subview, %5, %c1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
      %13 = arith.muli %arg4, %c1_i32 : i32
      %14 = arith.addi %13, %c1_i32 : i32
      ccl.wait ge %subview, %14 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_3 = memref.subview %arg2[%c1] [1] [1] : memref<3xi32> to memref<1xi32, strided<[1], offset: ?>>
      %subview_4 = memref.subview %arg0[%c2] [1] [1] : memref<4xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %subview_5 = memref.subview %arg1[%c0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %15 = arith.cmpi eq, %0, %c0_i32 : i32
      %16 = arith.xori %15, %true : i1
      %17 = arith.select %16, %subview_5, %subview_4 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.get %subview_3, %17, %c1_i32 : memref<1xi32, strided<[1], offset: ?>>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      %18 = ccl.read %subview_3[%c0] : memref<1xi32, strided<[1], offset: ?>> -> i32
      %19 = arith.addi %2, %c11_i32 : i32
      %20 = arith.cmpi eq, %18, %19 : i32
      %subview_6 = memref.subview %arg2[%c2] [1] [1] : memref<3xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.if %20 {
        %22 = arith.addi %2, %c31_i32 : i32
        ccl.tensor_write %subview_6[%c0], %22 : memref<1xi32, strided<[1], offset: ?>>, i32
      } else {
        %22 = arith.addi %2, %c21_i32 : i32
        ccl.tensor_write %subview_6[%c0], %22 : memref<1xi32, strided<[1], offset: ?>>, i32
      }
      %21 = arith.select %3, %cst, %cst_0 : vector<2xi32>
      ccl.tile_store %21, %arg0[%c2] : vector<2xi32>, memref<4xi32, #ccl.window>
      ccl.cacheinvalid %arg0 : memref<4xi32, #ccl.window>
      ccl.fence
      ccl.notify atomic_add %subview, %c1_i32, %c2_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
      ccl.notify atomic_add %subview, %c1_i32, %c-1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
    } else {
      %12 = arith.muli %arg4, %c2_i32 : i32
      %13 = arith.addi %12, %c1_i32 : i32
      ccl.wait eq %subview, %13 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.cacheinvalid
      %14 = arith.addi %2, %c11_i32 : i32
      func.call @store0(%arg0, %14) : (memref<4xi32, #ccl.window>, i32) -> ()
      ccl.cacheinvalid
      ccl.fence
      scf.for %arg5 = %c0 to %c1 step %c1 {
        ccl.notify atomic_add %subview, %5, %c1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
      }
      %15 = arith.muli %arg4, %c2_i32 : i32
      %16 = arith.addi %15, %c2_i32 : i32
      ccl.wait ge %subview, %16 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_1 = memref.subview %arg2[%c0] [2] [1] : memref<3xi32> to memref<2xi32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg0[%c2] [2] [1] : memref<4xi32, #ccl.window> to memref<2xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.get %subview_1, %subview_2, %c0_i32 : memref<2xi32, strided<[1], offset: ?>>, memref<2xi32, strided<[1], offset: ?>, #ccl.window>, i32
      %17 = ccl.read %subview_1[%c0] : memref<2xi32, strided<[1], offset: ?>> -> i32
      %18 = ccl.read %arg3[%c0] : memref<1xi32, #ccl.window> -> i32
    }
    return
  }
  func.func @main(%arg0: memref<4xi32, #ccl.window>, %arg1: memref<2xi32, #ccl.window>, %arg2: memref<3xi32>, %arg3: memref<1xi32, #ccl.window>) attributes {ccl.level = "host", ccl.role = "orchestrator"} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    call @k0(%arg0, %arg1, %arg2, %arg3, %c0_i32) {ccl.launch_width = 1 : i64} : (memref<4xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<3xi32>, memref<1xi32, #ccl.window>, i32) -> ()
    call @k0(%arg0, %arg1, %arg2, %arg3, %c1_i32) : (memref<4xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<3xi32>, memref<1xi32, #ccl.window>, i32) -> ()
    return
  }
}

