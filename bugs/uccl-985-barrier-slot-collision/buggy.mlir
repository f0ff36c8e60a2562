// uccl-project/uccl PR #985 ("Support distinct HT barrier local ranks"): the
// high-throughput node-local barrier gives every local rank its own arrival
// slot on the node leader and the leader waits for every slot. The slot was
// the CUDA-visible local rank; under launchers where each worker sees exactly
// one GPU that is 0 for every worker, so all of them arrive on slot 0 and the
// leader waits for the other slots for ever.
// Two local ranks: rank 0 is the node leader. The slot index each rank uses is
// its CUDA-visible device index, 0 on every rank here.

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
  // torch.cuda.current_device(): every worker sees only its own GPU, as 0.
  %cuda_local_rank = arith.constant 0 : index
  func.call @local_barrier(%arrive, %release, %cuda_local_rank)
      : (memref<2xi32, #ccl.window>, memref<1xi32, #ccl.window>, index) -> ()
  return
}
