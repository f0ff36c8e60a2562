// Why ccl-sink-comm-markers stops a wait's whole-GM invalidate before a
// ccl.put, though the checker's GM reads are ccl.read, ccl.tile_load and
// ccl.remote_load only: a put reads its source through the block's cache.
// Block 0 of rank 0 reads %data early, lets block 1 write it, waits, then
// puts it to rank 1. The checker accepts the program without the
// invalidate before the put, and the put sends the stale line.
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t
// RUN: %expect-exit 0 ccl-sim %t --ranks 2 | FileCheck %s --check-prefix=CLEAN
// RUN: awk '/ccl.wait ge %arg3/ { found = 1 } found && /ccl.cacheinvalid$/ && !done { done = 1; next } { print }' %t > %t.deleted
// RUN: ccl-opt %t.deleted -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null
// RUN: %expect-exit 3 ccl-sim %t.deleted --ranks 2 2>&1 | FileCheck %s --check-prefix=RACE

// CLEAN: ccl-sim: no race
// RACE: error: data race: stale read of element 0 of argument #0 of @main on rank 0
// RACE-NEXT: note: the stale read by rank 0 block 0 'ccl.put' in launch 1 of @kernel
// RACE-NEXT: note: the newer write by rank 0 block 1 'ccl.tensor_write' in launch 1 of @kernel

func.func @kernel(%data: memref<1xi32, #ccl.window>, %out: memref<1xi32, #ccl.window>,
                  %go: memref<1xi32, #ccl.window>, %done: memref<1xi32, #ccl.window>)
    attributes {ccl.kind = "aiv", ccl.launch_width = 2 : i64} {
  %me = ccl.rank : i32
  %blk = ccl.block_id : index
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %i0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %me, %c0 : i32
  %first = arith.cmpi eq, %blk, %i0 : index
  scf.if %is0 {
    scf.if %first {
      %early = ccl.read %data[%i0] : memref<1xi32, #ccl.window> -> i32
      ccl.notify set %go, %c0, %c1 : memref<1xi32, #ccl.window>, i32, i32
      ccl.wait ge %done, %c1 : memref<1xi32, #ccl.window>, i32
      ccl.put %out, %data, %c1 : memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, i32
    } else {
      ccl.wait ge %go, %c1 : memref<1xi32, #ccl.window>, i32
      ccl.tensor_write %data[%i0], %c7 : memref<1xi32, #ccl.window>, i32
      ccl.notify set %done, %c0, %c1 : memref<1xi32, #ccl.window>, i32, i32
    }
  }
  return
}
func.func @main(%data: memref<1xi32, #ccl.window>, %out: memref<1xi32, #ccl.window>, %go: memref<1xi32, #ccl.window>,
                %done: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  call @kernel(%data, %out, %go, %done)
      : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>) -> ()
  return
}
