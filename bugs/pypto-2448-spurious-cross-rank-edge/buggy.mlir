// pypto issue #2448 (worked around in pypto-lib PR #986): codegen bound a
// rank-major HOST tensor INOUT in every rank's dispatch. The runtime keys a
// host argument without the rank, so rank 0's dispatch registered as its
// producer and rank 1's dispatch took a dependency on it: rank 1's kernel may
// start only once rank 0's has finished. Rank 0's kernel spins on rank 1's
// notify, which the held-back dispatch never sends.
// The dependency the runtime added is written out as what it does: rank 0's
// host announces its dispatch's completion, rank 1's host waits for it before
// launching (the `dep` cell stands for the runtime's tensor-dependency edge).

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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %producer = arith.cmpi eq, %me, %c0 : index
  scf.if %producer {
    // Rank 0 registered first as the host tensor's INOUT producer.
    func.call @rendezvous(%sig) : (memref<2xi32, #ccl.window>) -> ()
    // Its completion releases the consumer edge rank 1's dispatch took.
    ccl.notify atomic_add %dep, %c1, %one : memref<1xi32, #ccl.window>, index, i32
  } else {
    // Rank 1's dispatch depends on rank 0's (same key, no rank in it).
    ccl.wait ge %dep, %one : memref<1xi32, #ccl.window>, i32
    func.call @rendezvous(%sig) : (memref<2xi32, #ccl.window>) -> ()
  }
  return
}
