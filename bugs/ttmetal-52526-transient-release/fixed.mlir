// tenstorrent/tt-metal issue #52526, fixed the way the report says the
// mechanisms it replaced were safe: the release is a monotonic epoch, not a
// transient zero. The action thread drains the count and then bumps the epoch;
// a waiter in rendezvous k waits for epoch >= k + 1, which, once true, stays
// true, so a late waiter still sees its release. Same threads as buggy.mlir.

func.func @rendezvous_twice(%count: memref<1xi32, #ccl.window>, %epoch: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %threads = arith.constant 2 : i32
  %minus_one = arith.constant -1 : i32
  %me = ccl.rank : index
  %thread = ccl.block_id : index
  %action = arith.cmpi eq, %thread, %c0 : index
  scf.for %round = %c0 to %c2 step %c1 {
    // The epoch this rendezvous releases (the snapshot taken before arriving).
    %round_i32 = arith.index_cast %round : index to i32
    %release = arith.addi %round_i32, %one : i32
    // Arrive.
    ccl.notify atomic_add %count, %me, %one : memref<1xi32, #ccl.window>, index, i32
    scf.if %action {
      ccl.wait ge %count, %threads : memref<1xi32, #ccl.window>, i32
      scf.for %t = %c0 to %c2 step %c1 {
        ccl.notify atomic_add %count, %me, %minus_one : memref<1xi32, #ccl.window>, index, i32
      }
      ccl.notify atomic_add %epoch, %me, %one : memref<1xi32, #ccl.window>, index, i32
    } else {
      ccl.wait ge %epoch, %release : memref<1xi32, #ccl.window>, i32
    }
  }
  return
}

func.func @main(%count: memref<1xi32, #ccl.window>, %epoch: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @rendezvous_twice(%count, %epoch) {ccl.launch_width = 2 : i64}
      : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
