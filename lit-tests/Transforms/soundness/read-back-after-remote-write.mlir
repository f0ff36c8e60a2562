// A hole the markers campaign found (litmus seeds 899 and 1163, with the
// rules' and the minimal placement): a block's remote_load caches the line
// of a peer's element; its own remote_store to that element lands (the fence
// waits for it), but the block's cache still holds the old line, so the
// second remote_load hits it and returns the old value, older than the
// block's own write that happens before it: a stale read. Neither placement
// puts an invalidate between the write and the read, and the checker has no
// rule that asks for one (a remote write, read back after it lands, through
// a line the block may have cached). The reference finds the stale read in
// the rules' output; the checker accepts it. This test fails until the
// checker rejects it (XFAIL), so a fix shows as an unexpected pass.
// REQUIRES: ccl-sim
// XFAIL: *
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' -o %t.rules
// RUN: %expect-exit 3 ccl-sim %t.rules --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not ccl-opt %t.rules -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null

// RACE: error: data race: stale read of element 0

func.func @k(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %seven = arith.constant 7 : i32
  %rank = ccl.rank : i32
  %first = arith.cmpi eq, %rank, %zero : i32
  scf.if %first {
    %old = ccl.remote_load %w, %one : memref<1xi32, #ccl.window>, i32 -> i32
    ccl.remote_store %seven, %w, %one : i32, memref<1xi32, #ccl.window>, i32
    ccl.fence
    %new = ccl.remote_load %w, %one : memref<1xi32, #ccl.window>, i32 -> i32
  }
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  func.call @k(%w) : (memref<1xi32, #ccl.window>) -> ()
  return
}
