// pytorch PR #196546, fixed: the pad's zeroing is synchronised, so the pad is
// zero on every rank before any peer can signal into it: a barrier between
// the memset and the first use. Same program as buggy.mlir otherwise.
func.func @zero_pad(%pad: memref<2xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  scf.for %p = %c0 to %ranks step %c1 {
    %cell = memref.subview %pad[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    ccl.notify set %cell, %me, %zero : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
  }
  return
}

// The first use of the pad: signal every peer, wait for every peer.
func.func @signal_peers(%pad: memref<2xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %mine = memref.subview %pad[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      ccl.notify set %mine, %p, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    }
  }
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %theirs = memref.subview %pad[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.wait ge %theirs, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
    }
  }
  return
}

func.func @main(%pad: memref<2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  // nvshmem_malloc: collective; peers may address the pad from here on.
  ccl.barrier
  func.call @zero_pad(%pad) : (memref<2xi32, #ccl.window>) -> ()
  // Every pad is zero before anyone signals.
  ccl.barrier
  func.call @signal_peers(%pad) : (memref<2xi32, #ccl.window>) -> ()
  return
}
