// Empty strings in the checker: @"" is checked as any kernel and named
// @"" in messages; a call to a builtin template whose directory is "" is a
// publish; empty ccl.level/ccl.role make nothing a scan target; ccl.kind = ""
// is an unknown kind.
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-verify-comm-order)' --verify-diagnostics -o /dev/null

func.func @""(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
              %peer: i32) attributes {ccl.kind = "incore"} {
  // expected-note @+1 {{the first GM read of @"" it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  // expected-error @+1 {{local publish reaches a ccl.notify without ccl.fence after the ccl.cacheinvalid of its window}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  ccl.fence
  return
}

func.func @unscanned(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  // expected-note @below {{the first GM read of @unscanned it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @after_template(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  // expected-note @+1 {{the first GM read of @after_template it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func private @template() attributes {ccl.builtin_template_dir = ""}

func.func @empty_level(%w: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.level = "", ccl.role = "orchestrator"} {
  // expected-note @below {{the publish it runs after}}
  ccl.barrier
  // expected-error @below {{InCore function @unscanned is launched after a publish the rules' Phase B does not count (in an earlier iterat}}
  call @unscanned(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @empty_role(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.level = "host", ccl.role = ""} {
  // expected-note @below {{the publish it runs after}}
  ccl.barrier
  // expected-error @below {{InCore function @unscanned is launched after a publish the rules' Phase B does not count (in an earlier iterat}}
  call @unscanned(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @orch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
                %peer: i32) attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  ccl.submit @""() : () -> ()
  // expected-error @+1 {{InCore function @"" is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid()}}
  call @""(%t, %w, %s, %i, %peer) : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index, i32) -> ()
  return
}

func.func @orch_template(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "graph"} {
  // expected-note @+1 {{the publish it runs after}}
  call @template() : () -> ()
  // expected-error @+1 {{InCore function @after_template is launched after a publish}}
  call @after_template(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// -----

// expected-error @+1 {{unknown ccl.kind ""; accepted kinds: incore, aic, aiv, orchestration, graph, group, spmd, opaque}}
func.func @k() attributes {ccl.kind = ""} {
  return
}
