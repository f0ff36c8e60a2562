// A cell that goes up and down again: block 0 adds 1 then adds -1 (or sets
// it back to 0); block 1 waits for it to reach 1. If block 1 does not look
// while the cell is 1, it waits for ever: a deadlock. A search that passes a
// wait the moment it holds, or cuts an execution where a wait was left for an
// add that lowers its cell, never reports it.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --reference 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --por dpor 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --no-reduction --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --entry main_set --reference 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --entry main_set 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --entry main_set --por off 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --entry main_set --por dpor 2>&1 | FileCheck %s
// RUN: %expect-exit 3 ccl-sim %s --ranks 1 --entry main_set --no-reduction --por off 2>&1 | FileCheck %s
// CHECK: error: deadlock: no step is possible and some threads have not finished
// CHECK: reference-lowered-cell.mlir:{{[0-9]+}}:5: note: rank 0 block 1 waits at 'ccl.wait'
func.func @k(%cell: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %minus = arith.constant -1 : i32
  %me = ccl.rank : index
  %b = ccl.block_id : index
  %first = arith.cmpi eq, %b, %c0 : index
  scf.if %first {
    ccl.notify atomic_add %cell, %me, %one : memref<1xi32, #ccl.window>, index, i32
    ccl.notify atomic_add %cell, %me, %minus : memref<1xi32, #ccl.window>, index, i32
  } else {
    ccl.wait ge %cell, %one : memref<1xi32, #ccl.window>, i32
  }
  return
}

func.func @k_set(%cell: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %me = ccl.rank : index
  %b = ccl.block_id : index
  %first = arith.cmpi eq, %b, %c0 : index
  scf.if %first {
    ccl.notify atomic_add %cell, %me, %one : memref<1xi32, #ccl.window>, index, i32
    ccl.notify set %cell, %me, %zero : memref<1xi32, #ccl.window>, index, i32
  } else {
    ccl.wait ge %cell, %one : memref<1xi32, #ccl.window>, i32
  }
  return
}

func.func @main(%cell: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @k(%cell) {ccl.launch_width = 2 : i64} : (memref<1xi32, #ccl.window>) -> ()
  return
}

func.func @main_set(%cell: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @k_set(%cell) {ccl.launch_width = 2 : i64} : (memref<1xi32, #ccl.window>) -> ()
  return
}
