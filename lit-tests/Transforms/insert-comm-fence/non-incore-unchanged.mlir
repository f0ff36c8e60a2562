// A module without InCore functions is printed exactly as it was read: the
// pass changes nothing in orchestration-like, group, spmd, opaque or
// kind-less functions, whatever they contain (publishes, waits, collectives,
// launches of non-kernels, wrappers, loops).
// RUN: ccl-opt %s > %t.before
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' > %t.after
// RUN: diff %t.before %t.after
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

func.func private @host_helper()

func.func @group(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32, %i: index)
    attributes {ccl.kind = "group"} {
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.put %w, %w, %x : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  func.call @host_helper() : () -> ()
  return
}

func.func @spmd(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "spmd"} {
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

func.func @plain(%sig: memref<8xi32, #ccl.window>, %x: i32) {
  ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}

func.func @wrapper() attributes {ccl.kind = "graph"} {
  func.call @group_launcher() : () -> ()
  return
}

func.func @group_launcher() attributes {ccl.kind = "opaque"} {
  func.call @host_helper() : () -> ()
  return
}

func.func @main(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %sig: memref<8xi32, #ccl.window>, %x: i32,
                %lb: index, %ub: index, %s: index) attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  ccl.barrier
  func.call @group(%t, %w, %sig, %x, %lb) : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32, index) -> ()
  scf.for %i = %lb to %ub step %s {
    func.call @spmd(%sig, %x, %lb, %ub, %s) : (memref<8xi32, #ccl.window>, i32, index, index, index) -> ()
    func.call @wrapper() : () -> ()
    ccl.submit @plain() : () -> ()
    ccl.all_reduce min %w, %w : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>
  }
  ccl.tile_store %t, %w[%lb] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
