// uccl-project/uccl PR #1052, the fix's idea: a monotonic, self-describing
// counter. Nothing is subtracted: arriving at a barrier adds +1 to this rank's
// cell on every peer, and the n-th barrier a rank enters releases once every
// peer's cell here holds >= n, so a late add for a later barrier can only push
// a cell past an earlier target, never make it look released early.
// The dialect has no fetch-and-add that returns the old value, so an epoch's
// barrier number is computed, not read: epoch b's barriers are numbered
// 2b+1 and 2b+2 in the order the epochs are issued (an abstraction of the PR's
// own-cell round count; see README.md). Same epochs as buggy.mlir.

func.func @notify_dispatch(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %epoch = ccl.block_id : index
  %ranks = ccl.comm_size : index
  %mine = memref.subview %sig[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  %first = arith.muli %epoch, %c2 : index
  scf.for %barrier = %c0 to %c2 step %c1 {
    %n = arith.addi %first, %barrier : index
    %n1 = arith.addi %n, %c1 : index
    %target = arith.index_cast %n1 : index to i32
    scf.for %p = %c0 to %ranks step %c1 {
      %other = arith.cmpi ne, %p, %me : index
      scf.if %other {
        ccl.notify atomic_add %mine, %p, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
      }
    }
    scf.for %p = %c0 to %ranks step %c1 {
      %other = arith.cmpi ne, %p, %me : index
      scf.if %other {
        %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.wait ge %theirs, %target : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      }
    }
  }
  return
}

func.func @main(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @notify_dispatch(%sig) {ccl.launch_width = 2 : i64} : (memref<2xi32, #ccl.window>) -> ()
  return
}
