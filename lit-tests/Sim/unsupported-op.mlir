// An op ccl-sim does not execute, reachable from the entry, is a located
// error before anything runs (exit 1): nothing is skipped silently. The
// same op in a function the entry never reaches is not looked at.
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=SQRT
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry main_load 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_unreached 2>&1 | FileCheck %s --check-prefix=UNREACHED

// math.sqrt in the kernel @main launches. The first unsupported op is the
// one reported, and the run stops there: no schedule.
// SQRT:      unsupported-op.mlir:[[@LINE+5]]:8: error: ccl-sim does not execute 'math.sqrt'
// SQRT-NOT:  {{.}}
func.func @sqrt_kernel(%buf: memref<4xf32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %x = ccl.read %buf[%c0] : memref<4xf32> -> f32
  %y = math.sqrt %x : f32
  %z = memref.load %buf[%c0] : memref<4xf32>
  return
}

func.func @main(%buf: memref<4xf32>) attributes {ccl.kind = "orchestration"} {
  func.call @sqrt_kernel(%buf) : (memref<4xf32>) -> ()
  return
}

// memref.load is not in the model either (its GM accesses are the ccl ops,
// through the caches), so it is refused, not run as a plain load. Here it is
// reached through a helper without a kind, called by the orchestration
// function.
// LOAD:      unsupported-op.mlir:[[@LINE+4]]:8: error: ccl-sim does not execute 'memref.load'
// LOAD-NOT:  {{.}}
func.func @helper(%buf: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %z = memref.load %buf[%c0] : memref<4xf32>
  return
}

func.func @main_load(%buf: memref<4xf32>) attributes {ccl.kind = "orchestration"} {
  func.call @helper(%buf) : (memref<4xf32>) -> ()
  return
}

// UNREACHED: ccl-sim: no race: 1 states explored, every schedule of 2 ranks
func.func @main_unreached(%buf: memref<4xf32>) attributes {ccl.kind = "orchestration"} {
  return
}
