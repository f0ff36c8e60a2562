// Rule 5 with nested loops: only the outermost pure wait loop gets the
// marker. A pure wait loop inside a NotPure loop is the outermost one.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// for { while { wait } }: one marker, after the outer for.
// CHECK-LABEL: func.func @outermost_only
// CHECK: scf.for
// CHECK-NEXT: scf.while
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @outermost_only(%sig: memref<8xi32, #ccl.window>, %x: i32, %go: i1, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    scf.while : () -> () {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
      scf.condition(%go)
    } do {
      scf.yield
    }
  }
  return
}

// A Pure outer loop around a pure wait loop is itself PureWithWait.
// CHECK-LABEL: func.func @pure_outer
// CHECK: scf.parallel
// CHECK-NEXT: arith.addi
// CHECK-NEXT: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @pure_outer(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.parallel (%p) = (%lb) to (%ub) step (%s) {
    %y = arith.addi %x, %x : i32
    scf.for %i = %lb to %ub step %s {
      ccl.wait ge %sig, %y : memref<8xi32, #ccl.window>, i32
    }
    scf.reduce
  }
  return
}

// for { store; for { wait } }: the outer loop is NotPure, the inner one is
// the outermost pure wait loop: its marker is inside the outer loop.
// CHECK-LABEL: func.func @inner_in_not_pure
// CHECK: scf.for
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @inner_in_not_pure(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                             %x: i32, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    scf.for %k = %lb to %ub step %s {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    }
  }
  return
}

// Ops the classification does not list are NotPure: scf.execute_region
// around the wait makes the loop NotPure, so the wait gets rule 4's marker.
// CHECK-LABEL: func.func @execute_region_not_pure
// CHECK: scf.for
// CHECK-NEXT: scf.execute_region
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @execute_region_not_pure(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    scf.execute_region {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
      scf.yield
    }
  }
  return
}
