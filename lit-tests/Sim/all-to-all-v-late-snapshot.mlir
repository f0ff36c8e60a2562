// End to end: two ccl.all_to_all_v calls lowered to the signal protocol,
// with a kernel restaging send_counts between them. With late-snapshot=true
// (test only: the old order) a rank reads its peers' counts after Barrier B,
// when a peer already past it may be restaging them for the next call: a race
// no marker fixes (the markers are in place). ccl-sim finds it, and so does
// the checker: no synchronisation orders the late read with the restaging;
// the fixed protocol, which snapshots the counts before the first put, is
// clean on the same schedules. Four ranks, four blocks each: too many states
// for the exhaustive search in a test, so seeded random schedules.
// REQUIRES: ccl-sim
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)' --mlir-print-debuginfo | %expect-exit 3 ccl-sim - --ranks 4 --random 20 --seed 1 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: %expect-exit 1 ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence,ccl-verify-comm-order{ranks=4})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v,ccl-insert-comm-fence,ccl-verify-comm-order{ranks=4})' --mlir-print-debuginfo | %expect-exit 0 ccl-sim - --ranks 4 --random 20 --seed 1 2>&1 | FileCheck %s --check-prefix=FIXED
//
// The race, as seed 1 finds it on its first schedule: rank 1, still in the
// first call, reads rank 0's send_counts[1] (the late snapshot); rank 0 has
// left the first call and its @stage rewrites send_counts[1]. Nothing orders
// the two: rank 0 passed Barrier B before rank 1 took its snapshot.
// (--mlir-print-debuginfo keeps the lowering's locations: the generated ops
// point at the all_to_all_v they came from, named by protocol step.)

// CHECKER: all-to-all-v-late-snapshot.mlir:{{[0-9]+}}:5: error: data race: 'ccl.tensor_write' (rank 0 block 0 in launch 1 of @stage) writes element 1 of argument #1 of @entry on rank 0 and nothing orders it with 'ccl.remote_load' (rank 1 block 0 in launch 1 of @__ccl_all_to_all_v_p4_b4)
// CHECKER-NEXT: ccl.tensor_write
// CHECKER: note: the other access: 'ccl.remote_load'

// FIXED:      {{^}}ccl-sim: no race: 20 random schedules of 4 ranks ({{[0-9]+}} states, seed 1){{$}}
// FIXED-NEXT: {{^}}ccl-sim: executed: fences {{[0-9]+}},
// FIXED-NOT:  error

// LATE:      all-to-all-v-late-snapshot.mlir:[[@LINE+11]]:5: error: data race: unordered accesses to element 1 of argument #1 of @entry on rank 0: no happens-before edge orders them
// LATE-NEXT: all-to-all-v-late-snapshot.mlir:[[@LINE+19]]:3: note: read by rank 1 block 0 'ccl.remote_load' (step snapshot) in launch 1 of @__ccl_all_to_all_v_p4_b4
// LATE-NEXT: all-to-all-v-late-snapshot.mlir:[[@LINE+9]]:5: note: write by rank 0 block 0 'ccl.tensor_write' in launch 1 of @stage
// LATE-NEXT: schedule ({{[0-9]+}} steps, found after {{[0-9]+}} states, in random schedule {{[0-9]+}} of seed 1):

func.func @stage(%send_counts: memref<4xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %c4 step %c1 {
    ccl.tensor_write %send_counts[%i], %one : memref<4xi32, #ccl.window>, i32
  }
  return
}

func.func @entry(%send: memref<8xf32, #ccl.window>, %send_counts: memref<4xi32, #ccl.window>,
                 %recv: memref<8xf32, #ccl.window>, %recv_counts: memref<4xi32>,
                 %signal: memref<4x4xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 4 : i32
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32>, i32,
        memref<4x4xi32, #ccl.window>
  func.call @stage(%send_counts) : (memref<4xi32, #ccl.window>) -> ()
  ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks, signal %signal {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32>, i32,
        memref<4x4xi32, #ccl.window>
  return
}
