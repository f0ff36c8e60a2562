// Phase A walks every block, nested regions included: markers land right
// after their op at every nesting level (scf.if in scf.for in scf.while, both
// regions of scf.while, scf.execute_region, parallel loops, an else branch).
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

func.func private @helper() -> ()

// CHECK-LABEL: func.func @deep
// CHECK-SAME: (%[[T:[^:]*]]: vector<16xf32>, %[[W:[^:]*]]: memref<64xf32, #ccl.window>, %[[SIG:[^:]*]]: memref<8xi32, #ccl.window>
// CHECK: scf.while
// CHECK-NEXT: ccl.tile_store %[[T]], %[[W]][
// CHECK-NEXT: ccl.cacheinvalid %[[W]] :
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.remote_store
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: } else {
// CHECK-NEXT: call @helper()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.put
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @deep(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                %x: i32, %go: i1, %c: i1, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "incore"} {
  scf.while : () -> () {
    ccl.tile_store %t, %win[%lb] : vector<16xf32>, memref<64xf32, #ccl.window>
    scf.condition(%go)
  } do {
    scf.for %i = %lb to %ub step %s {
      scf.if %c {
        ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
        ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
        ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
      } else {
        func.call @helper() : () -> ()
      }
    }
    ccl.put %win, %win, %x : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, i32
    scf.yield
  }
  return
}

// CHECK-LABEL: func.func @scopes_and_parallel
// CHECK: scf.execute_region
// CHECK-NEXT: ccl.get
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.yield
// CHECK: scf.parallel
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: scf.reduce
// CHECK: scf.forall
// CHECK-NEXT: ccl.submit
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @scopes_and_parallel(%win: memref<64xf32, #ccl.window>, %src: memref<64xf32>, %v: f32, %x: i32,
                               %lb: index, %ub: index, %s: index) attributes {ccl.kind = "incore"} {
  scf.execute_region {
    ccl.get %win, %src, %x : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    scf.yield
  }
  scf.parallel (%i) = (%lb) to (%ub) step (%s) {
    ccl.tensor_write %win[%i], %v : memref<64xf32, #ccl.window>, f32
    scf.reduce
  }
  scf.forall (%i) in (%ub) {
    ccl.submit @helper() : () -> ()
  }
  return
}
