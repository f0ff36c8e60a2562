// pypto PR #1829 review: the host barrier kernel notifies `set 1` into every
// peer and waits `ge 1`; nothing clears the cells, so from its second call on
// every wait holds at once and the barrier orders nothing.
// Two rounds of: stage my value, barrier, read the peer's value, barrier.
// The second barrier of round 1 is already open, so round 2's staging write
// races with the peer's round-1 read.

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
      ccl.notify set %mine, %p, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
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
