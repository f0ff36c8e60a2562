// Two remote stores of one element in flight together, then the writing
// block reads it back twice. While both are in flight its read returns its
// newer store (own accesses are coherent). Nothing orders the two landings:
// when the newer lands first and the older after it, memory holds the older
// value, and the block's read after its fence returns it although the newer
// store happens before that read: a stale read. A search that assumes a
// block's writes land in the order it sent them, or keeps the value its first
// read got as a clean line, misses it.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --reference 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por dpor 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --no-reduction --por off 2>&1 | FileCheck %s
// CHECK: reference-own-writes-in-flight.mlir:{{[0-9]+}}:{{[0-9]+}}: error: data race: stale read of element 0 of
func.func @k(%x: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %me = ccl.rank : index
  %v1 = arith.constant dense<1> : vector<1xi32>
  %v2 = arith.constant dense<2> : vector<1xi32>
  ccl.remote_store %v1, %x, %me : vector<1xi32>, memref<1xi32, #ccl.window>, index
  ccl.remote_store %v2, %x, %me : vector<1xi32>, memref<1xi32, #ccl.window>, index
  %early = ccl.read %x[%c0] : memref<1xi32, #ccl.window> -> i32
  ccl.fence
  %late = ccl.read %x[%c0] : memref<1xi32, #ccl.window> -> i32
  return
}

func.func @main(%x: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @k(%x) : (memref<1xi32, #ccl.window>) -> ()
  return
}
