// ccl-pipeline{placement=...}: 'rules' (the default) is the pipeline as it
// always was, byte for byte; 'minimal' adds ccl-sink-comm-markers after
// the insertion, in the same func.func adaptor, before the checker, with
// or without the lowering. Any other value is an error.
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-pipeline)' -o %t.default
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-pipeline{placement=rules})' | diff %t.default -
// RUN: ccl-opt %examples/moe_dispatch.mlir -p 'builtin.module(ccl-find-post-collective-kernels,func.func(ccl-admit-launch-width,ccl-insert-kernel-fence),ccl-verify-comm-order)' | diff %t.default -
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(ccl-pipeline{placement=minimal})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MINIMAL
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(ccl-pipeline{lower-collectives=true placement=minimal})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(ccl-pipeline)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULES
// RUN: not ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=fewest})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// MINIMAL: builtin.module(
// MINIMAL-NEXT:   ccl-pipeline-nested-modules{lower-collectives=false max-blocks=0 placement=minimal ranks=2 sync=true},
// MINIMAL-NEXT:   ccl-find-post-collective-kernels{sound-placement=true},
// MINIMAL-NEXT:   func.func(
// MINIMAL-NEXT:     ccl-admit-launch-width{lower-dynamic=false max-blocks=0},
// MINIMAL-NEXT:     ccl-insert-kernel-fence,
// MINIMAL-NEXT:     ccl-sink-comm-markers
// MINIMAL-NEXT:   ),
// MINIMAL-NEXT:   ccl-verify-comm-order{max-errors=0 ranks=2 sync=true}

// LOWERED:      ccl-find-post-collective-kernels{sound-placement=true},
// LOWERED-NEXT:   func.func(
// LOWERED-NEXT:     ccl-insert-kernel-fence,
// LOWERED-NEXT:     ccl-sink-comm-markers
// LOWERED-NEXT:   ),

// RULES-NOT: ccl-sink-comm-markers

// BAD: for the --placement option: Cannot find option named 'fewest'!
// BAD: failed to add `ccl-pipeline` with options `placement=fewest`

func.func @f() {
  return
}
