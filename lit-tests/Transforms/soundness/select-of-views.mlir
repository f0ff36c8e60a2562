// Family 4 of issue 36: views chosen by arith.select are handled or left
// alone, never made invalid. Rank 0 writes through a view %v that selects
// one of two subviews of its window and invalidates %v; the minimal
// placement's output verifies (each marker after the definition of its
// operand: the invalidate of %v stays after the select), is accepted by the
// checker, and is race-free; the pipeline is a fixed point on it.
// REQUIRES: ccl-sim
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s < %t.minimal
// RUN: ccl-opt %t.minimal -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null
// RUN: ccl-opt %t.minimal -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.again
// RUN: diff %t.minimal %t.again
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// CLEAN: ccl-sim: no race
// CHECK: %[[V:.*]] = arith.select
// CHECK: ccl.tensor_write %[[V]]
// CHECK: ccl.cacheinvalid %[[V]]
// CHECK: ccl.fence
// CHECK-NEXT: ccl.notify

func.func @exchange(%w: memref<2xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %c: i1) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %i0 = arith.constant 0 : index
  %first = arith.cmpi eq, %me, %c0 : i32
  scf.if %first {
    %a = memref.subview %w[0] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1]>, #ccl.window>
    %b = memref.subview %w[1] [1] [1] : memref<2xi32, #ccl.window> to memref<1xi32, strided<[1], offset: 1>, #ccl.window>
    %bc = memref.cast %b : memref<1xi32, strided<[1], offset: 1>, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %ac = memref.cast %a : memref<1xi32, strided<[1]>, #ccl.window> to memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    %v = arith.select %c, %ac, %bc : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    ccl.tensor_write %v[%i0], %c7 : memref<1xi32, strided<[1], offset: ?>, #ccl.window>, i32
    ccl.cacheinvalid %v : memref<1xi32, strided<[1], offset: ?>, #ccl.window>
    ccl.fence
    ccl.notify set %sig, %c1, %c1 : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %c1 : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %r = ccl.remote_load %w, %c0 : memref<2xi32, #ccl.window>, i32 -> vector<2xi32>
  }
  return
}

func.func @main(%w: memref<2xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %t = arith.constant true
  func.call @exchange(%w, %sig, %t) : (memref<2xi32, #ccl.window>, memref<1xi32, #ccl.window>, i1) -> ()
  return
}
