// pypto issue #2156, fixed by the self-clearing credit barrier pypto PR #2175
// merged: the same two barriers, then an epilogue that takes this call's
// credits back (adds -2 to each peer's cell on this rank's own copy), so every
// call starts from zero. Same program as buggy.mlir otherwise.
func.func @exchange(%data: memref<1xi32, #ccl.window>, %sig: memref<2xi32, #ccl.window>,
                    %out: memref<2xi32>, %value: i32) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %mine = memref.subview %sig[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  // Stage this rank's value for its peers.
  ccl.tensor_write %data[%c0], %value : memref<1xi32, #ccl.window>, i32
  // Barrier 1: the data is staged everywhere.
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
  // Read every peer's value.
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %v = ccl.remote_load %data, %p : memref<1xi32, #ccl.window>, index -> i32
      ccl.tensor_write %out[%p], %v : memref<2xi32>, i32
    }
  }
  // Barrier 2: every peer has read this rank's value.
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
      ccl.wait ge %theirs, %two : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
    }
  }
  // Epilogue: take back the two credits each peer put into its cell here.
  %minus_two = arith.constant -2 : i32
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.notify atomic_add %theirs, %me, %minus_two : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    }
  }
  return
}

func.func @main(%data: memref<1xi32, #ccl.window>, %sig: memref<2xi32, #ccl.window>, %out: memref<2xi32>)
    attributes {ccl.kind = "orchestration"} {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  func.call @exchange(%data, %sig, %out, %c1) : (memref<1xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>, i32) -> ()
  func.call @exchange(%data, %sig, %out, %c2) : (memref<1xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>, i32) -> ()
  return
}
