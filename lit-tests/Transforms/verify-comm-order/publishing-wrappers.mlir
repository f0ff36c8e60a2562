// The checker holds calls of publishing wrappers to the insert pass's rule:
// after `exchange()`, a launched kernel that reads GM needs its prologue,
// through one hop or three and through recursive wrappers; the second call
// of a wrapper that publishes after its launch needs its kernel marked; a
// wrapper that only launches is not a publish. A group function is not one
// to the rules' Phase B either, but the one below runs a collective: beyond
// the rules, the checker holds @after_group to its prologue (the execution
// model runs the collective before it), which the rules leave out.
// RUN: ccl-opt %s -p 'builtin.module(ccl-verify-comm-order)' --verify-diagnostics -o /dev/null
// RUN: not ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULES
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o /dev/null
// RULES-NOT: {{error: [^e]}}
// RULES: error: InCore function @after_group is launched after a publish the rules' Phase B does not count
// RULES-NOT: {{error: [^e]}}

func.func @consume_one_hop(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  // expected-note @+1 {{the first GM read of @consume_one_hop it reaches}}
  %x = ccl.read %w[%i] : memref<8xf32, #ccl.window> -> f32
  return
}
func.func @exchange() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  return
}
func.func @main_one_hop(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  call @exchange() : () -> ()
  // expected-error @+1 {{InCore function @consume_one_hop is launched after a publish but reads GM before a whole-GM ccl.cacheinvalid()}}
  call @consume_one_hop(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  return
}

func.func @consume_three_hops(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  // expected-note @+1 {{the first GM read of @consume_three_hops it reaches}}
  %x = ccl.tile_load %w[%i] : memref<8xf32, #ccl.window> -> vector<4xf32>
  return
}
func.func private @device_work()
func.func @hop3(%c: i1) attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  scf.if %c {
    ccl.submit @device_work() : () -> ()
  }
  return
}
func.func @hop2(%c: i1) attributes {ccl.kind = "graph"} {
  call @hop3(%c) : (i1) -> ()
  return
}
func.func @hop1(%c: i1) attributes {ccl.kind = "orchestration"} {
  call @hop2(%c) : (i1) -> ()
  return
}
func.func @main_three_hops(%w: memref<8xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  call @hop1(%c) : (i1) -> ()
  // expected-error @+1 {{InCore function @consume_three_hops is launched after a publish}}
  call @consume_three_hops(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  return
}

func.func @consume_recursive(%w: memref<8xf32, #ccl.window>, %peer: i32) attributes {ccl.kind = "aic"} {
  // expected-note @+1 {{the first GM read of @consume_recursive it reaches}}
  %x = ccl.remote_load %w, %peer : memref<8xf32, #ccl.window>, i32 -> vector<8xf32>
  return
}
func.func @ping(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    func.call @pong(%c) : (i1) -> ()
  }
  return
}
func.func @pong(%c: i1) attributes {ccl.kind = "graph"} {
  call @ping(%c) : (i1) -> ()
  %w = memref.alloc() : memref<8xf32, #ccl.window>
  ccl.all_reduce max %w, %w : memref<8xf32, #ccl.window>, memref<8xf32, #ccl.window>
  return
}
func.func @main_recursive(%w: memref<8xf32, #ccl.window>, %peer: i32, %c: i1) attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  call @ping(%c) : (i1) -> ()
  // expected-error @+1 {{InCore function @consume_recursive is launched after a publish}}
  call @consume_recursive(%w, %peer) : (memref<8xf32, #ccl.window>, i32) -> ()
  return
}

func.func @launched_by_stage(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  // expected-note @+1 {{the first GM read of @launched_by_stage it reaches}}
  %x = ccl.read %w[%i] : memref<8xf32, #ccl.window> -> f32
  return
}
func.func @stage(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  call @launched_by_stage(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  ccl.barrier
  return
}
func.func @main_twice(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  // expected-note @+1 {{the publish it runs after}}
  call @stage(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  // expected-error @+1 {{call to @stage launches InCore function @launched_by_stage after a publish, but @launched_by_stage reads GM before a whole-GM ccl.cacheinvalid()}}
  call @stage(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  return
}

func.func @after_quiet(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  %x = ccl.read %w[%i] : memref<8xf32, #ccl.window> -> f32
  return
}
func.func @after_group(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  // expected-note @below {{the first GM read of @after_group it reaches}}
  %x = ccl.read %w[%i] : memref<8xf32, #ccl.window> -> f32
  return
}
func.func @quiet(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  call @after_group(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  return
}
func.func @group_collective() attributes {ccl.kind = "group"} {
  ccl.barrier
  return
}
func.func @main_quiet(%w: memref<8xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  call @quiet(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  call @after_quiet(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  // expected-note @below {{the publish it runs after}}
  call @group_collective() : () -> ()
  // expected-error @below {{InCore function @after_group is launched after a publish the rules' Phase B does not count (in an earlier iter}}
  call @after_group(%w, %i) : (memref<8xf32, #ccl.window>, index) -> ()
  return
}
