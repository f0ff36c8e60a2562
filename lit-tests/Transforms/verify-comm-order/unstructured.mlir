// Shapes outside structured control flow: a region of several blocks is
// followed along its branches (cfg.mlir has more); an unknown op with
// regions (memref.alloca_scope here) may run its regions any number of
// times, in any order. Functions that are not kernels or scan targets are
// not checked; an unknown ccl.kind is an error.
// RUN: ccl-opt %s --split-input-file --pass-pipeline='builtin.module(ccl-verify-comm-order)' --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file %s -o /dev/null 2>/dev/null

func.func @blocks(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                  %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  scf.execute_region {
    cf.cond_br %c, ^publish, ^signal
  ^publish:
    // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    cf.br ^signal
  ^signal:
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    scf.yield
  }
  ccl.fence
  return
}

// -----

func.func @scope(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                 %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  memref.alloca_scope {
    // expected-note @+1 {{the ccl.notify it reaches}}
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
    ccl.remote_store %t, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
  }
  ccl.fence
  return
}

// -----

// expected-error @+1 {{unknown ccl.kind "kernel"}}
func.func @bad(%w: memref<64xf32, #ccl.window>) attributes {ccl.kind = "kernel"} {
  return
}
