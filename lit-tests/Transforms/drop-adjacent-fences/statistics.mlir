// The statistic counts the fences dropped.
// RUN: ccl-opt %s --ccl-drop-adjacent-fences --mlir-pass-statistics -o %t 2>&1 | FileCheck %s
// CHECK: CclDropAdjacentFences
// CHECK: 2 fences-dropped - Fences erased because the op right before them is a fence

func.func @k() attributes {ccl.kind = "aiv"} {
  ccl.fence
  ccl.fence
  ccl.fence
  return
}
