// NVIDIA/nvshmem issue #84 (examples/ring-reduce, confirmed by the maintainer
// to violate NVSHMEM's memory model): several in-flight chunks are each sent
// with a nonblocking put-with-signal whose signal adds 1 to one counter, and
// the receiver takes "counter >= k+1" to mean "chunk k has arrived". The
// counter only counts chunks; nonblocking puts complete in any order, so a
// later chunk's signal can satisfy an earlier chunk's wait.
// A put-with-signal orders its own data before its own signal and nothing
// else: each is written as one sender block (put, fence, notify), the two
// chunks' blocks run unordered, as the nonblocking operations do.
// Rank 0 sends two chunks, rank 1 reads them in order. Launch width 2.

func.func @ring_step(%buf: memref<2xi32, #ccl.window>, %src: memref<2xi32>, %counter: memref<2xi32, #ccl.window>,
                     %out: memref<2xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %chunk = ccl.block_id : index
  %sender = arith.cmpi eq, %me, %c0 : index
  %sig = memref.subview %counter[0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1]>, #ccl.window>
  scf.if %sender {
    // Block k: nonblocking put-with-signal of chunk k, SIGNAL_ADD 1.
    %dst = memref.subview %buf[%chunk] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %from = memref.subview %src[%chunk] [1] [1] : memref<2xi32> to memref<1xi32, strided<[1], offset: ?>>
    ccl.put %dst, %from, %c1 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, memref<1xi32, strided<[1], offset: ?>>, index
    ccl.fence
    ccl.notify atomic_add %sig, %c1, %one : memref<1xi32, strided<[1]>, #ccl.window>, index, i32
  } else {
    %first = arith.cmpi eq, %chunk, %c0 : index
    scf.if %first {
      // Chunk k is taken to be there once the counter reaches k + 1.
      %two = arith.constant 2 : i32
      ccl.wait ge %sig, %one : memref<1xi32, strided<[1]>, #ccl.window>, i32
      ccl.cacheinvalid
      %v0 = ccl.read %buf[%c0] : memref<2xi32, #ccl.window> -> i32
      ccl.tensor_write %out[%c0], %v0 : memref<2xi32>, i32
      ccl.wait ge %sig, %two : memref<1xi32, strided<[1]>, #ccl.window>, i32
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
