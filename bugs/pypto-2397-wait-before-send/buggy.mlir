// pypto issue #2397 (fixed by PR #2398): each rank's host program is
// "dispatch SEND (remote_store + notify to the peer), then dispatch WAIT (wait
// for the peer's notify)". The runtime derived a dispatch's dependencies from
// tensor tags only; a comm window carries none, so the two dispatches were
// independent, and the wait (which has no producer) was scheduled first on the
// rank's single worker. Its spin-wait owns the core; the send never runs.
// The dialect's host code is sequential: this file is the order the runtime
// actually ran, WAIT before SEND on every rank (see README.md).

// Push this rank's value into every peer's inbox, then signal it.
func.func @send(%inbox: memref<2xi32, #ccl.window>, %sig: memref<2xi32, #ccl.window>, %value: vector<1xi32>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %slot = memref.subview %inbox[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  %mine = memref.subview %sig[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      ccl.remote_store %value, %slot, %p : vector<1xi32>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index
      ccl.notify atomic_add %mine, %p, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    }
  }
  return
}

// Wait for every peer's value, then read it.
func.func @wait(%inbox: memref<2xi32, #ccl.window>, %sig: memref<2xi32, #ccl.window>, %out: memref<2xi32>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.wait ge %theirs, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      %v = ccl.read %inbox[%p] : memref<2xi32, #ccl.window> -> i32
      ccl.tensor_write %out[%p], %v : memref<2xi32>, i32
    }
  }
  return
}

func.func @main(%inbox: memref<2xi32, #ccl.window>, %sig: memref<2xi32, #ccl.window>, %out: memref<2xi32>)
    attributes {ccl.kind = "orchestration"} {
  %c7 = arith.constant dense<7> : vector<1xi32>
  func.call @wait(%inbox, %sig, %out) : (memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>) -> ()
  func.call @send(%inbox, %sig, %c7) : (memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, vector<1xi32>) -> ()
  return
}
