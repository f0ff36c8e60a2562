// NVIDIA/nvshmem issue #84, fixed as the maintainer's explanation asks: a
// signal must say "this chunk arrived", not "some chunks arrived". Each chunk
// gets its own signal cell; the receiver waits for chunk k's cell before it
// reads chunk k. Same program as buggy.mlir otherwise.

func.func @ring_step(%buf: memref<2xi32, #ccl.window>, %src: memref<2xi32>, %counter: memref<2xi32, #ccl.window>,
                     %out: memref<2xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %chunk = ccl.block_id : index
  %sender = arith.cmpi eq, %me, %c0 : index
  scf.if %sender {
    // Block k: nonblocking put-with-signal of chunk k into chunk k's cell.
    %dst = memref.subview %buf[%chunk] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %from = memref.subview %src[%chunk] [1] [1] : memref<2xi32> to memref<1xi32, strided<[1], offset: ?>>
    %sig = memref.subview %counter[%chunk] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    ccl.put %dst, %from, %c1 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, memref<1xi32, strided<[1], offset: ?>>, index
    ccl.fence
    ccl.notify atomic_add %sig, %c1, %one : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, index, i32
  } else {
    %first = arith.cmpi eq, %chunk, %c0 : index
    scf.if %first {
      %sig0 = memref.subview %counter[0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1]>, #ccl.window>
      %sig1 = memref.subview %counter[1] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: 1>, #ccl.window>
      ccl.wait ge %sig0, %one : memref<1xi32, strided<[1]>, #ccl.window>, i32
      ccl.cacheinvalid
      %v0 = ccl.read %buf[%c0] : memref<2xi32, #ccl.window> -> i32
      ccl.tensor_write %out[%c0], %v0 : memref<2xi32>, i32
      ccl.wait ge %sig1, %one : memref<1xi32, strided<[1], offset: 1>, #ccl.window>, i32
      ccl.cacheinvalid
      %v1 = ccl.read %buf[%c1] : memref<2xi32, #ccl.window> -> i32
      ccl.tensor_write %out[%c1], %v1 : memref<2xi32>, i32
    }
  }
  return
}

func.func @main(%buf: memref<2xi32, #ccl.window>, %src: memref<2xi32>, %counter: memref<2xi32, #ccl.window>,
                %out: memref<2xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @ring_step(%buf, %src, %counter, %out) {ccl.launch_width = 2 : i64}
      : (memref<2xi32, #ccl.window>, memref<2xi32>, memref<2xi32, #ccl.window>, memref<2xi32>) -> ()
  return
}
