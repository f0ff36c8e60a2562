// Phase B through branches and scopes: scf.if scans then and else with the
// incoming flag and continues with then OR else (an empty else keeps the
// incoming flag); scf.execute_region is its body.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// `if { coll } else {}; consume` marks consume: once with an else block that
// only yields, once with no else region at all.
// CHECK-LABEL: func.func @after_if_else()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @after_if()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @after_if_else() attributes {ccl.kind = "incore"} {
  return
}
func.func @after_if() attributes {ccl.kind = "incore"} {
  return
}
func.func @if_coll_else_empty(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    ccl.barrier
  } else {
  }
  func.call @after_if_else() : () -> ()
  return
}
func.func @if_coll_no_else(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    ccl.barrier
  }
  func.call @after_if() : () -> ()
  return
}

// The collective in the else branch counts the same.
// CHECK-LABEL: func.func @after_else_coll()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @after_else_coll() attributes {ccl.kind = "incore"} {
  return
}
func.func @if_empty_else_coll(%c: i1, %a: memref<8xf32>, %b: memref<8xf32>) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
  } else {
    ccl.all_reduce max %a, %b : memref<8xf32>, memref<8xf32>
  }
  func.call @after_else_coll() : () -> ()
  return
}

// Branches do not see each other: a launch in then is not after a
// collective in else (outside any loop).
// CHECK-LABEL: func.func @in_then()
// CHECK-NEXT: return
func.func @in_then() attributes {ccl.kind = "incore"} {
  return
}
func.func @sibling_branches(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    func.call @in_then() : () -> ()
  } else {
    ccl.barrier
  }
  return
}

// A collective before the if reaches both branches.
// CHECK-LABEL: func.func @then_after()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @else_after()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @then_after() attributes {ccl.kind = "incore"} {
  return
}
func.func @else_after() attributes {ccl.kind = "incore"} {
  return
}
func.func @coll_then_if(%c: i1) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  scf.if %c {
    func.call @then_after() : () -> ()
  } else {
    ccl.submit @else_after() : () -> ()
  }
  return
}

// scf.execute_region: its body, in both directions.
// CHECK-LABEL: func.func @after_region()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @inside_region()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @after_region() attributes {ccl.kind = "incore"} {
  return
}
func.func @inside_region() attributes {ccl.kind = "incore"} {
  return
}
func.func @execute_region_coll() attributes {ccl.kind = "orchestration"} {
  scf.execute_region {
    ccl.barrier
    scf.yield
  }
  func.call @after_region() : () -> ()
  return
}
func.func @coll_then_execute_region() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  scf.execute_region {
    func.call @inside_region() : () -> ()
    scf.yield
  }
  return
}

// A branch inside a loop: the rescan reaches the launch in the other
// branch (iteration k takes else, iteration k+1 takes then).
// CHECK-LABEL: func.func @branch_in_loop()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @branch_in_loop() attributes {ccl.kind = "incore"} {
  return
}
func.func @if_in_for(%c: i1, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    scf.if %c {
      func.call @branch_in_loop() : () -> ()
    } else {
      ccl.barrier
    }
  }
  return
}
