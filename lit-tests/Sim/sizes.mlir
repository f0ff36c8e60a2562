// Sizes and indices are checked before anything is allocated or indexed: a
// view out of bounds or too large to represent, a signal view with no
// element, a launch wider than the simulator's threads. Each is a located
// error with exit 1; one that the simulator cannot represent says "no
// conclusion" (docs/ccl-sim.md, "Limits").
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry empty_signal 2>&1 | FileCheck %s --check-prefix=SIGNAL
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry entry_overflow 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry dynamic_subview 2>&1 | FileCheck %s --check-prefix=SUBVIEW
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry dynamic_subview --arg size=3 --arg stride=-8 2>&1 | FileCheck %s --check-prefix=BACKWARDS
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry dynamic_subview --arg size=3 --arg stride=-1 | FileCheck %s --check-prefix=INSIDE
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry widest 2>&1 | FileCheck %s --check-prefix=WIDEST
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry wide 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry zero_step 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 --entry after_dealloc 2>&1 | FileCheck %s --check-prefix=DEALLOC

// SIGNAL: sizes.mlir:[[@LINE+4]]:3: error: a signal view of no element ([0]){{$}}
func.func @empty_signal(%sig: memref<0xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  ccl.notify set %sig, %zero, %one : memref<0xi32, #ccl.window>, i32, i32
  return
}

// 2^32 x 2^32 elements: the product does not fit 64 bits.
// ENTRY: sizes.mlir:[[@LINE+1]]:1: error: argument #0 of @entry_overflow has 4294967296 x 4294967296 elements: ccl-sim holds at most 4294967295 in one buffer: no conclusion{{$}}
func.func @entry_overflow(%m: memref<4294967296x4294967296xi32>) attributes {ccl.kind = "orchestration"} {
  return
}

// A subview whose last element (offset + (size - 1) x stride) overflows 64
// bits, with the default size; and a backwards one that leaves the buffer.
// SUBVIEW: sizes.mlir:[[@LINE+11]]:8: error: a subview [2 +4611686018427387904 x4] out of bounds of dimension 0 (16){{$}}
// BACKWARDS: sizes.mlir:[[@LINE+10]]:8: error: a subview [2 +3 x-8] out of bounds of dimension 0 (16){{$}}
// INSIDE: ccl-sim: no race
func.func @dynamic_subview(%m: memref<16xi32>, %size: index, %stride: index) attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %big = arith.constant 4611686018427387904 : index
  %set = arith.cmpi ne, %size, %c0 : index
  %n = arith.select %set, %size, %big : index
  %st = arith.select %set, %stride, %c4 : index
  %v = memref.subview %m[%c2] [%n] [%st] : memref<16xi32> to memref<?xi32, strided<[?], offset: ?>>
  return
}

func.func @kernel() attributes {ccl.kind = "aiv"} {
  return
}

// A launch of 2^63 - 1 blocks: the threads it needs do not fit.
// WIDEST: sizes.mlir:[[@LINE+2]]:3: error: a launch of 9223372036854775807 blocks on 2 ranks needs 18446744073709551615 threads (ranks x (blocks + 1)): ccl-sim runs at most 65535: no conclusion{{$}}
func.func @widest() attributes {ccl.kind = "orchestration"} {
  func.call @kernel() {ccl.launch_width = 9223372036854775807 : i64} : () -> ()
  return
}

// WIDE: sizes.mlir:[[@LINE+2]]:3: error: a launch of 100000000 blocks on 2 ranks needs 200000002 threads
func.func @wide() attributes {ccl.kind = "orchestration"} {
  func.call @kernel() {ccl.launch_width = 100000000 : i64} : () -> ()
  return
}

// A loop step that is not positive (a dynamic one: the verifier cannot see
// it) is undefined in MLIR.
// STEP: sizes.mlir:[[@LINE+5]]:3: error: a loop step of 0: MLIR needs a positive step{{$}}
func.func @zero_step(%step: index) attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.alloc() : memref<4xi32>
  scf.for %i = %c0 to %c4 step %step {
  }
  return
}

// memref.dealloc frees this rank's copy: a later access is an error.
// DEALLOC: sizes.mlir:[[@LINE+7]]:8: error: an access to a buffer rank {{[01]}} deallocated{{$}}
func.func @after_dealloc() attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %m = memref.alloc() : memref<4xi32>
  %one = arith.constant 1 : i32
  ccl.tensor_write %m[%c0], %one : memref<4xi32>, i32
  memref.dealloc %m : memref<4xi32>
  %v = ccl.read %m[%c0] : memref<4xi32> -> i32
  return
}
