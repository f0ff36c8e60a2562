// Two blocks publish their own element and each add 1 to one counter; a
// third block waits for the counter to reach 1 and reads block 0's element.
// When block 1 adds first, the wait passes on block 1's add alone and the
// read is unordered with block 0's write: a race. A search that takes a
// wait "as soon as it holds" and treats adds to one cell as commuting
// explores only one order of the adds and misses it.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --reference 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por dpor 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --no-reduction --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --engine stateright 2>&1 | FileCheck %s
// CHECK: reference-two-adders.mlir:[[@LINE+17]]:10: error: data race: unordered accesses to element 0 of
func.func @k(%x: memref<2xi32, #ccl.window>, %count: memref<1xi32, #ccl.window>)
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
  }
  return
}

func.func @main(%x: memref<2xi32, #ccl.window>, %count: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @k(%x, %count) {ccl.launch_width = 3 : i64} : (memref<2xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
