// tenstorrent/tt-metal issue #19777 (fixed by PR #19765, "Add flush bit flag
// to semaphore inc packets"): a worker sends a fabric write to core A and then
// a semaphore increment to core B; core B, woken by the increment, reads the
// payload from core A. Nothing makes the increment wait for the write, so core
// B's read can reach core A before the write does, and returns stale data.
// Three ranks stand for the three places: rank 0 the worker, rank 1 core A
// (the payload's destination), rank 2 core B (the reader). Markers as written.

func.func @step(%payload: memref<1xi32, #ccl.window>, %sem: memref<1xi32, #ccl.window>, %out: memref<1xi32>,
                %value: vector<1xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %worker = arith.cmpi eq, %me, %c0 : index
  %reader = arith.cmpi eq, %me, %c2 : index
  scf.if %worker {
    // Fabric write of the payload to core A, then the semaphore increment to
    // core B.
    ccl.remote_store %value, %payload, %c1 : vector<1xi32>, memref<1xi32, #ccl.window>, index
    ccl.notify atomic_add %sem, %c2, %one : memref<1xi32, #ccl.window>, index, i32
  }
  scf.if %reader {
    // Core B: woken by the increment, read the payload from core A.
    ccl.wait ge %sem, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %v = ccl.remote_load %payload, %c1 : memref<1xi32, #ccl.window>, index -> i32
    ccl.tensor_write %out[%c0], %v : memref<1xi32>, i32
  }
  return
}

func.func @main(%payload: memref<1xi32, #ccl.window>, %sem: memref<1xi32, #ccl.window>, %out: memref<1xi32>)
    attributes {ccl.kind = "orchestration"} {
  %value = arith.constant dense<9> : vector<1xi32>
  func.call @step(%payload, %sem, %out, %value)
      : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32>, vector<1xi32>) -> ()
  return
}
