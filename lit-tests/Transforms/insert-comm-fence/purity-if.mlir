// Pure-wait-loop classification of scf.if (rule 5): NotPure if its condition
// reads memory; with an empty else, the then-block's class; with an else,
// NotPure if either block is, PureWithWait if either waits, else Pure. The
// loop around the if takes its class.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// No else, the then-block waits: PureWithWait, one marker after the loop.
// CHECK-LABEL: func.func @if_no_else_wait
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @if_no_else_wait(%sig: memref<8xi32, #ccl.window>, %x: i32, %c: i1, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    scf.if %c {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    }
  }
  return
}

// No else, the then-block notifies: NotPure, so the loop is walked and the
// wait after the if gets its own invalidate.
// CHECK-LABEL: func.func @if_no_else_not_pure
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @if_no_else_not_pure(%sig: memref<8xi32, #ccl.window>, %x: i32, %c: i1, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    scf.if %c {
      ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
    }
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

// With an else: then is Pure, else waits: PureWithWait.
// CHECK-LABEL: func.func @if_else_waits
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: arith.addi
// CHECK-NEXT: } else {
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @if_else_waits(%sig: memref<8xi32, #ccl.window>, %x: i32, %c: i1, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    scf.if %c {
      %y = arith.addi %x, %x : i32
    } else {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    }
  }
  return
}

// With an else: then waits, else is NotPure (a window store): NotPure. The
// loop is walked: the wait and the store get their own markers.
// CHECK-LABEL: func.func @if_else_not_pure
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: } else {
// CHECK-NEXT: ccl.tensor_write
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @if_else_not_pure(%sig: memref<8xi32, #ccl.window>, %x: i32, %c: i1, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    scf.if %c {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    } else {
      ccl.tensor_write %sig[%i], %x : memref<8xi32, #ccl.window>, i32
    }
  }
  return
}

// With an else, both blocks Pure (and yielding values): the loop is Pure,
// no marker anywhere.
// CHECK-LABEL: func.func @if_else_pure
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: arith.addi
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @if_else_pure(%x: i32, %c: i1, %lb: index, %ub: index, %s: index) attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    %r = scf.if %c -> (i32) {
      %y = arith.addi %x, %x : i32
      scf.yield %y : i32
    } else {
      scf.yield %x : i32
    }
  }
  return
}

// The condition reads memory (a ccl.read before the loop, through arith):
// the if is NotPure although its body only waits; the wait gets its own
// invalidate inside.
// CHECK-LABEL: func.func @if_condition_reads_memory
// CHECK: ccl.read
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @if_condition_reads_memory(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  %v = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  %c = arith.cmpi eq, %v, %x : i32
  scf.for %i = %lb to %ub step %s {
    scf.if %c {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    }
  }
  return
}

// An scf.if is not a loop: a PureWithWait if outside any loop gets no marker
// after it; its wait is handled by rule 4.
// CHECK-LABEL: func.func @if_outside_loop
// CHECK: scf.if
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @if_outside_loop(%sig: memref<8xi32, #ccl.window>, %x: i32, %c: i1) attributes {ccl.kind = "incore"} {
  scf.if %c {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}
