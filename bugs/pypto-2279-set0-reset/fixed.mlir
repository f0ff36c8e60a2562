// pypto PR #2279 as merged: the epilogue takes the credit back with
// `atomic_add -1` instead of `set 0`. Exactly one credit per peer cell arrives
// per call, so -1 restores zero, and a subtraction commutes with a fast peer's
// +1 for the next call instead of erasing it. Same program as buggy.mlir
// otherwise.
func.func @barrier(%sig: memref<2xi32, #ccl.window>)
    attributes {ccl.kind = "aiv", ccl.builtin_template_dir = "collectives/barrier"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %minus_one = arith.constant -1 : i32
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
  // Epilogue: take the credit back from this rank's own cells.
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.notify atomic_add %theirs, %me, %minus_one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    }
  }
  return
}

func.func @main(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  return
}
