// Phase B wrappers: a call-like op met after a publish whose callee is
// orchestration-like marks every InCore function reachable from the callee
// through calls, transitively (through functions of any non-InCore kind).
// Resolution is memoised and safe on recursive call graphs. Calls inside an
// InCore function are opaque: resolution stops at kernels.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// `coll; wrapper` marks the kernel the wrapper launches; the wrapper itself
// (orchestration IR) is unchanged.
// CHECK-LABEL: func.func @k_one_hop()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @wrapper_one_hop()
// CHECK-NEXT: call @k_one_hop()
// CHECK-NEXT: return
func.func @k_one_hop() attributes {ccl.kind = "incore"} {
  return
}
func.func @wrapper_one_hop() attributes {ccl.kind = "orchestration"} {
  func.call @k_one_hop() : () -> ()
  return
}
func.func @main_one_hop() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @wrapper_one_hop() : () -> ()
  return
}

// Three hops through orchestration, graph and host-orchestrator wrappers,
// the last launching by ccl.submit.
// CHECK-LABEL: func.func @k_three_hops()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @k_three_hops() attributes {ccl.kind = "aiv"} {
  return
}
func.func @hop3() attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  ccl.submit @k_three_hops() : () -> ()
  return
}
func.func @hop2() attributes {ccl.kind = "graph"} {
  func.call @hop3() : () -> ()
  return
}
func.func @hop1() attributes {ccl.kind = "orchestration"} {
  func.call @hop2() : () -> ()
  return
}
func.func @main_three_hops() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @hop1() : () -> ()
  return
}

// A wrapper reaching several kernels marks them all, through a group
// function too.
// CHECK-LABEL: func.func @k_many_1()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-LABEL: func.func @k_many_2()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-LABEL: func.func @k_many_3()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @k_many_1() attributes {ccl.kind = "aic"} {
  return
}
func.func @k_many_2() attributes {ccl.kind = "aiv"} {
  return
}
func.func @k_many_3() attributes {ccl.kind = "incore"} {
  return
}
func.func @group_many() attributes {ccl.kind = "group"} {
  func.call @k_many_1() : () -> ()
  func.call @k_many_2() : () -> ()
  return
}
func.func @wrapper_many(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    func.call @group_many() : () -> ()
  }
  ccl.submit @k_many_3() : () -> ()
  return
}
func.func @main_many(%c: i1) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  ccl.submit @wrapper_many(%c) : (i1) -> ()
  return
}

// A recursive wrapper (self-call) and mutually recursive wrappers: each
// kernel reachable from the cycle is marked, and resolution terminates.
// CHECK-LABEL: func.func @k_self()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-LABEL: func.func @k_mutual()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @k_self() attributes {ccl.kind = "incore"} {
  return
}
func.func @k_mutual() attributes {ccl.kind = "incore"} {
  return
}
func.func @self_recursive(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    func.call @self_recursive(%c) : (i1) -> ()
  }
  func.call @k_self() : () -> ()
  return
}
func.func @mutual_a(%c: i1) attributes {ccl.kind = "orchestration"} {
  scf.if %c {
    func.call @mutual_b(%c) : (i1) -> ()
  }
  return
}
func.func @mutual_b(%c: i1) attributes {ccl.kind = "graph"} {
  func.call @mutual_a(%c) : (i1) -> ()
  func.call @k_mutual() : () -> ()
  return
}
func.func @main_recursive(%c: i1) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @self_recursive(%c) : (i1) -> ()
  func.call @mutual_a(%c) : (i1) -> ()
  return
}

// A wrapper called before the collective marks nothing; a wrapper that
// reaches no kernel (only a declaration of no kind) marks nothing either.
// CHECK-LABEL: func.func @k_early()
// CHECK-NEXT: return
func.func @k_early() attributes {ccl.kind = "incore"} {
  return
}
func.func private @host_helper()
func.func @wrapper_early() attributes {ccl.kind = "orchestration"} {
  func.call @k_early() : () -> ()
  return
}
func.func @wrapper_none() attributes {ccl.kind = "orchestration"} {
  func.call @host_helper() : () -> ()
  return
}
func.func @main_early() attributes {ccl.kind = "orchestration"} {
  func.call @wrapper_early() : () -> ()
  ccl.barrier
  func.call @wrapper_none() : () -> ()
  func.call @wrapper_none() : () -> ()
  return
}

// Resolution stops at kernels: a kernel called from inside a kernel is an
// opaque publish of that kernel, not a launch after the collective.
// CHECK-LABEL: func.func @k_inner()
// CHECK-NEXT: return
// CHECK-LABEL: func.func @k_outer()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: call @k_inner()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @k_inner() attributes {ccl.kind = "incore"} {
  return
}
func.func @k_outer() attributes {ccl.kind = "incore"} {
  func.call @k_inner() : () -> ()
  return
}
func.func @wrapper_outer() attributes {ccl.kind = "orchestration"} {
  func.call @k_outer() : () -> ()
  return
}
func.func @main_outer() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @wrapper_outer() : () -> ()
  return
}

// A direct call to a group (neither InCore nor orchestration-like) marks
// nothing: only wrappers are resolved.
// CHECK-LABEL: func.func @k_behind_group()
// CHECK-NEXT: return
func.func @k_behind_group() attributes {ccl.kind = "incore"} {
  return
}
func.func @a_group() attributes {ccl.kind = "group"} {
  func.call @k_behind_group() : () -> ()
  return
}
func.func @main_group() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  func.call @a_group() : () -> ()
  return
}
