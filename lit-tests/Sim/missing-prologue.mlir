// A kernel launched after a collective without its prologue: the first
// launch of @consume reads the window (the line stays in block slot 0's
// cache, which survives the launch); the all_reduce then writes the window
// in memory, behind every cache; the second launch, on the same slot,
// reads its stale line. The insert pass gives @consume its prologue
// (ccl.cacheinvalid + ccl.fence at entry).
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s --check-prefix=PROLOGUE
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | %expect-exit 0 ccl-sim - --ranks 2 | FileCheck %s --check-prefix=MARKED
// RUN: not ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC

// RAW: missing-prologue.mlir:25:8: error: data race: stale read of element 0 of argument #1 of @main on rank {{[01]}}
// RAW-NEXT: missing-prologue.mlir:25:8: note: the stale read by rank {{[01]}} block 0 'ccl.read' in launch 2 of @consume
// RAW-NEXT: missing-prologue.mlir:30:3: note: the newer write by rank {{[01]}} host 'ccl.all_reduce', not yet visible to it
// RAW-NEXT: schedule (1 steps, found after {{[0-9]+}} states):
// RAW-NEXT: 1. every rank: 'ccl.all_reduce' at {{.*}}missing-prologue.mlir:30:3
// PROLOGUE-LABEL: func.func @consume(
// PROLOGUE-NEXT: ccl.cacheinvalid{{$}}
// PROLOGUE-NEXT: ccl.fence
// MARKED: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks
// STATIC: missing-prologue.mlir:31:3: error: InCore function @consume is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence

func.func @consume(%w: memref<4xf32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  %v = ccl.read %w[%i0] : memref<4xf32, #ccl.window> -> f32
  return
}
func.func @main(%src: memref<4xf32>, %w: memref<4xf32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @consume(%w) : (memref<4xf32, #ccl.window>) -> ()
  ccl.all_reduce sum %src, %w : memref<4xf32>, memref<4xf32, #ccl.window>
  func.call @consume(%w) : (memref<4xf32, #ccl.window>) -> ()
  return
}
