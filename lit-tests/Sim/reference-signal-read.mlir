// An ordinary GM read of a signal cell as a block's first step. Block 0 sets
// the cell to 1 with a notify; block 1 reads it and, if it saw 1, waits on a
// second cell nobody notifies: a deadlock, reachable only when the notify
// comes first. A search that runs a read of a "quiet" location at once (no
// write in flight toward it, no dirty line of it) misses that a notify writes
// memory with nothing in flight.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --reference 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por dpor 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --no-reduction --por off 2>&1 | FileCheck %s
// CHECK: error: deadlock: no step is possible and some threads have not finished
// CHECK: reference-signal-read.mlir:{{[0-9]+}}:7: note: rank 0 block 1 waits at 'ccl.wait'
func.func @k(%cell: memref<1xi32, #ccl.window>, %never: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %b = ccl.block_id : index
  %first = arith.cmpi eq, %b, %c0 : index
  scf.if %first {
    ccl.notify set %cell, %me, %one : memref<1xi32, #ccl.window>, index, i32
  } else {
    %seen = ccl.read %cell[%c0] : memref<1xi32, #ccl.window> -> i32
    %set = arith.cmpi eq, %seen, %one : i32
    scf.if %set {
      ccl.wait ge %never, %one : memref<1xi32, #ccl.window>, i32
    }
  }
  return
}

func.func @main(%cell: memref<1xi32, #ccl.window>, %never: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @k(%cell, %never) {ccl.launch_width = 2 : i64}
      : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
