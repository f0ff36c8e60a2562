// The pass is idempotent: running it on its own output changes nothing
// (byte-identical), for a program that exercises every Phase A rule and the
// Phase B prologue, with markers at several nesting levels.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' > %t1
// RUN: ccl-opt %t1 -p 'builtin.module(ccl-insert-comm-fence)' > %t2
// RUN: diff %t1 %t2
// The first run did insert markers (so the diff above is not vacuous).
// RUN: ccl-opt %s > %t0
// RUN: not diff %t0 %t1 > /dev/null
// RUN: FileCheck %s < %t1
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @dispatch
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-LABEL: func.func @combine
// CHECK-LABEL: func.func @main

func.func private @log()

func.func @dispatch(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                    %src: memref<64xf32>, %x: i32, %go: i1, %c: i1, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "aiv"} {
  scf.for %i = %lb to %ub step %s {
    ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
    scf.if %c {
      ccl.remote_store %t, %win, %x : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    } else {
      ccl.put %win, %src, %x : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    }
    ccl.notify atomic_add %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  }
  scf.while : () -> () {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    scf.condition(%go)
  } do {
    scf.yield
  }
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  %y = arith.addi %x, %x : i32
  ccl.wait eq %sig, %y : memref<8xi32, #ccl.window>, i32
  %v = ccl.tile_load %win[%lb] : memref<64xf32, #ccl.window> -> vector<16xf32>
  ccl.submit @log() : () -> ()
  func.call @log() : () -> ()
  scf.execute_region {
    ccl.get %win, %src, %x : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    scf.yield
  }
  return
}

func.func @combine(%win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %v: f32, %n: index)
    attributes {ccl.kind = "aic"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  scf.forall (%i) in (%n) {
    ccl.tensor_write %win[%i], %v : memref<64xf32, #ccl.window>, f32
  }
  return
}

func.func @stage_wrapper(%win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %v: f32, %n: index)
    attributes {ccl.kind = "graph"} {
  func.call @combine(%win, %sig, %x, %v, %n) : (memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32, f32, index) -> ()
  return
}

func.func @main(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>,
                %src: memref<64xf32>, %x: i32, %go: i1, %c: i1, %v: f32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "orchestration"} {
  scf.for %step = %lb to %ub step %s {
    func.call @dispatch(%t, %win, %sig, %src, %x, %go, %c, %lb, %ub, %s)
      : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, memref<64xf32>, i32, i1, i1, index, index, index) -> ()
    ccl.all_reduce sum %win, %win : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>
    func.call @stage_wrapper(%win, %sig, %x, %v, %ub) : (memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32, f32, index) -> ()
  }
  return
}
