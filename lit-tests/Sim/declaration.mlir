// A call of a function without a body cannot be run: a located error at the
// call before anything runs (exit 1). The same declaration named as the
// entry is an error at the declaration.
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry external 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry main_nested 2>&1 | FileCheck %s --check-prefix=NESTED

// ENTRY:     declaration.mlir:[[@LINE+2]]:1: error: ccl-sim cannot run @external: it is a declaration without a body
// ENTRY-NOT: {{.}}
func.func private @external(memref<4xi32>) attributes {ccl.kind = "aiv"}

// CALL:     declaration.mlir:[[@LINE+3]]:3: error: ccl-sim cannot run @external: it is a declaration without a body
// CALL-NOT: {{.}}
func.func @main(%buf: memref<4xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @external(%buf) : (memref<4xi32>) -> ()
  return
}

// Reached through a kernel's own call, the declaration is refused as well.
// NESTED:     declaration.mlir:[[@LINE+3]]:3: error: ccl-sim cannot run @external: it is a declaration without a body
// NESTED-NOT: {{.}}
func.func @kernel(%buf: memref<4xi32>) attributes {ccl.kind = "aiv"} {
  func.call @external(%buf) : (memref<4xi32>) -> ()
  return
}

func.func @main_nested(%buf: memref<4xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @kernel(%buf) : (memref<4xi32>) -> ()
  return
}
