// pypto PR #2279 (commits "use Set(0) in barrier kernel epilogue" and its
// revert "restore AtomicAdd(-1)"): the host barrier adds +1 into this rank's
// cell on every peer, waits until each peer's cell holds >= 1, then resets its
// own cells with `set 0`. A peer that has already left may enter the next call
// and add its +1 for that call before this rank's reset: `set 0` erases it, and
// this rank's next wait never holds. The barrier is called twice in a row.

func.func @barrier(%sig: memref<2xi32, #ccl.window>)
    attributes {ccl.kind = "aiv", ccl.builtin_template_dir = "collectives/barrier"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %mine = memref.subview %sig[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
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
  // Epilogue: reset this rank's own cells.
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.notify set %theirs, %me, %zero : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    }
  }
  return
}

func.func @main(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  return
}
