// NVIDIA/nccl issue #2389, PR #2390 (fixed on NCCL's dev branch): the receive
// proxy resets the connFifo slot of every completed receive step in its
// "received" stage. An LL op never waits for the proxy, so the kernel can
// retire it and enter the next op while the proxy still holds its unpolled
// completion. If the next op is network-registered, the kernel publishes its
// one-shot rendezvous flag in the same slot (steps alias modulo NCCL_STEPS);
// the proxy's late reset for the LL op erases it, and the proxy's gate for the
// next op spins for ever. No error, no timeout.
// One rank; launch width 2: block 0 is the GPU kernel, block 1 the receive
// proxy (a CPU thread in NCCL). `slot` is the aliased connFifo slot (0: empty,
// 1: the rendezvous flag); `posted` is the proxy telling the kernel the
// receive is posted.

func.func @recv_ops(%slot: memref<1xi32, #ccl.window>, %posted: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  %role = ccl.block_id : index
  %kernel = arith.cmpi eq, %role, %c0 : index
  scf.if %kernel {
    // Op N (LL) retires without waiting for the proxy.
    // Op N+1 (registered SIMPLE): publish the rendezvous flag, wait for the
    // proxy to post the receive.
    ccl.notify set %slot, %me, %one : memref<1xi32, #ccl.window>, index, i32
    ccl.wait ge %posted, %one : memref<1xi32, #ccl.window>, i32
  } else {
    // Op N's "received" stage, late: reset the slot of its completed step.
    ccl.notify set %slot, %me, %zero : memref<1xi32, #ccl.window>, index, i32
    // Op N+1's gate: wait for the kernel's flag, then post the receive.
    ccl.wait ge %slot, %one : memref<1xi32, #ccl.window>, i32
    ccl.notify atomic_add %posted, %me, %one : memref<1xi32, #ccl.window>, index, i32
  }
  return
}

func.func @main(%slot: memref<1xi32, #ccl.window>, %posted: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @recv_ops(%slot, %posted) {ccl.launch_width = 2 : i64}
      : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
