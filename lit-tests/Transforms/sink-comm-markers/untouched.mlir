// Only InCore functions (ccl.kind incore, aic, aiv) with a body change:
// orchestration code and declarations keep their bytes. An unknown
// ccl.kind is a located error (exit code 1), as in the insert pass.
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' --verify-diagnostics | FileCheck %s
// RUN: not ccl-opt %s --split-input-file -p 'builtin.module(ccl-find-post-collective-kernels{sound-placement=true},func.func(ccl-sink-comm-markers))' -o %t 2>&1 | FileCheck %s --check-prefix=EXIT

// CHECK-LABEL: func.func @host
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.barrier
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @declared
func.func @host() attributes {ccl.kind = "orchestration"} {
  ccl.fence
  ccl.barrier
  ccl.fence
  return
}
func.func private @declared() attributes {ccl.kind = "aiv"}

// -----

// EXIT: error: unknown ccl.kind "kernel"
// expected-error @+1 {{unknown ccl.kind "kernel"}}
func.func @k() attributes {ccl.kind = "kernel"} {
  ccl.fence
  return
}
