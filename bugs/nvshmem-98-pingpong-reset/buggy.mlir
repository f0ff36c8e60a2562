// NVIDIA/nvshmem PR #98 (perftest: "Fix ping-pong flag reset ordering"): the
// timed loop of the ping-pong latency test resets each PE's symmetric flag
// just before each launch, with nothing ordering the resets across PEs. PE 0
// resets, launches and signals PE 1's flag; PE 1's late reset overwrites that
// signal with zero, and PE 1's kernel waits for ever.
// Two timed iterations; each is a reset kernel (the memset of this PE's flag)
// and the ping-pong kernel.

func.func @reset(%flag: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %zero = arith.constant 0 : i32
  %me = ccl.rank : index
  ccl.notify set %flag, %me, %zero : memref<1xi32, #ccl.window>, index, i32
  return
}

// PE 0 pings PE 1 and waits for the pong; PE 1 waits for the ping and pongs.
func.func @ping_pong(%flag: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %pinger = arith.cmpi eq, %me, %c0 : index
  scf.if %pinger {
    ccl.notify set %flag, %c1, %one : memref<1xi32, #ccl.window>, index, i32
    ccl.wait ge %flag, %one : memref<1xi32, #ccl.window>, i32
  } else {
    ccl.wait ge %flag, %one : memref<1xi32, #ccl.window>, i32
    ccl.notify set %flag, %c0, %one : memref<1xi32, #ccl.window>, index, i32
  }
  return
}

func.func @main(%flag: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %iters = arith.constant 2 : index
  scf.for %i = %c0 to %iters step %c1 {
    func.call @reset(%flag) : (memref<1xi32, #ccl.window>) -> ()
    func.call @ping_pong(%flag) : (memref<1xi32, #ccl.window>) -> ()
  }
  return
}
