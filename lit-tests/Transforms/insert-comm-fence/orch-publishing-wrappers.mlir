// A call to an orchestration-like function that publishes on some path is
// a publish: its summary is its own scan from a clear flag, once per
// function, recursive wrappers solved together to a fixpoint. So
// `exchange(); consume()` marks consume, one hop deep or three.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: (S) 9 wrapper-publishes

// CHECK-LABEL: func.func @consume_one_hop()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
func.func @consume_one_hop() attributes {ccl.kind = "incore"} {
  return
}
func.func @exchange() attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  return
}
func.func @main_one_hop() attributes {ccl.kind = "orchestration"} {
  call @exchange() : () -> ()
  call @consume_one_hop() : () -> ()
  return
}

// Three hops, through a graph and a host orchestrator, publishing only on
// one branch of the innermost.
// CHECK-LABEL: func.func @consume_three_hops()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @consume_three_hops() attributes {ccl.kind = "aiv"} {
  return
}
func.func @hop3(%c: i1) attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  scf.if %c {
    ccl.submit @device_work() : () -> ()
  }
  return
}
func.func private @device_work()
func.func @hop2(%c: i1) attributes {ccl.kind = "graph"} {
  call @hop3(%c) : (i1) -> ()
  return
}
func.func @hop1(%c: i1) attributes {ccl.kind = "orchestration"} {
  call @hop2(%c) : (i1) -> ()
  return
}
func.func @main_three_hops(%c: i1) attributes {ccl.kind = "orchestration"} {
  call @hop1(%c) : (i1) -> ()
  call @consume_three_hops() : () -> ()
  return
}

// Mutually recursive wrappers, one of which publishes after the recursion.
// CHECK-LABEL: func.func @consume_recursive()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @consume_recursive() attributes {ccl.kind = "aic"} {
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
func.func @main_recursive(%c: i1) attributes {ccl.kind = "orchestration"} {
  call @ping(%c) : (i1) -> ()
  call @consume_recursive() : () -> ()
  return
}

// A publishing wrapper called twice: the second call runs after the first
// one's publish, so the kernel it launches is marked.
// CHECK-LABEL: func.func @launched_by_stage()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @launched_by_stage() attributes {ccl.kind = "incore"} {
  return
}
func.func @stage() attributes {ccl.kind = "orchestration"} {
  call @launched_by_stage() : () -> ()
  ccl.barrier
  return
}
func.func @main_twice() attributes {ccl.kind = "orchestration"} {
  call @stage() : () -> ()
  call @stage() : () -> ()
  return
}

// Not publishes: a wrapper that only launches, and a function that is not
// orchestration-like (a group function), whatever it runs.
// CHECK-LABEL: func.func @after_quiet()
// CHECK-NEXT: return
func.func @after_quiet() attributes {ccl.kind = "incore"} {
  return
}
// CHECK-LABEL: func.func @after_group()
// CHECK-NEXT: return
func.func @after_group() attributes {ccl.kind = "incore"} {
  return
}
func.func @quiet() attributes {ccl.kind = "orchestration"} {
  call @after_group() : () -> ()
  return
}
func.func @group_collective() attributes {ccl.kind = "group"} {
  ccl.barrier
  return
}
func.func @main_quiet() attributes {ccl.kind = "orchestration"} {
  call @quiet() : () -> ()
  call @after_quiet() : () -> ()
  call @group_collective() : () -> ()
  call @after_group() : () -> ()
  return
}
