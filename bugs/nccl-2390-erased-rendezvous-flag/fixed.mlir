// NVIDIA/nccl PR #2390, the fix: the slot is cleared by its consumer when it
// consumes the flag (the gate), not by the previous op's late bookkeeping, so
// op N's completion never writes to a slot that belongs to op N+1.
// Same roles as buggy.mlir.

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
    // Op N's "received" stage no longer touches the slot.
    // Op N+1's gate: wait for the kernel's flag, clear it (the consumer
    // clears), then post the receive.
    ccl.wait ge %slot, %one : memref<1xi32, #ccl.window>, i32
    ccl.notify set %slot, %me, %zero : memref<1xi32, #ccl.window>, index, i32
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
