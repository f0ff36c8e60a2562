// ccl-pipeline on its own output is a no-op: the same bytes, and the
// statistics count no fold, stamp or insertion (marks and rescans count
// findings, so they repeat). Every step of such a run declares that it
// preserved everything, so verify-each checks nothing after it; the output
// does not depend on verify-each either way.
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-pipeline)' --mlir-pass-statistics -o %t.once 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: ccl-opt %t.once -p 'builtin.module(ccl-pipeline)' --mlir-pass-statistics -o %t.twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: diff %t.once %t.twice
// RUN: ccl-opt %t.once -p 'builtin.module(ccl-pipeline)' --verify-each=false -o - | diff %t.once -
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-pipeline)' --verify-each=false -o - | diff %t.once -

// ONCE:      CclFindPostCollectiveKernels
// ONCE-NEXT:   (S) 3 kernels-marked
// ONCE-NEXT:   (S) 1 loops-rescanned
// ONCE-NEXT:   (S) 0 wrapper-publishes
// ONCE-NEXT: 'func.func' Pipeline
// ONCE-NEXT:   CclAdmitLaunchWidth
// ONCE-NEXT:     (S) 1 launches-stamped
// ONCE-NEXT:     (S) 1 ops-folded
// ONCE-NEXT:     (S) 0 ops-lowered
// ONCE-NEXT:     (S) 0 ops-merged
// ONCE-NEXT:   CclInsertKernelFence
// ONCE-NEXT:     (S) 3 fences
// ONCE-NEXT:     (S) 3 prologues
// ONCE-NEXT:     (S) 2 region-invalidates
// ONCE-NEXT:     (S) 1 whole-gm-invalidates

// TWICE:      CclFindPostCollectiveKernels
// TWICE-NEXT:   (S) 3 kernels-marked
// TWICE-NEXT:   (S) 1 loops-rescanned
// TWICE-NEXT:   (S) 0 wrapper-publishes
// TWICE-NEXT: 'func.func' Pipeline
// TWICE-NEXT:   CclAdmitLaunchWidth
// TWICE-NEXT:     (S) 0 launches-stamped
// TWICE-NEXT:     (S) 0 ops-folded
// TWICE-NEXT:     (S) 0 ops-lowered
// TWICE-NEXT:     (S) 0 ops-merged
// TWICE-NEXT:   CclInsertKernelFence
// TWICE-NEXT:     (S) 0 fences
// TWICE-NEXT:     (S) 0 prologues
// TWICE-NEXT:     (S) 0 region-invalidates
// TWICE-NEXT:     (S) 0 whole-gm-invalidates
