// "Reads memory" in the pure-wait-loop classification (rule 5): a value reads
// memory when it is computed, through side-effect-free ops only, from a
// ccl.read; block arguments do not. A loop whose bound or step reads memory,
// or an scf.while whose before region reads memory, is NotPure: its waits get
// their own invalidates inside and the loop gets none after it.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// Upper bound read from memory, through two side-effect-free ops.
// CHECK-LABEL: func.func @for_bound_reads
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @for_bound_reads(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %s: index)
    attributes {ccl.kind = "incore"} {
  %n = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  %m = arith.addi %n, %x : i32
  %ub = arith.index_cast %m : i32 to index
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

// Step read from memory directly.
// CHECK-LABEL: func.func @for_step_reads
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @for_step_reads(%steps: memref<4xindex>, %sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %ub: index)
    attributes {ccl.kind = "incore"} {
  %s = ccl.read %steps[%j] : memref<4xindex> -> index
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

// Bounds from block arguments and from pure ccl ops (ccl.comm_size) do not
// read memory; nor does an iter_args init (it is not a bound or step), even
// one read from memory: PureWithWait.
// CHECK-LABEL: func.func @for_bounds_pure
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @for_bounds_pure(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %s: index) -> i32
    attributes {ccl.kind = "incore"} {
  %p = ccl.comm_size : index
  %init = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  %r = scf.for %i = %lb to %p step %s iter_args(%acc = %init) -> (i32) {
    ccl.wait ge %sig, %acc : memref<8xi32, #ccl.window>, i32
    scf.yield %acc : i32
  }
  return %r : i32
}

// A block argument does not read memory even when its incoming value does:
// the if inside tests the loop-carried %acc, so the if and the loop stay
// PureWithWait.
// CHECK-LABEL: func.func @block_argument_does_not_read
// CHECK: scf.for
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @block_argument_does_not_read(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %ub: index, %s: index) -> i32
    attributes {ccl.kind = "incore"} {
  %init = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (i32) {
    %c = arith.cmpi eq, %acc, %x : i32
    scf.if %c {
      ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    }
    scf.yield %acc : i32
  }
  return %r : i32
}

// A ccl.read inside the loop is itself NotPure.
// CHECK-LABEL: func.func @read_in_body
// CHECK: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.read
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @read_in_body(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %ub: index, %s: index)
    attributes {ccl.kind = "incore"} {
  scf.for %i = %lb to %ub step %s {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    %v = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  }
  return
}

// scf.parallel with an upper bound read from memory.
// CHECK-LABEL: func.func @parallel_bound_reads
// CHECK: scf.parallel
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @parallel_bound_reads(%bounds: memref<4xindex>, %sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %s: index)
    attributes {ccl.kind = "incore"} {
  %ub = ccl.read %bounds[%j] : memref<4xindex> -> index
  scf.parallel (%i) = (%lb) to (%ub) step (%s) {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    scf.reduce
  }
  return
}

// scf.parallel whose only memory-read operand is a reduction init (not a
// bound): PureWithWait.
// CHECK-LABEL: func.func @parallel_init_reads
// CHECK: scf.parallel
// CHECK: ccl.wait
// CHECK-NOT: ccl.cacheinvalid
// CHECK: scf.reduce.return
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @parallel_init_reads(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %lb: index, %ub: index, %s: index) -> i32
    attributes {ccl.kind = "incore"} {
  %init = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  %r = scf.parallel (%i) = (%lb) to (%ub) step (%s) init (%init) -> i32 {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    scf.reduce(%x : i32) {
    ^bb0(%a: i32, %b: i32):
      %sum = arith.addi %a, %b : i32
      scf.reduce.return %sum : i32
    }
  }
  return %r : i32
}

// scf.forall with a dynamic upper bound read from memory.
// CHECK-LABEL: func.func @forall_bound_reads
// CHECK: scf.forall
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @forall_bound_reads(%bounds: memref<4xindex>, %sig: memref<8xi32, #ccl.window>, %x: i32, %j: index)
    attributes {ccl.kind = "incore"} {
  %ub = ccl.read %bounds[%j] : memref<4xindex> -> index
  scf.forall (%i) in (%ub) {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  }
  return
}

// scf.while whose before region computes its condition from a value read
// from memory (before the loop): NotPure.
// CHECK-LABEL: func.func @while_before_reads
// CHECK: scf.while
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
func.func @while_before_reads(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index) attributes {ccl.kind = "incore"} {
  %v = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  scf.while : () -> () {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    %c = arith.cmpi slt, %v, %x : i32
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}

// Only the before region counts: a memory-read value used in the after
// region leaves the while PureWithWait.
// CHECK-LABEL: func.func @while_after_uses_read
// CHECK: scf.while
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: scf.yield
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @while_after_uses_read(%sig: memref<8xi32, #ccl.window>, %x: i32, %j: index, %go: i1) attributes {ccl.kind = "incore"} {
  %v = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  scf.while : () -> () {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    scf.condition(%go)
  } do {
    %y = arith.addi %v, %x : i32
    scf.yield
  }
  return
}
