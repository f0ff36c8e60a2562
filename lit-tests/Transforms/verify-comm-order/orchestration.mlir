// Phase B: in an orchestration-like function, every InCore function called
// on a path after a publish (a collective, a ccl.submit, a call to a
// builtin-template kernel) - loop-carried paths included, parallel loops
// excluded - must invalidate whole-GM before its first GM read. The error
// is at the call, with notes at the kernel's first unprotected read and at
// the publish.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order{sync=false})' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  // expected-note @+1 {{the first GM read of @consume it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @host(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  ccl.barrier
  // expected-error @+1 {{InCore function @consume is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence}}
  func.call @consume(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// -----

// Loop-carried: the consumer runs before the collective in program order,
// but after the collective of the previous iteration.
func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  ccl.fence
  // expected-note @+1 {{the first GM read of @consume it reaches}}
  %x = ccl.tile_load %w[%i] : memref<64xf32, #ccl.window> -> vector<16xf32>
  ccl.cacheinvalid
  %y = ccl.tile_load %w[%i] : memref<64xf32, #ccl.window> -> vector<16xf32>
  return
}

func.func @host(%a: memref<64xf32>, %b: memref<64xf32>, %w: memref<64xf32, #ccl.window>, %lb: index, %ub: index,
                %st: index) attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  scf.for %k = %lb to %ub step %st {
    // expected-error @+1 {{InCore function @consume is launched after a publish}}
    func.call @consume(%w, %k) : (memref<64xf32, #ccl.window>, index) -> ()
    // expected-note @+1 {{the publish it runs after}}
    ccl.all_reduce sum %a, %b : memref<64xf32>, memref<64xf32>
  }
  return
}

// -----

// Through a wrapper: the kernels the wrapper reaches, transitively, on a
// recursive call graph; a wrapper-to-wrapper cycle does not loop.
func.func @kernel(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  // expected-note @+1 {{the first GM read of @kernel it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @wrap_b(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "graph"} {
  func.call @wrap_a(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  func.call @kernel(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @wrap_a(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "graph"} {
  func.call @wrap_b(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @host(%w: memref<64xf32, #ccl.window>, %c: memref<64xi32>, %i: index, %blocks: i32)
    attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  ccl.all_to_all_v %w, %c, %w, %c, blocks %blocks : memref<64xf32, #ccl.window>, memref<64xi32>, memref<64xf32, #ccl.window>, memref<64xi32>, i32
  // expected-error @+1 {{call to @wrap_a launches InCore function @kernel after a publish, but @kernel reads GM before a whole-GM ccl.cacheinvalid()}}
  func.call @wrap_a(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// -----

// A collective on one branch reaches the consumer after the if.
func.func @consume(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  // expected-note @+1 {{the first GM read of @consume it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @host(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    // expected-note @+1 {{the publish it runs after}}
    ccl.barrier
  }
  // expected-error @+1 {{InCore function @consume is launched after a publish}}
  func.call @consume(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// -----

// Passes: the consumer has the prologue (as ccl-insert-comm-fence places
// it), or invalidates before its first read, or reads nothing; a consumer
// before the collective in straight-line code; consumers in a parallel loop
// (iterations unordered); a stage before the collective.
func.func @with_prologue(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.cacheinvalid
  ccl.fence
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @late_invalidate(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "incore"} {
  scf.if %c {
    ccl.cacheinvalid
  } else {
    ccl.cacheinvalid
  }
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @no_read(%t: vector<16xf32>, %p: memref<64xf32>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %p[%i] : vector<16xf32>, memref<64xf32>
  return
}

func.func @stage(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  // expected-note @below {{the first GM read of @stage it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @host(%w: memref<64xf32, #ccl.window>, %t: vector<16xf32>, %p: memref<64xf32>, %i: index, %lb: index,
                %ub: index, %st: index) attributes {ccl.kind = "orchestration"} {
  func.call @stage(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  ccl.barrier
  func.call @with_prologue(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  ccl.submit @late_invalidate(%w) : (memref<64xf32, #ccl.window>) -> ()
  func.call @no_read(%t, %p, %i) : (vector<16xf32>, memref<64xf32>, index) -> ()
  return
}

func.func @parallel_host(%w: memref<64xf32, #ccl.window>, %i: index, %lb: index, %ub: index, %st: index)
    attributes {ccl.kind = "orchestration"} {
  scf.parallel (%k) = (%lb) to (%ub) step (%st) {
    // expected-error @below {{InCore function @stage is launched after a publish the rules' Phase B does not count (in an earlier iteration}}
    func.call @stage(%w, %k) : (memref<64xf32, #ccl.window>, index) -> ()
    // expected-note @below {{the publish it runs after}}
    ccl.barrier
    scf.reduce
  }
  return
}
