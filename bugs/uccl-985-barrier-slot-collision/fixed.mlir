// uccl-project/uccl PR #985, the fix: the barrier takes its own
// `barrier_local_rank` (unique per local rank, 0..N-1), separate from the
// CUDA/NIC-facing local rank, so every rank arrives on its own slot.
// Same kernel as buggy.mlir.
func.func @local_barrier(%arrive: memref<2xi32, #ccl.window>, %release: memref<1xi32, #ccl.window>,
                         %slot_index: index) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %ranks = ccl.comm_size : index
  %leader = arith.cmpi eq, %me, %c0 : index
  %slot = memref.subview %arrive[%slot_index] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
  scf.if %leader {
    // The leader waits for every other local rank's slot, then releases them.
    scf.for %p = %c1 to %ranks step %c1 {
      %theirs = memref.subview %arrive[%p] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
      ccl.wait ge %theirs, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
    }
    scf.for %p = %c1 to %ranks step %c1 {
      ccl.notify atomic_add %release, %p, %one : memref<1xi32, #ccl.window>, index, i32
    }
  } else {
    ccl.notify atomic_add %slot, %c0, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
    ccl.wait ge %release, %one : memref<1xi32, #ccl.window>, i32
  }
  return
}

func.func @main(%arrive: memref<2xi32, #ccl.window>, %release: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  // barrier_local_rank: this rank's own slot.
  %barrier_local_rank = ccl.rank : index
  func.call @local_barrier(%arrive, %release, %barrier_local_rank)
      : (memref<2xi32, #ccl.window>, memref<1xi32, #ccl.window>, index) -> ()
  return
}
