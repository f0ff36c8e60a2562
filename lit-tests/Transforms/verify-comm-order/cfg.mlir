// The checker follows real successor edges in regions of several blocks,
// in kernels and in orchestration functions: a path no branch makes is
// not a path; a back edge is.
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-verify-comm-order)' --verify-diagnostics -o /dev/null

// Passes: the store's path runs through the markers; the notify's path has
// no store on it.
func.func @split(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
                 %c: i1, %peer: i32) attributes {ccl.kind = "incore"} {
  cf.cond_br %c, ^store, ^notify
^store:
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  cf.br ^markers
^markers:
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  return
^notify:
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

// -----

// The same blocks, but the store's block falls through to the notify.
func.func @joined(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
                  %c: i1, %peer: i32) attributes {ccl.kind = "incore"} {
  cf.cond_br %c, ^store, ^notify
^store:
  // expected-error @+2 {{local publish reaches a ccl.notify without ccl.cacheinvalid}}
  // expected-error @+1 {{local publish reaches the function's return without ccl.cacheinvalid}}
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  cf.br ^notify
^markers:
  ccl.cacheinvalid %w : memref<64xf32, #ccl.window>
  ccl.fence
  return
^notify:
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  // expected-note @+1 {{the return it reaches}}
  return
}

// -----

// A back edge: the put after the notify reaches it in the next iteration.
func.func @back_edge(%w: memref<64xf32, #ccl.window>, %p: memref<64xf32>, %s: memref<8xi32, #ccl.window>,
                     %c: i1, %peer: i32) attributes {ccl.kind = "aiv"} {
  cf.br ^loop
^loop:
  // expected-note @+1 {{the ccl.notify it reaches}}
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  // expected-error @+1 {{remote publish reaches a ccl.notify without ccl.fence}}
  ccl.put %w, %p, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  cf.cond_br %c, ^loop, ^exit
^exit:
  ccl.fence
  return
}

// -----

// Passes: the same loop with the fence before the back edge.
func.func @back_edge_fenced(%w: memref<64xf32, #ccl.window>, %p: memref<64xf32>, %s: memref<8xi32, #ccl.window>,
                            %c: i1, %peer: i32) attributes {ccl.kind = "aiv"} {
  cf.br ^loop
^loop:
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  ccl.put %w, %p, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
  ccl.fence
  cf.cond_br %c, ^loop, ^exit
^exit:
  return
}

// -----

// A wait in a diamond arm reaches the read at the join.
func.func @wait_diamond(%w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index, %c: i1,
                        %one: i32) attributes {ccl.kind = "incore"} {
  cf.cond_br %c, ^wait, ^skip
^wait:
  // expected-error @+1 {{ccl.wait reaches a GM read without a whole-GM ccl.cacheinvalid() after it}}
  ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
  cf.br ^join
^skip:
  ccl.cacheinvalid
  cf.br ^join
^join:
  // expected-note @+1 {{the GM read (ccl.read) it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

// -----

func.func @k_entry(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @k_loop(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  // expected-note @+1 {{the first GM read of @k_loop it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @k_marked(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  ccl.cacheinvalid
  ccl.fence
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
// The launch in the entry block needs no prologue (no false positive); the
// one the back edge reaches does; a kernel with its prologue passes.
func.func @orch_loop(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "orchestration"} {
  call @k_entry(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  cf.br ^loop
^loop:
  // expected-error @+1 {{InCore function @k_loop is launched after a publish}}
  call @k_loop(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  call @k_marked(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  // expected-note @+1 {{the publish it runs after}}
  ccl.barrier
  cf.cond_br %c, ^loop, ^exit
^exit:
  return
}

// -----

func.func @k_join(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  // expected-note @+1 {{the first GM read of @k_join it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @k_quiet_arm(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @orch_diamond(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "graph"} {
  cf.cond_br %c, ^publish, ^quiet
^publish:
  // expected-note @+1 {{the publish it runs after}}
  ccl.all_reduce sum %w, %w : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>
  cf.br ^join
^quiet:
  call @k_quiet_arm(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  cf.br ^join
^join:
  // expected-error @+1 {{InCore function @k_join is launched after a publish}}
  call @k_join(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}
