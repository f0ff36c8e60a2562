// tenstorrent/tt-metal PR #19164, the fix: a two-phase barrier. WAIT phase
// on semaphore 0 (this chip is done and has the P-1 signals of the others,
// then it resets semaphore 0), RELEASE phase on semaphore 1 (every chip has
// passed its WAIT phase). A chip leaves only when every chip has reset its
// semaphore 0, so the next operation's signals on that address can neither
// open a barrier early nor be erased. Same all-gather as buggy.mlir.
func.func @barrier(%sem: memref<2xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %ranks_i32 = arith.index_cast %ranks : index to i32
  %others = arith.subi %ranks_i32, %one : i32
  %s = memref.subview %sem[0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1]>, #ccl.window>
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      ccl.notify atomic_add %s, %p, %one : memref<1xi32, strided<[1]>, #ccl.window>, index, i32
    }
  }
  ccl.wait ge %s, %others : memref<1xi32, strided<[1]>, #ccl.window>, i32
  ccl.notify set %s, %me, %zero : memref<1xi32, strided<[1]>, #ccl.window>, index, i32
  // RELEASE phase: every chip has passed (and reset) its WAIT phase.
  %r = memref.subview %sem[1] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: 1>, #ccl.window>
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      ccl.notify atomic_add %r, %p, %one : memref<1xi32, strided<[1], offset: 1>, #ccl.window>, index, i32
    }
  }
  ccl.wait ge %r, %others : memref<1xi32, strided<[1], offset: 1>, #ccl.window>, i32
  ccl.notify set %r, %me, %zero : memref<1xi32, strided<[1], offset: 1>, #ccl.window>, index, i32
  return
}

// The next operation: an all-gather that signals the same semaphore address.
func.func @all_gather(%sem: memref<2xi32, #ccl.window>, %inbox: memref<3xi32, #ccl.window>, %out: memref<3xi32>,
                      %value: vector<1xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %ranks_i32 = arith.index_cast %ranks : index to i32
  %others = arith.subi %ranks_i32, %one : i32
  %s = memref.subview %sem[0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1]>, #ccl.window>
  %slot = memref.subview %inbox[%me] [1] [1] : memref<3xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      ccl.remote_store %value, %slot, %p : vector<1xi32>, memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index
      ccl.notify atomic_add %s, %p, %one : memref<1xi32, strided<[1]>, #ccl.window>, index, i32
    }
  }
  ccl.wait ge %s, %others : memref<1xi32, strided<[1]>, #ccl.window>, i32
  scf.for %p = %c0 to %ranks step %c1 {
    %other = arith.cmpi ne, %p, %me : index
    scf.if %other {
      %v = ccl.read %inbox[%p] : memref<3xi32, #ccl.window> -> i32
      ccl.tensor_write %out[%p], %v : memref<3xi32>, i32
    }
  }
  ccl.notify set %s, %me, %zero : memref<1xi32, strided<[1]>, #ccl.window>, index, i32
  return
}

func.func @main(%sem: memref<2xi32, #ccl.window>, %inbox: memref<3xi32, #ccl.window>, %out: memref<3xi32>)
    attributes {ccl.kind = "orchestration"} {
  %value = arith.constant dense<5> : vector<1xi32>
  func.call @barrier(%sem) : (memref<2xi32, #ccl.window>) -> ()
  func.call @all_gather(%sem, %inbox, %out, %value)
      : (memref<2xi32, #ccl.window>, memref<3xi32, #ccl.window>, memref<3xi32>, vector<1xi32>) -> ()
  return
}
