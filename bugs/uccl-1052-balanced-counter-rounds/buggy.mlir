// uccl-project/uccl PR #1052 (the hang of issue #986, DeepEP's barrier_block):
// one balanced counter per (rank, peer) pair. A rank arriving adds +TAG to its
// own cell for each peer and subtracts TAG from that peer's cell for it, then
// spins until each of its own cells is <= 0. The counter does not say which
// round an add belongs to, so it is right only while one barrier at a time
// uses the array. With two-batch overlap two dispatch epochs overlap on the
// same array, and their adds and subtracts mix.
// The dialect's waits compare with `ge`, so the counter is written negated:
// arriving adds -1 to this rank's own cell for each peer and +1 to the peer's
// cell for this rank; released when each own cell is >= 0.
// Two ranks, launch width 2: block b is dispatch epoch b (the two overlapping
// notify_dispatch kernels); each epoch runs its begin and end barriers.

func.func @notify_dispatch(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %minus_one = arith.constant -1 : i32
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %mine = memref.subview %sig[%me] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  // barrier_block, at the start and at the end of notify_dispatch.
  scf.for %barrier = %c0 to %c2 step %c1 {
    scf.for %p = %c0 to %ranks step %c1 {
      %other = arith.cmpi ne, %p, %me : index
      scf.if %other {
        %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.notify atomic_add %theirs, %me, %minus_one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
        ccl.notify atomic_add %mine, %p, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
      }
    }
    scf.for %p = %c0 to %ranks step %c1 {
      %other = arith.cmpi ne, %p, %me : index
      scf.if %other {
        %theirs = memref.subview %sig[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
        ccl.wait ge %theirs, %zero : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
      }
    }
  }
  return
}

func.func @main(%sig: memref<2xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @notify_dispatch(%sig) {ccl.launch_width = 2 : i64} : (memref<2xi32, #ccl.window>) -> ()
  return
}
