// The schedule of a finding: its last 40 steps, the earlier ones counted;
// --trace prints all of them, and with --random every schedule as it runs.
// REQUIRES: ccl-sim
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | grep "'ccl.notify' at" | count 38
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --trace 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --trace 2>&1 | grep "'ccl.notify' at" | count 45
// RUN: %expect-exit 3 ccl-sim %S/Inputs/racy.mlir --ranks 2 --random 20 --seed 1 --trace 2>&1 | FileCheck %s --check-prefix=RANDOM
//
// Rank 0 puts into rank 1's window without a fence, then notifies rank 1 45
// times; rank 1 waits for all 45 and reads the window. The shortest racy
// schedule is the 45 notifies, the wait and the read, with the put still in
// flight: 47 steps.

// SHORT:      error: data race: stale read of element 0 of argument #0 of @main on rank 1
// SHORT:      {{^}}schedule (47 steps, found after {{[0-9]+}} states):{{$}}
// SHORT-NEXT: {{^}}  ... 7 earlier steps (--trace prints them){{$}}
// SHORT-NEXT: {{^ +}}8. rank 0 block 0: 'ccl.notify' at {{.*}}trace.mlir:[[@LINE+26]]:7{{$}}
// SHORT:      {{^ +}}45. rank 0 block 0: 'ccl.notify' at {{.*}}trace.mlir:[[@LINE+25]]:7{{$}}
// SHORT-NEXT: {{^ +}}46. rank 1 block 0: 'ccl.wait' at {{.*}}trace.mlir:[[@LINE+27]]:5{{$}}
// SHORT-NEXT: {{^ +}}47. rank 1 block 0: 'ccl.read' at {{.*}}trace.mlir:[[@LINE+28]]:10{{$}}
// SHORT-NOT:  {{.}}

// FULL:      {{^}}schedule (47 steps, found after {{[0-9]+}} states):{{$}}
// FULL-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}trace.mlir:[[@LINE+19]]:7{{$}}
// FULL-NEXT: {{^ +}}2. rank 0 block 0: 'ccl.notify' at {{.*}}trace.mlir:[[@LINE+18]]:7{{$}}
// FULL-NOT:  earlier steps
// FULL:      {{^ +}}47. rank 1 block 0: 'ccl.read' at {{.*}}trace.mlir:[[@LINE+21]]:10{{$}}
// FULL-NOT:  {{.}}

func.func @kernel(%win: memref<1xi32, #ccl.window>, %src: memref<1xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c45 = arith.constant 45 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %all = arith.constant 45 : i32
  %rank = ccl.rank : i32
  %sender = arith.cmpi eq, %rank, %zero : i32
  scf.if %sender {
    ccl.put %win, %src, %one : memref<1xi32, #ccl.window>, memref<1xi32>, i32
    scf.for %i = %c0 to %c45 step %c1 {
      ccl.notify atomic_add %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
    }
  } else {
    ccl.wait ge %sig, %all : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %v = ccl.read %win[%c0] : memref<1xi32, #ccl.window> -> i32
  }
  return
}

func.func @main(%win: memref<1xi32, #ccl.window>, %src: memref<1xi32>, %sig: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%win, %src, %sig) : (memref<1xi32, #ccl.window>, memref<1xi32>, memref<1xi32, #ccl.window>) -> ()
  return
}

// Seed 1 finds the race on its fourth schedule; the three before it are
// printed as they ran (the put landed before the notify), then the report
// with the racy one.
// RANDOM:      {{^}}schedule 1:{{$}}
// RANDOM-NEXT: {{^ +}}1. rank 0 block 0: the 4 writes of 'ccl.put' at {{.*}}racy.mlir:12:5 land{{$}}
// RANDOM-NEXT: {{^ +}}2. rank 0 block 0: 'ccl.notify' at {{.*}}racy.mlir:13:5{{$}}
// RANDOM-NEXT: {{^ +}}3. rank 1 block 0: 'ccl.wait' at {{.*}}racy.mlir:15:5{{$}}
// RANDOM-NEXT: {{^}}schedule 2:{{$}}
// RANDOM:      {{^}}schedule 3:{{$}}
// RANDOM:      {{^}}schedule 4:{{$}}
// RANDOM-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}racy.mlir:13:5{{$}}
// RANDOM-NEXT: {{^ +}}2. rank 1 block 0: 'ccl.wait' at {{.*}}racy.mlir:15:5{{$}}
// RANDOM-NEXT: {{^ +}}3. rank 1 block 0: 'ccl.read' at {{.*}}racy.mlir:17:10{{$}}
// RANDOM-NEXT: racy.mlir:17:10: error: data race: stale read
// RANDOM-NOT:  schedule 5:
// RANDOM:      {{^}}schedule (3 steps, found after 16 states):{{$}}
// RANDOM-NEXT: {{^ +}}1. rank 0 block 0: 'ccl.notify' at {{.*}}racy.mlir:13:5{{$}}
// RANDOM-NEXT: {{^ +}}2. rank 1 block 0: 'ccl.wait' at {{.*}}racy.mlir:15:5{{$}}
// RANDOM-NEXT: {{^ +}}3. rank 1 block 0: 'ccl.read' at {{.*}}racy.mlir:17:10{{$}}
// RANDOM-NOT:  {{.}}
