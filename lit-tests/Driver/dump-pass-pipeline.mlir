// --dump-pass-pipeline prints byte for byte what mlir-opt prints for
// upstream-only pipelines, nesting included.
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(func.func(cse,canonicalize),symbol-dce,func.func(cse))' -o /dev/null 2> %t.ccl
// RUN: mlir-opt %s --dump-pass-pipeline -p 'builtin.module(func.func(cse,canonicalize),symbol-dce,func.func(cse))' -o /dev/null 2> %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module()' -o /dev/null 2> %t.empty.ccl
// RUN: mlir-opt %s --dump-pass-pipeline -p 'builtin.module()' -o /dev/null 2> %t.empty.upstream
// RUN: diff %t.empty.ccl %t.empty.upstream
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(ccl-pipeline)' -o /dev/null 2>&1 | FileCheck %s
// CHECK: Pass Manager with
// CHECK: ccl-
func.func @f() {
  return
}

// Rust passes print with their options and feed back to -p unchanged.
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(ccl-pipeline{max-blocks=32})' -o /dev/null 2> %t.dump
// RUN: FileCheck %s --check-prefix=OPTIONS < %t.dump
// OPTIONS: Pass Manager with 4 passes:
// OPTIONS-NEXT: builtin.module(
// OPTIONS-NEXT:   ccl-pipeline-nested-modules{lower-collectives=false max-blocks=32 placement=rules ranks=2 sync=true},
// OPTIONS-NEXT:   ccl-find-post-collective-kernels{sound-placement=false},
// OPTIONS-NEXT:   func.func(
// OPTIONS-NEXT:     ccl-admit-launch-width{lower-dynamic=false max-blocks=32},
// OPTIONS-NEXT:     ccl-insert-kernel-fence
// OPTIONS-NEXT:   ),
// OPTIONS-NEXT:   ccl-verify-comm-order{max-errors=0 ranks=2 sync=true}
// OPTIONS-NEXT: )
// RUN: tail -n +2 %t.dump | sed -e 's/^ *//' | tr -d '\n' > %t.pipeline
// RUN: ccl-opt %s --dump-pass-pipeline -p "$(cat %t.pipeline)" -o /dev/null 2> %t.again
// RUN: diff %t.dump %t.again

// With the lowering, admission runs before it and the scan after it, so the
// two per-function steps get an adaptor each. Nested modules go first, each
// through the whole pipeline with the same options.
// RUN: ccl-opt %s --dump-pass-pipeline -p 'builtin.module(ccl-pipeline{lower-collectives=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOWER
// LOWER:      builtin.module(
// LOWER-NEXT:   ccl-pipeline-nested-modules{lower-collectives=true max-blocks=0 placement=rules ranks=2 sync=true},
// LOWER-NEXT:   func.func(
// LOWER-NEXT:     ccl-admit-launch-width{lower-dynamic=false max-blocks=0}
// LOWER-NEXT:   ),
// LOWER-NEXT:   ccl-lower-all-to-all-v{late-snapshot=false},
// LOWER-NEXT:   ccl-find-post-collective-kernels{sound-placement=false},
// LOWER-NEXT:   func.func(
// LOWER-NEXT:     ccl-insert-kernel-fence
// LOWER-NEXT:   ),
// LOWER-NEXT:   ccl-verify-comm-order{max-errors=0 ranks=2 sync=true}
// LOWER-NEXT: )
