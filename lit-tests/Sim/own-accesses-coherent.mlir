// A block's own accesses to one element are coherent (SEMANTICS.md): a read
// returns the block's newest write of the element while that write has not
// landed, whether it is a dirty line in the block's cache or a write in its
// in-flight queue; other blocks see a queued write only once it lands. Once
// the newest write has landed, a read is an ordinary one: a line still in the
// cache, even an older one, is what it returns (docs/ccl-sim.md, "Decisions
// where the spec is silent"). --no-reduction makes every ccl op a scheduling
// point, so the landings are explored before and after each read; the
// reference semantics agrees with each verdict.
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_dirty_after_queued --no-reduction | FileCheck %s --check-prefix=CLEAN
// RUN: %expect-exit 0 ccl-sim %s --ranks 2 --entry main_dirty_after_queued --reference | FileCheck %s --check-prefix=CLEAN-REF
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_queued_after_dirty --no-reduction 2>&1 | FileCheck %s --check-prefix=DIRTY
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_queued_after_dirty --reference 2>&1 | FileCheck %s --check-prefix=DIRTY
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_queued_then_cached --no-reduction 2>&1 | FileCheck %s --check-prefix=CACHED
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_queued_then_cached --reference 2>&1 | FileCheck %s --check-prefix=CACHED
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_peer_before_landing 2>&1 | FileCheck %s --check-prefix=PEER
// RUN: %expect-exit 3 ccl-sim %s --ranks 2 --entry main_peer_before_landing --reference 2>&1 | FileCheck %s --check-prefix=PEER-REF
// CLEAN: ccl-sim: no race: {{[0-9]+}} states explored, every schedule of 2 ranks
// CLEAN-REF: ccl-sim: no race: {{[0-9]+}} states explored, every execution of 2 ranks under the reference semantics

// Written, written back (queued), written again: the read returns the dirty
// line, the newer of the two.
func.func @dirty_after_queued(%buf: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  ccl.tensor_write %buf[%c0], %one : memref<1xi32, #ccl.window>, i32
  ccl.cacheinvalid %buf : memref<1xi32, #ccl.window>
  ccl.tensor_write %buf[%c0], %two : memref<1xi32, #ccl.window>, i32
  %v = ccl.read %buf[%c0] : memref<1xi32, #ccl.window> -> i32
  ccl.cacheinvalid %buf : memref<1xi32, #ccl.window>
  ccl.fence
  return
}
func.func @main_dirty_after_queued(%buf: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @dirty_after_queued(%buf) : (memref<1xi32, #ccl.window>) -> ()
  return
}

// A dirty line, then a put of this rank's own window element (queued): while
// the put is in flight the read returns its value, the newer write. The put
// does not touch the sender's cache: once it lands, the older dirty line is
// what the read returns, a stale read (and a later write-back of the line
// would overwrite the put in memory). The DMA path and the cache do not see
// each other.
// DIRTY: own-accesses-coherent.mlir:[[@LINE+7]]:8: error: data race: stale read of element 0
func.func @queued_after_dirty(%buf: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %me = ccl.rank : i32
  ccl.tensor_write %buf[%c0], %one : memref<1xi32, #ccl.window>, i32
  ccl.put %buf, %src, %me : memref<1xi32, #ccl.window>, memref<1xi32>, i32
  %v = ccl.read %buf[%c0] : memref<1xi32, #ccl.window> -> i32
  ccl.fence
  return
}
func.func @main_queued_after_dirty(%buf: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @queued_after_dirty(%buf, %src) : (memref<1xi32, #ccl.window>, memref<1xi32>) -> ()
  return
}

// A clean line read before a put of the same element: while the put is in
// flight the read after it returns the queued write; once it has landed, the
// older clean line (the put leaves it), a stale read.
// CACHED: own-accesses-coherent.mlir:[[@LINE+6]]:12: error: data race: stale read of element 0
func.func @queued_then_cached(%buf: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %me = ccl.rank : i32
  %before = ccl.read %buf[%c0] : memref<1xi32, #ccl.window> -> i32
  ccl.put %buf, %src, %me : memref<1xi32, #ccl.window>, memref<1xi32>, i32
  %after = ccl.read %buf[%c0] : memref<1xi32, #ccl.window> -> i32
  ccl.fence
  return
}
func.func @main_queued_then_cached(%buf: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @queued_then_cached(%buf, %src) : (memref<1xi32, #ccl.window>, memref<1xi32>) -> ()
  return
}

// Coherence is per block: the peer that waits for the notify reads the
// written-back element from memory, where it may not have landed (no fence
// before the notify), and reads the old value of a write that happens before
// its read.
// PEER-REF: own-accesses-coherent.mlir:[[@LINE+17]]:10: error: data race: stale read of element 0
// PEER: own-accesses-coherent.mlir:[[@LINE+16]]:10: error: data race: stale read of element 0 of argument #0 of @main_peer_before_landing on rank 0
// PEER-NEXT: note: the stale read by rank 1 block 0 'ccl.remote_load'
// PEER-NEXT: note: the newer write by rank 0 block 0 'ccl.tensor_write'
func.func @peer_before_landing(%buf: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %me = ccl.rank : i32
  %writer = arith.cmpi eq, %me, %zero : i32
  scf.if %writer {
    ccl.tensor_write %buf[%c0], %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid %buf : memref<1xi32, #ccl.window>
    ccl.notify set %sig, %one, %one : memref<1xi32, #ccl.window>, i32, i32
  } else {
    ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
    ccl.cacheinvalid
    %v = ccl.remote_load %buf, %zero : memref<1xi32, #ccl.window>, i32 -> i32
  }
  return
}
func.func @main_peer_before_landing(%buf: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @peer_before_landing(%buf, %sig) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
