// A run of fences keeps its first; fences apart, or in different blocks,
// all stay; a second run of the pass changes nothing.
// RUN: ccl-opt %s --ccl-drop-adjacent-fences | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(func.func(ccl-drop-adjacent-fences))' -o %t
// RUN: ccl-opt %t --ccl-drop-adjacent-fences | diff %t -
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s -o %t.upstream

// CHECK-LABEL: func.func @run
// CHECK-NEXT:    ccl.fence
// CHECK-NEXT:    ccl.cacheinvalid
// CHECK-NEXT:    ccl.fence
// CHECK-NEXT:    return
func.func @run() attributes {ccl.kind = "aiv"} {
  ccl.fence
  ccl.fence
  ccl.fence
  ccl.cacheinvalid
  ccl.fence
  ccl.fence
  return
}

// Each branch is a block of its own: its first fence stays.
// CHECK-LABEL: func.func @branches
// CHECK:         ccl.fence
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      ccl.fence
// CHECK-NEXT:    } else {
// CHECK-NEXT:      ccl.fence
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @branches(%c: i1) attributes {ccl.kind = "aiv"} {
  ccl.fence
  scf.if %c {
    ccl.fence
    ccl.fence
  } else {
    ccl.fence
  }
  return
}

// Orchestration functions too.
// CHECK-LABEL: func.func @host
// CHECK-NEXT:    ccl.fence
// CHECK-NEXT:    return
func.func @host() attributes {ccl.kind = "orchestration"} {
  ccl.fence
  ccl.fence
  return
}
