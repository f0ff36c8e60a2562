// Phase A rule 4: a wait is followed by the whole-GM invalidate, unless the
// next op, skipping side-effect-free ones, is another wait or already a
// whole-GM invalidate: a run of waits shares one invalidate after the last.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @single
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.tile_load
// CHECK-NEXT: return
func.func @single(%sig: memref<8xi32, #ccl.window>, %x: i32, %buf: memref<64xf32, #ccl.window>, %i: index) -> vector<16xf32>
    attributes {ccl.kind = "incore"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  %v = ccl.tile_load %buf[%i] : memref<64xf32, #ccl.window> -> vector<16xf32>
  return %v : vector<16xf32>
}

// A run of waits, with side-effect-free ops (arith, index, math, ccl.rank)
// between them: one invalidate, right after the last wait.
// CHECK-LABEL: func.func @run
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: arith.addi
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.rank
// CHECK-NEXT: index.add
// CHECK-NEXT: math.absi
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: arith.muli
// CHECK-NEXT: ccl.read
// CHECK-NEXT: return
func.func @run(%sig: memref<8xi32, #ccl.window>, %x: i32, %i: index) -> i32 attributes {ccl.kind = "incore"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  %y = arith.addi %x, %x : i32
  ccl.wait eq %sig, %y : memref<8xi32, #ccl.window>, i32
  %r = ccl.rank : index
  %j = index.add %r, %i
  %z = math.absi %y : i32
  ccl.wait ge %sig, %z : memref<8xi32, #ccl.window>, i32
  %w = arith.muli %z, %z : i32
  %s = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32
  return %s : i32
}

// Skip: the next non-side-effect-free op already is a whole-GM invalidate.
// CHECK-LABEL: func.func @already_invalidated
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: arith.addi
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @already_invalidated(%sig: memref<8xi32, #ccl.window>, %x: i32) attributes {ccl.kind = "incore"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  %y = arith.addi %x, %x : i32
  ccl.cacheinvalid
  return
}

// Not a skip: a region invalidate, a notify, a fence or a loop in between
// ends the run; a wait at the end of a block (only the terminator after it)
// gets its invalidate before the terminator.
// CHECK-LABEL: func.func @run_breakers
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.cacheinvalid %
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: scf.for
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.notify
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: ccl.wait
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: return
func.func @run_breakers(%sig: memref<8xi32, #ccl.window>, %x: i32, %lb: index, %ub: index, %step: index)
    attributes {ccl.kind = "incore"} {
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.cacheinvalid %sig : memref<8xi32, #ccl.window>
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.notify atomic_add %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  ccl.fence
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  scf.for %i = %lb to %ub step %step {
    ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
    ccl.notify set %sig, %x, %x : memref<8xi32, #ccl.window>, i32, i32
  }
  ccl.wait ge %sig, %x : memref<8xi32, #ccl.window>, i32
  return
}
