// Chunks are processed on their own and their outputs joined with the
// marker; output and diagnostics are those of upstream mlir-opt.
// RUN: ccl-opt --split-input-file %s | FileCheck %s
// RUN: ccl-opt --split-input-file %s > %t.ccl
// RUN: mlir-opt --split-input-file %s > %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: ccl-opt --split-input-file --output-split-marker='// =====' %s | FileCheck %s --check-prefix=MARKER

// CHECK-LABEL: func.func @first
// CHECK: // {{-----}}
// CHECK-LABEL: func.func @second
// CHECK-NOT: @first
// MARKER: @first
// MARKER: // =====
// MARKER: @second
func.func @first() {
  return
}

// -----

func.func @second(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
