// tenstorrent/tt-metal issue #52526: `llk_barrier::rendezvous` releases its
// waiters by the semaphore count returning to zero, and the next rendezvous
// arrives by posting on the same counter. A waiter that has not sampled zero
// before the action thread's next post never sees its release: it spins for
// ever, and the action thread waits for ever for the count to reach
// NUM_THREADS. The report measured about two polls of margin and no failure in
// 20 million rendezvous; the model has no timing, so the margin is no defence.
// Two threads (launch width 2: block 0 is the action thread, block 1 a
// waiter), two rendezvous in a row.

func.func @rendezvous_twice(%count: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %threads = arith.constant 2 : i32
  %minus_one = arith.constant -1 : i32
  %me = ccl.rank : index
  %thread = ccl.block_id : index
  %action = arith.cmpi eq, %thread, %c0 : index
  scf.for %round = %c0 to %c2 step %c1 {
    // Arrive.
    ccl.notify atomic_add %count, %me, %one : memref<1xi32, #ccl.window>, index, i32
    scf.if %action {
      // Wait for every thread, act, then drain the count back to zero.
      ccl.wait ge %count, %threads : memref<1xi32, #ccl.window>, i32
      scf.for %t = %c0 to %c2 step %c1 {
        ccl.notify atomic_add %count, %me, %minus_one : memref<1xi32, #ccl.window>, index, i32
      }
    } else {
      // Released when the count is back at zero.
      ccl.wait eq %count, %zero : memref<1xi32, #ccl.window>, i32
    }
  }
  return
}

func.func @main(%count: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @rendezvous_twice(%count) {ccl.launch_width = 2 : i64} : (memref<1xi32, #ccl.window>) -> ()
  return
}
