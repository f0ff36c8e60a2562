module {
  func.func @k0(%arg0: memref<3xi32, #ccl.window>, %arg1: memref<1xi32>, %arg2: memref<1xi32, #ccl.window>, %arg3: memref<3xi32, #ccl.window>, %arg4: i32) attributes {ccl.kind = "aic"} {
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
    %c51_i32 = arith.constant 51 : i32
    %c61_i32 = arith.constant 61 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant dense<11> : vector<1xi32>
    %cst_0 = arith.constant dense<41> : vector<2xi32>
    %2 = arith.addi %0, %c1_i32 : i32
    %3 = arith.remui %2, %c2_i32 : i32
    %4 = arith.addi %0, %c1_i32 : i32
    %5 = arith.remui %4, %c2_i32 : i32
    %6 = arith.index_cast %3 : i32 to index
    %7 = arith.index_cast %5 : i32 to index
    %8 = arith.cmpi eq, %0, %c0_i32 : i32
    %9 = arith.cmpi eq, %0, %c1_i32 : i32
    scf.if %8 {
      %subview = memref.subview %arg0[%c1] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.remote_store %cst, %subview, %3 : vector<1xi32>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.fence
      ccl.notify atomic_add %arg2, %c1_i32, %c2_i32 : memref<1xi32, #ccl.window>, i32, i32
      ccl.notify atomic_add %arg2, %c1_i32, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      %c1_i32_1 = arith.constant 1 : i32
      ccl.wait ge %arg2, %c1_i32_1 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      scf.for %arg5 = %c0 to %c2 step %c1 {
        %15 = arith.addi %arg5, %c1 : index
        %16 = ccl.read %arg0[%15] : memref<3xi32, #ccl.window> -> i32
      }
      ccl.notify atomic_add %arg2, %0, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      %c1_i32_2 = arith.constant 1 : i32
      ccl.wait eq %arg2, %c1_i32_2 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %subview_3 = memref.subview %arg0[%c2] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %subview_4 = memref.subview %arg0[%c1] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %10 = arith.cmpi eq, %0, %c0_i32 : i32
      %11 = arith.xori %10, %true : i1
      %12 = arith.select %11, %subview_4, %subview_3 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %13 = ccl.remote_load %12, %c1_i32 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
      %14 = arith.cmpi eq, %13, %c51_i32 : i32
      %subview_5 = memref.subview %arg1[%c0] [1] [1] : memref<1xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.if %14 {
      } else {
        ccl.tensor_write %subview_5[%c0], %c61_i32 : memref<1xi32, strided<[1], offset: ?>>, i32
      }
    }
    scf.if %9 {
      %c1_i32_1 = arith.constant 1 : i32
      ccl.wait ge %arg2, %c1_i32_1 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %10 = ccl.read %arg0[%c1] : memref<3xi32, #ccl.window> -> i32
      %11 = arith.cmpi eq, %10, %c11_i32 : i32
      %alloc = memref.alloc() : memref<1xi32>
      scf.if %11 {
        ccl.tensor_write %alloc[%c0], %c31_i32 : memref<1xi32>, i32
      } else {
        ccl.tensor_write %alloc[%c0], %c21_i32 : memref<1xi32>, i32
      }
      ccl.notify atomic_add %arg2, %0, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      %alloc_2 = memref.alloc() : memref<2xi32>
      %subview = memref.subview %arg0[%c1] [2] [1] : memref<3xi32, #ccl.window> to memref<2xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.tile_store %cst_0, %alloc_2[%c0] : vector<2xi32>, memref<2xi32>
      ccl.put %subview, %alloc_2, %3 : memref<2xi32, strided<[1], offset: ?>, #ccl.window>, memref<2xi32>, i32
      ccl.fence
      ccl.notify atomic_add %arg2, %3, %c2_i32 : memref<1xi32, #ccl.window>, i32, i32
      ccl.notify atomic_add %arg2, %5, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
      ccl.tensor_write %arg0[%c2], %c51_i32 : memref<3xi32, #ccl.window>, i32
      ccl.cacheinvalid %arg0 : memref<3xi32, #ccl.window>
      ccl.fence
      %subview_3 = memref.subview %arg0[%c2] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.cacheinvalid %subview_3 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %12 = ccl.read %arg0[%c2] : memref<3xi32, #ccl.window> -> i32
      ccl.notify atomic_add %arg2, %c0_i32, %c1_i32 : memref<1xi32, #ccl.window>, i32, i32
    }
    return
  }
  func.func @k1(%arg0: memref<3xi32, #ccl.window>, %arg1: memref<1xi32>, %arg2: memref<1xi32, #ccl.window>, %arg3: memref<3xi32, #ccl.window>, %arg4: i32) attributes {ccl.kind = "aiv"} {
    ccl.cacheinvalid
    ccl.fence
    %0 = ccl.rank : i32
    %1 = ccl.block_id : index
    %true = arith.constant true
    %c-1_i32 = arith.constant -1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c51_i32 = arith.constant 51 : i32
    %c71_i32 = arith.constant 71 : i32
    %c81_i32 = arith.constant 81 : i32
    %c91_i32 = arith.constant 91 : i32
    %c101_i32 = arith.constant 101 : i32
    %c111_i32 = arith.constant 111 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %2 = arith.addi %0, %c1_i32 : i32
    %3 = arith.remui %2, %c2_i32 : i32
    %4 = arith.addi %0, %c1_i32 : i32
    %5 = arith.remui %4, %c2_i32 : i32
    %6 = arith.index_cast %3 : i32 to index
    %7 = arith.index_cast %5 : i32 to index
    %8 = arith.cmpi eq, %0, %c0_i32 : i32
    %9 = arith.cmpi eq, %0, %c1_i32 : i32
    scf.if %8 {
      %c2_i32_0 = arith.constant 2 : i32
      ccl.wait ge %arg2, %c2_i32_0 : memref<1xi32, #ccl.window>, i32
      ccl.cacheinvalid
      %subview = memref.subview %arg0[%c1] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %subview_1 = memref.subview %arg0[%c2] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %10 = arith.cmpi eq, %0, %c0_i32 : i32
      %11 = arith.xori %10, %true : i1
      %12 = arith.select %11, %subview_1, %subview : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      %13 = ccl.remote_load %12, %5 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32 -> i32
      %subview_2 = memref.subview %arg0[%c0] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.remote_store %c91_i32, %subview_2, %5 : i32, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      ccl.fence
      ccl.notify set %arg2, %3, %c101_i32 : memref<1xi32, #ccl.window>, i32, i32
    } else {
      %10 = ccl.read %arg0[%c2] : memref<3xi32, #ccl.window> -> i32
      ccl.cacheinvalid
      %11 = arith.cmpi eq, %10, %c51_i32 : i32
      %subview = memref.subview %arg1[%c0] [1] [1] : memref<1xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.if %11 {
        %12 = ccl.read %arg3[%c0] : memref<3xi32, #ccl.window> -> i32
        ccl.tensor_write %arg0[%c1], %c71_i32 : memref<3xi32, #ccl.window>, i32
        ccl.cacheinvalid %arg0 : memref<3xi32, #ccl.window>
        ccl.fence
        %subview_0 = memref.subview %arg0[%c1] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.cacheinvalid %subview_0 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.tensor_write %arg0[%c1], %c81_i32 : memref<3xi32, #ccl.window>, i32
        ccl.cacheinvalid %arg0 : memref<3xi32, #ccl.window>
        ccl.fence
        %subview_1 = memref.subview %arg0[%c1] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        %subview_2 = memref.subview %arg0[%c0] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        %13 = arith.cmpi eq, %0, %c1_i32 : i32
        %14 = arith.xori %13, %true : i1
        %15 = arith.select %14, %subview_2, %subview_1 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.cacheinvalid %15 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        %16 = ccl.read %arg0[%c1] : memref<3xi32, #ccl.window> -> i32
        ccl.notify atomic_add %arg2, %5, %c2_i32 : memref<1xi32, #ccl.window>, i32, i32
        ccl.notify atomic_add %arg2, %c0_i32, %c-1_i32 : memref<1xi32, #ccl.window>, i32, i32
        ccl.wait ge %arg2, %c101_i32 : memref<1xi32, #ccl.window>, i32
        ccl.cacheinvalid
        %17 = ccl.read %arg0[%c0] : memref<3xi32, #ccl.window> -> i32
      } else {
        ccl.tensor_write %subview[%c0], %c111_i32 : memref<1xi32, strided<[1], offset: ?>>, i32
      }
    }
    return
  }
  func.func @main(%arg0: memref<3xi32, #ccl.window>, %arg1: memref<1xi32>, %arg2: memref<1xi32, #ccl.window>, %arg3: memref<3xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    call @k0(%arg0, %arg1, %arg2, %arg3, %c0_i32) : (memref<3xi32, #ccl.window>, memref<1xi32>, memref<1xi32, #ccl.window>, memref<3xi32, #ccl.window>, i32) -> ()
    ccl.all_reduce sum %arg0, %arg3 : memref<3xi32, #ccl.window>, memref<3xi32, #ccl.window>
    call @k1(%arg0, %arg1, %arg2, %arg3, %c0_i32) : (memref<3xi32, #ccl.window>, memref<1xi32>, memref<1xi32, #ccl.window>, memref<3xi32, #ccl.window>, i32) -> ()
    return
  }
}

