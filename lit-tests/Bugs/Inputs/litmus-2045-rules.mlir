module {
  func.func @k0(%arg0: memref<3xi32, #ccl.window>, %arg1: memref<2xi32>, %arg2: memref<3xi32>, %arg3: memref<1xi32, #ccl.window>, %arg4: memref<1xi32, #ccl.window>, %arg5: memref<1xi32, #ccl.window>, %arg6: i32) attributes {ccl.kind = "aic", ccl.launch_width = 2 : i64} {
    ccl.cacheinvalid
    ccl.fence
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
    %c41_i32 = arith.constant 41 : i32
    %c1000_i32 = arith.constant 1000 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant dense<11> : vector<2xi32>
    %cst_0 = arith.constant dense<1011> : vector<2xi32>
    %2 = arith.muli %arg6, %c1000_i32 : i32
    %3 = arith.cmpi eq, %arg6, %c0_i32 : i32
    %4 = arith.addi %0, %c1_i32 : i32
    %5 = arith.remui %4, %c2_i32 : i32
    %6 = arith.addi %0, %c1_i32 : i32
    %7 = arith.remui %6, %c2_i32 : i32
    %8 = arith.index_cast %5 : i32 to index
    %9 = arith.index_cast %7 : i32 to index
    %subview = memref.subview %arg3[%c0] [1] [1] : memref<1xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %10 = arith.cmpi eq, %0, %c0_i32 : i32
    %11 = arith.cmpi eq, %0, %c1_i32 : i32
    %12 = arith.cmpi eq, %1, %c0 : index
    %13 = arith.cmpi eq, %1, %c1 : index
    %14 = arith.andi %10, %12 : i1
    %15 = arith.andi %10, %13 : i1
    %16 = arith.andi %11, %12 : i1
    scf.if %14 {
      %c1_i32_1 = arith.constant 1 : i32
      ccl.wait ge %arg5, %c1_i32_1 : memref<1xi32, #ccl.window>, i32
      %17 = arith.addi %2, %c41_i32 : i32
      ccl.wait eq %arg5, %17 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_2 = memref.subview %arg0[%c0] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %18 = ccl.read %subview_2[%c0] : memref<1xi32, strided<[1], offset: ?>, #ccl.window> -> i32
      %subview_3 = memref.subview %arg0[%c2] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %19 = ccl.remote_load %subview_3, %7 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
      %20 = arith.addi %2, %c41_i32 : i32
      %21 = arith.subi %c0_i32, %20 : i32
      ccl.notify atomic_add %arg5, %c0_i32, %21 : memref<1xi32, #ccl.window>, i32, i32
    }
    scf.if %15 {
      %subview_1 = memref.subview %arg1[%c0] [2] [1] : memref<2xi32> to memref<2xi32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg0[%c0] [2] [1] : memref<3xi32, #ccl.window> to memref<2xi32, strided<[1], offset: ?>, #ccl.window>
      %17 = arith.select %3, %cst, %cst_0 : vector<2xi32>
      ccl.tile_store %17, %subview_1[%c0] : vector<2xi32>, memref<2xi32, strided<[1], offset: ?>>
      ccl.put %subview_2, %subview_1, %5 : memref<2xi32, strided<[1], offset: ?>, #ccl.window>, memref<2xi32, strided<[1], offset: ?>>, i32
      ccl.fence
      ccl.notify atomic_add %subview, %c1_i32, %c2_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
      ccl.notify atomic_add %subview, %5, %c-1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32, i32
    }
    scf.if %16 {
      %17 = arith.muli %arg6, %c1_i32 : i32
      %18 = arith.addi %17, %c1_i32 : i32
      ccl.wait ge %subview, %18 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_1 = memref.subview %arg1[%c0] [2] [1] : memref<2xi32> to memref<2xi32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg0[%c0] [2] [1] : memref<3xi32, #ccl.window> to memref<2xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.get %subview_1, %subview_2, %0 : memref<2xi32, strided<[1], offset: ?>>, memref<2xi32, strided<[1], offset: ?>, #ccl.window>, i32
      %19 = ccl.read %subview_1[%c0] : memref<2xi32, strided<[1], offset: ?>> -> i32
      %20 = arith.addi %2, %c11_i32 : i32
      %21 = arith.subi %19, %20 : i32
      %22 = arith.index_cast %21 : i32 to index
      %subview_3 = memref.subview %arg2[%c0] [1] [1] : memref<3xi32> to memref<1xi32, strided<[1], offset: ?>>
      %23 = ccl.read %subview_3[%22] : memref<1xi32, strided<[1], offset: ?>> -> i32
      %subview_4 = memref.subview %arg0[%c0] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %24 = arith.addi %2, %c21_i32 : i32
      ccl.remote_store %24, %subview_4, %5 : i32, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.fence
      %25 = arith.cmpi eq, %1, %c0 : index
      %26 = arith.select %25, %arg5, %arg4 : memref<1xi32, #ccl.window>
      ccl.notify atomic_add %26, %c0_i32, %c1_i32 : memref<1xi32, #ccl.window>, i32, i32
      %subview_5 = memref.subview %arg2[%c1] [1] [1] : memref<3xi32> to memref<1xi32, strided<[1], offset: ?>>
      %27 = arith.addi %2, %c31_i32 : i32
      ccl.tensor_write %subview_5[%c0], %27 : memref<1xi32, strided<[1], offset: ?>>, i32
      %subview_6 = memref.subview %arg0[%c2] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.get %subview_6, %subview_5, %0 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, memref<1xi32, strided<[1], offset: ?>>, i32
      ccl.cacheinvalid %subview_6 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.fence
      %28 = arith.addi %2, %c41_i32 : i32
      ccl.notify set %arg5, %c0_i32, %28 : memref<1xi32, #ccl.window>, i32, i32
    }
    return
  }
  func.func @main(%arg0: memref<3xi32, #ccl.window>, %arg1: memref<2xi32>, %arg2: memref<3xi32>, %arg3: memref<1xi32, #ccl.window>, %arg4: memref<1xi32, #ccl.window>, %arg5: memref<1xi32, #ccl.window>) attributes {ccl.kind = "graph"} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    ccl.submit @k0(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %c0_i32) : (memref<3xi32, #ccl.window>, memref<2xi32>, memref<3xi32>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, i32) -> ()
    ccl.submit @k0(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %c1_i32) : (memref<3xi32, #ccl.window>, memref<2xi32>, memref<3xi32>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, i32) -> ()
    return
  }
}

