// Phase B through loops. A sequential loop (scf.for; scf.while: before then
// after region) whose body publishes while `seen` was false on entry is
// scanned once more with seen = true: a publish in iteration k precedes a
// launch in iteration k+1. Parallel loops (scf.parallel, scf.forall) are
// scanned once and never rescanned: their iterations are unordered.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// `scf.for { consume; coll }` marks consume (rescan).
// CHECK-LABEL: func.func @for_consume()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @for_consume() attributes {ccl.kind = "incore"} {
  return
}
func.func @for_consume_coll(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    func.call @for_consume() : () -> ()
    ccl.barrier
  }
  return
}

// `scf.parallel { consume; coll }` and `scf.forall { consume; coll }` mark
// nothing.
// CHECK-LABEL: func.func @parallel_consume()
// CHECK-NEXT: return
// CHECK-LABEL: func.func @forall_consume()
// CHECK-NEXT: return
func.func @parallel_consume() attributes {ccl.kind = "incore"} {
  return
}
func.func @forall_consume() attributes {ccl.kind = "incore"} {
  return
}
func.func @parallel_consume_coll(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.parallel (%i) = (%lb) to (%ub) step (%s) {
    func.call @parallel_consume() : () -> ()
    ccl.barrier
    scf.reduce
  }
  return
}
func.func @forall_consume_coll(%ub: index) attributes {ccl.kind = "orchestration"} {
  scf.forall (%i) in (%ub) {
    func.call @forall_consume() : () -> ()
    ccl.barrier
  }
  return
}

// `for { for { consume_a }; coll }` marks consume_a.
// CHECK-LABEL: func.func @consume_a()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @consume_a() attributes {ccl.kind = "incore"} {
  return
}
func.func @inner_consume_outer_coll(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    scf.for %j = %lb to %ub step %s {
      func.call @consume_a() : () -> ()
    }
    ccl.barrier
  }
  return
}

// `for { consume_c; for { coll } }` marks consume_c.
// CHECK-LABEL: func.func @consume_c()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @consume_c() attributes {ccl.kind = "incore"} {
  return
}
func.func @outer_consume_inner_coll(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    func.call @consume_c() : () -> ()
    scf.for %j = %lb to %ub step %s {
      ccl.barrier
    }
  }
  return
}

// scf.while: a launch in the before region, a collective in the after region:
// the rescan covers the before region too.
// CHECK-LABEL: func.func @while_consume()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @while_consume() attributes {ccl.kind = "incore"} {
  return
}
func.func @while_before_consume_after_coll(%go: i1) attributes {ccl.kind = "orchestration"} {
  scf.while : () -> () {
    func.call @while_consume() : () -> ()
    scf.condition(%go)
  } do {
    ccl.barrier
    scf.yield
  }
  return
}

// A sequential loop inside a parallel one is still rescanned.
// CHECK-LABEL: func.func @seq_in_par()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @seq_in_par() attributes {ccl.kind = "incore"} {
  return
}
func.func @sequential_in_parallel(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.parallel (%p) = (%lb) to (%ub) step (%s) {
    scf.for %i = %lb to %ub step %s {
      func.call @seq_in_par() : () -> ()
      ccl.barrier
    }
    scf.reduce
  }
  return
}

// The reverse: a parallel loop inside a sequential one. The parallel loop
// itself never rescans, but the outer for's body published, so the outer
// rescan (seen = true) reaches the launch in the parallel loop: iteration
// k+1 of the for runs after iteration k's collective.
// CHECK-LABEL: func.func @par_in_seq()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @par_in_seq() attributes {ccl.kind = "incore"} {
  return
}
func.func @parallel_in_sequential(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    scf.parallel (%p) = (%lb) to (%ub) step (%s) {
      func.call @par_in_seq() : () -> ()
      ccl.barrier
      scf.reduce
    }
  }
  return
}

// Parallel in parallel: still nothing.
// CHECK-LABEL: func.func @par_in_par()
// CHECK-NEXT: return
func.func @par_in_par() attributes {ccl.kind = "incore"} {
  return
}
func.func @parallel_in_parallel(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.forall (%q) in (%ub) {
    scf.parallel (%p) = (%lb) to (%ub) step (%s) {
      func.call @par_in_par() : () -> ()
      ccl.barrier
      scf.reduce
    }
  }
  return
}

// A collective before a parallel loop: seen is true on entry, launches
// inside are marked (no rescan needed).
// CHECK-LABEL: func.func @after_coll_in_par()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @after_coll_in_par() attributes {ccl.kind = "incore"} {
  return
}
func.func @coll_then_parallel(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  scf.parallel (%p) = (%lb) to (%ub) step (%s) {
    func.call @after_coll_in_par() : () -> ()
    scf.reduce
  }
  return
}

// A loop that never publishes marks nothing, even run many times.
// CHECK-LABEL: func.func @never()
// CHECK-NEXT: return
func.func @never() attributes {ccl.kind = "incore"} {
  return
}
func.func @loop_without_publish(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %i = %lb to %ub step %s {
    scf.while : () -> () {
      %go = arith.constant false
      scf.condition(%go)
    } do {
      func.call @never() : () -> ()
      scf.yield
    }
  }
  return
}

// Deep nesting: the innermost launch of a chain of sequential loops whose
// only collective is in the outermost body, after the chain.
// CHECK-LABEL: func.func @deepest()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @deepest() attributes {ccl.kind = "incore"} {
  return
}
func.func @deep_chain(%lb: index, %ub: index, %s: index) attributes {ccl.kind = "orchestration"} {
  scf.for %a = %lb to %ub step %s {
    scf.for %b = %lb to %ub step %s {
      scf.for %c = %lb to %ub step %s {
        scf.for %d = %lb to %ub step %s {
          func.call @deepest() : () -> ()
        }
      }
    }
    ccl.barrier
  }
  return
}
