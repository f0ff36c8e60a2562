// A second run changes nothing: the pass's output is a fixed point, byte
// for byte, on every test input of this directory and on the examples
// through the whole pipeline.
// RUN: ccl-opt %S/loop-guard.mlir -p 'builtin.module(func.func(ccl-sink-comm-markers))' -o %t.guard
// RUN: ccl-opt %t.guard -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.guard -
// RUN: ccl-opt %S/loop-out.mlir -p 'builtin.module(func.func(ccl-sink-comm-markers))' -o %t.loops
// RUN: ccl-opt %t.loops -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.loops -
// RUN: ccl-opt %S/loop-stays.mlir -p 'builtin.module(func.func(ccl-sink-comm-markers))' -o %t.stays
// RUN: ccl-opt %t.stays -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.stays -
// RUN: ccl-opt %S/if.mlir -p 'builtin.module(func.func(ccl-sink-comm-markers))' -o %t.if
// RUN: ccl-opt %t.if -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.if -
// RUN: ccl-opt %S/drop-fence.mlir -p 'builtin.module(func.func(ccl-sink-comm-markers))' -o %t.drop
// RUN: ccl-opt %t.drop -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.drop -
// RUN: ccl-opt %S/wait-invalidate.mlir -p 'builtin.module(func.func(ccl-sink-comm-markers))' -o %t.wait
// RUN: ccl-opt %t.wait -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.wait -
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.moe
// RUN: ccl-opt %t.moe -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.moe -
// RUN: ccl-opt %examples/moe_dispatch_lowered.mlir -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.lowered
// RUN: ccl-opt %t.lowered -p 'builtin.module(func.func(ccl-sink-comm-markers))' | diff %t.lowered -
