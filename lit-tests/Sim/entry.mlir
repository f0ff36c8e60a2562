// --entry NAME picks the function every rank runs (with or without the '@');
// the default is @main. An orchestration entry launches kernels; a kernel
// named as the entry is launched directly, at its ccl.launch_width.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=MAIN
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_own 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry @main_own 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry=same 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry own 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry nothere 2>&1 | FileCheck %s --check-prefix=NONE

// Both blocks of a launch write element 0, and nothing orders two blocks of
// one launch: an unordered write-write race, found as the second write is
// issued (no step of the schedule needed).
// MAIN:      entry.mlir:[[@LINE+12]]:3: error: data race: unordered accesses to element 0 of argument #0 of @main on rank 0: no happens-before edge orders them
// MAIN-NEXT: entry.mlir:[[@LINE+11]]:3: note: write by rank 0 block 0 'ccl.tensor_write' in launch 1 of @same
// MAIN-NEXT: entry.mlir:[[@LINE+10]]:3: note: write by rank 0 block 1 'ccl.tensor_write' in launch 1 of @same
// MAIN-NEXT: schedule (0 steps, found after {{[0-9]+}} states):
// MAIN-NOT:  {{.}}
// The same kernel as the entry: the buffer is its own argument now.
// KERNEL:      entry.mlir:[[@LINE+6]]:3: error: data race: unordered accesses to element 0 of argument #0 of @same on rank 0: no happens-before edge orders them
// KERNEL-NEXT: entry.mlir:[[@LINE+5]]:3: note: write by rank 0 block 0 'ccl.tensor_write' in launch 1 of @same
// KERNEL-NEXT: entry.mlir:[[@LINE+4]]:3: note: write by rank 0 block 1 'ccl.tensor_write' in launch 1 of @same
func.func @same(%buf: memref<4xi32>) attributes {ccl.kind = "aiv", ccl.launch_width = 2 : i64} {
  %c0 = arith.constant 0 : index
  %block = ccl.block_id : i32
  ccl.tensor_write %buf[%c0], %block : memref<4xi32>, i32
  return
}

// Each block writes its own element: no race, whether launched from
// @main_own or as the entry itself (which then finishes with its blocks).
// OWN:      {{^}}ccl-sim: no race: 1 states explored, every schedule of 2 ranks{{$}}
// OWN-NEXT: {{^}}ccl-sim: executed: fences 0, region invalidates 0, whole-GM invalidates 0, lines written back 0{{$}}
// OWN-NEXT: {{^}}ccl-sim:   @own: launches 2, fences 0, region invalidates 0, whole-GM invalidates 0, lines written back 0{{$}}
// OWN-NOT:  {{.}}
func.func @own(%buf: memref<4xi32>) attributes {ccl.kind = "aiv", ccl.launch_width = 2 : i64} {
  %index = ccl.block_id : index
  %block = ccl.block_id : i32
  ccl.tensor_write %buf[%index], %block : memref<4xi32>, i32
  return
}

func.func @main(%buf: memref<4xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @same(%buf) : (memref<4xi32>) -> ()
  return
}

func.func @main_own(%buf: memref<4xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @own(%buf) : (memref<4xi32>) -> ()
  return
}

// NONE:     entry.mlir:{{[0-9]+}}:{{[0-9]+}}: error: no function @nothere to run (--entry)
// NONE-NOT: ccl-sim: no race
