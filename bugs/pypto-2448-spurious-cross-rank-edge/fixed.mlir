// pypto issue #2448, fixed (pypto-lib PR #986 keeps the rank-major InOut
// metadata device-resident, whose key carries the rank): each rank's dispatch
// has its own key, so no rank waits for another rank's dispatch to finish; the
// rendezvous is the only cross-rank synchronisation. Same kernel as buggy.mlir.

// A cross-rank rendezvous: notify every peer, wait for every peer.
func.func @rendezvous(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %mine = memref.subview %sig[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
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
      ccl.wait ge %theirs, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
    }
  }
  return
}

func.func @main(%sig: memref<2xi32, #ccl.window>, %dep: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  // Every rank launches its own dispatch; none depends on another rank's.
  func.call @rendezvous(%sig) : (memref<2xi32, #ccl.window>) -> ()
  return
}
