// tenstorrent/tt-metal PR #19164 ("implement two phase barrier to sync all
// state"): the multi-chip barrier used one semaphore per chip: every chip adds
// +1 to every other chip's semaphore, waits until its own holds P-1, and resets
// it to 0. A fast chip that has its P-1 signals goes on to the next operation,
// which signals the same semaphore address on the chips still in the barrier:
// that signal counts towards their barrier (one passes without the slowest
// chip) and their reset then erases it (the next operation waits for ever).
// Three chips: the barrier, then an all-gather that uses the same semaphore.

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
