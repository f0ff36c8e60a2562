// The smallest shape of bugs/nvshmem-84-multiplexed-signal: two writers each
// publish their own element and add 1 to one counter; the reader takes
// "counter >= 1" to mean "element 0 is there". When writer 1 adds first, the
// reader's wait passes on writer 1's add alone and its read of element 0 is
// unordered with writer 0's write. One rank, launch width 3.
func.func @k(%x: memref<2xi32, #ccl.window>, %count: memref<1xi32, #ccl.window>, %out: memref<1xi32>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %b = ccl.block_id : index
  %writer = arith.cmpi ult, %b, %c2 : index
  scf.if %writer {
    ccl.tensor_write %x[%b], %one : memref<2xi32, #ccl.window>, i32
    ccl.cacheinvalid %x : memref<2xi32, #ccl.window>
    ccl.fence
    ccl.notify atomic_add %count, %me, %one : memref<1xi32, #ccl.window>, index, i32
  } else {
    ccl.wait ge %count, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %v = ccl.read %x[%c0] : memref<2xi32, #ccl.window> -> i32
    ccl.tensor_write %out[%c0], %v : memref<1xi32>, i32
  }
  return
}

func.func @main(%x: memref<2xi32, #ccl.window>, %count: memref<1xi32, #ccl.window>, %out: memref<1xi32>)
    attributes {ccl.kind = "orchestration"} {
  func.call @k(%x, %count, %out) {ccl.launch_width = 3 : i64}
      : (memref<2xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32>) -> ()
  return
}
