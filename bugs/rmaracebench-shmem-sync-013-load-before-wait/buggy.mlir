// RMARaceBench (Schwitanski et al., SC-W 2023), SHMEM/sync/013-shmem-sync-
// waituntil-remote-yes (labelled race: the put on PE 0 and the load on PE 1):
// PE 0 puts a value into PE 1's buffer, fences, and sets PE 1's flag; PE 1
// loads the buffer and only then waits for the flag. The load is not ordered
// after the put. Markers as the program has them (shmem_fence is a fence).

func.func @exchange(%remote: memref<1xi32, #ccl.window>, %flag: memref<1xi32, #ccl.window>, %out: memref<1xi32>,
                    %myval: memref<1xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %pe0 = arith.cmpi eq, %me, %c0 : index
  scf.if %pe0 {
    ccl.put %remote, %myval, %c1 : memref<1xi32, #ccl.window>, memref<1xi32>, index
    ccl.fence
    ccl.notify set %flag, %c1, %one : memref<1xi32, #ccl.window>, index, i32
  } else {
    %v = ccl.read %remote[%c0] : memref<1xi32, #ccl.window> -> i32
    ccl.tensor_write %out[%c0], %v : memref<1xi32>, i32
    ccl.wait eq %flag, %one : memref<1xi32, #ccl.window>, i32
  }
  return
}

func.func @main(%remote: memref<1xi32, #ccl.window>, %flag: memref<1xi32, #ccl.window>, %out: memref<1xi32>,
                %myval: memref<1xi32>) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @exchange(%remote, %flag, %out, %myval)
      : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32>, memref<1xi32>) -> ()
  ccl.barrier
  return
}
