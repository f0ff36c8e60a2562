// RMARaceBench, SHMEM/sync/014-shmem-sync-waituntil-remote-no (its race-free
// twin): PE 1 waits for the flag first, then loads the buffer (after the
// wait's cache invalidate). Same program as buggy.mlir otherwise.
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
    ccl.wait eq %flag, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %v = ccl.read %remote[%c0] : memref<1xi32, #ccl.window> -> i32
    ccl.tensor_write %out[%c0], %v : memref<1xi32>, i32
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
