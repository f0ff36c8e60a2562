// pypto PR #1829, fixed as pypto #2175 / #2279 fixed every barrier: a
// credit barrier. Each rank adds +1 into its cell on every peer, waits until
// each peer's cell holds >= 1, and takes its credits back (adds -1 to its own
// cells) before it returns, so the next call starts from zero. The subtraction
// commutes with a fast peer's next +1, so no credit is lost.
// Same program as buggy.mlir otherwise.
func.func @stage(%data: memref<1xi32, #ccl.window>, %value: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  ccl.tensor_write %data[%c0], %value : memref<1xi32, #ccl.window>, i32
  return
}

// The builtin barrier (a template kernel, so a Phase B publish).
func.func @barrier(%sig: memref<2xi32, #ccl.window>)
    attributes {ccl.kind = "aiv", ccl.builtin_template_dir = "collectives/barrier"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
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
  // Take the credits back: one -1 per peer cell, on this rank's own copy.
  %minus_one = arith.constant -1 : i32
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.notify atomic_add %theirs, %me, %minus_one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    }
  }
  return
}

func.func @gather(%data: memref<1xi32, #ccl.window>, %out: memref<2xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %v = ccl.remote_load %data, %p : memref<1xi32, #ccl.window>, index -> i32
      ccl.tensor_write %out[%p], %v : memref<2xi32>, i32
    }
  }
  return
}

func.func @main(%data: memref<1xi32, #ccl.window>, %sig: memref<2xi32, #ccl.window>, %out: memref<2xi32>)
    attributes {ccl.kind = "orchestration"} {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  func.call @stage(%data, %c1) : (memref<1xi32, #ccl.window>, i32) -> ()
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  func.call @gather(%data, %out) : (memref<1xi32, #ccl.window>, memref<2xi32>) -> ()
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  func.call @stage(%data, %c2) : (memref<1xi32, #ccl.window>, i32) -> ()
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  func.call @gather(%data, %out) : (memref<1xi32, #ccl.window>, memref<2xi32>) -> ()
  func.call @barrier(%sig) : (memref<2xi32, #ccl.window>) -> ()
  return
}
