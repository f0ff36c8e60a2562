// Input of the CLI tests: rank 0 puts into rank 1's window and notifies
// without a fence; rank 1 waits and reads. A stale read on some schedules
// (put-without-fence.mlir explains it).
func.func @kernel(%win: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %rank = ccl.rank : i32
  %sender = arith.cmpi eq, %rank, %zero : i32
  scf.if %sender {
    ccl.put %win, %src, %one : memref<4xi32, #ccl.window>, memref<4xi32>, i32
    ccl.notify set %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %v = ccl.read %win[%c0] : memref<4xi32, #ccl.window> -> i32
  }
  return
}

func.func @main(%win: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%win, %src, %sig) : (memref<4xi32, #ccl.window>, memref<4xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}
