// Phase A rule 5: a loop (scf.for, scf.while, scf.parallel, scf.forall) whose
// class is PureWithWait (only side-effect-free ops and at least one wait)
// gets one whole-GM invalidate right after it and no marker inside. A Pure
// loop gets nothing; a NotPure loop is walked like straight-line code.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @for_loop
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @for_loop(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    %y = arith.addi %x, %x : i32
    ccl.wait ge %sig, %y : memref<8xi32, #ccl.window>, i32
  }
  return
}

// The wait in the before region of a while.
// CHECK-LABEL: func.func @while_before
// CHECK: scf.while
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @while_before(%sig: memref<8xi32, #ccl.window>, %x: i32, %go: i1) attributes {ccl.kind = "incore"} {
  scf.while : () -> () {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    scf.condition(%go)
  } do {
    scf.yield
  }
  return
}

// The wait in the after region; loop-carried values are fine.
// CHECK-LABEL: func.func @while_after
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: } do {
// CHECK: ccl.wait
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @while_after(%sig: memref<8xi32, #ccl.window>, %x: i32, %n: i32) -> i32 attributes {ccl.kind = "incore"} {
  %r = scf.while (%a = %x) : (i32) -> i32 {
    %c = arith.cmpi slt, %a, %n : i32
    scf.condition(%c) %a : i32
  } do {
  ^bb0(%b: i32):
    %one = arith.constant 1 : i32
    %next = arith.addi %b, %one : i32
    ccl.wait eq %sig, %next : memref<8xi32, #ccl.window>, i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func @parallel_loop
// CHECK: scf.parallel
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @parallel_loop(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.parallel (%i) = (%lb) to (%ub) step (%s) {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @forall_loop
// CHECK: scf.forall
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @forall_loop(%sig: memref<8xi32, #ccl.window>, %x: i32, %n: index) attributes {ccl.kind = "incore"} {
  scf.forall (%i) in (%n) {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

// A Pure loop (no wait): nothing.
// CHECK-LABEL: func.func @pure_loop
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @pure_loop(%x: i32, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    %y = arith.addi %x, %x : i32
  }
  return
}

// A NotPure loop (a wait and a notify): the wait gets its own invalidate
// inside, and there is none after the loop.
// CHECK-LABEL: func.func @not_pure_loop
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @not_pure_loop(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  }
  return
}

// Skip: the invalidate after the loop is already there.
// CHECK-LABEL: func.func @already_marked
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @already_marked(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  ccl.cacheinvalid
  return
}

// Two pure wait loops in a row: each gets its own marker (rule 5 has no
// "run" sharing; only plain waits share).
// CHECK-LABEL: func.func @two_loops
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @two_loops(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}
