// pytorch PR #196546 (the NVSHMEM symmetric-memory allocator): the signal pad
// is allocated by a collective (nvshmem_malloc), after which every peer may
// signal into it; each rank then zeroes its own pad with a local memset that
// nothing orders against a peer's signal. If the zeroing lands second it
// erases the delivered signal, and the waiter waits for ever.
// `ccl.barrier` stands for the collective allocation; the memset is a local
// `set 0` of the pad's cell (a write straight to memory, like the memset).

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
  func.call @signal_peers(%pad) : (memref<2xi32, #ccl.window>) -> ()
  return
}
