// A ccl.kind that docs/semantics.md does not list is a located error naming the
// accepted kinds, and the pass fails. Every bad function is reported.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' --verify-diagnostics
// The same errors from the scan of the split form ccl-pipeline runs.
// RUN: ccl-opt %s -p 'builtin.module(ccl-find-post-collective-kernels)' --verify-diagnostics
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline)' --verify-diagnostics
// Nothing is printed and the exit code is 1 without --verify-diagnostics.
// RUN: not ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s < %t.err
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK: unknown-kind.mlir:[[@LINE+2]]:1: error: unknown ccl.kind "kernel"; accepted kinds: incore, aic, aiv, orchestration, graph, group, spmd, opaque
// expected-error @+1 {{unknown ccl.kind "kernel"; accepted kinds: incore, aic, aiv, orchestration, graph, group, spmd, opaque}}
func.func @bad(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "kernel"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}

func.func @good() attributes {ccl.kind = "incore"} {
  return
}

// Kinds are case-sensitive; a kind that is not a string is unknown too.
// CHECK: unknown-kind.mlir:[[@LINE+2]]:1: error: unknown ccl.kind "InCore"
// expected-error @+1 {{unknown ccl.kind "InCore"; accepted kinds: incore, aic, aiv}}
func.func @case() attributes {ccl.kind = "InCore"} {
  return
}
// CHECK: unknown-kind.mlir:[[@LINE+2]]:1: error: unknown ccl.kind 1 : i32
// expected-error @+1 {{unknown ccl.kind 1 : i32}}
func.func private @number() attributes {ccl.kind = 1 : i32}

// The empty string is a kind like any other: unknown.
// CHECK: unknown-kind.mlir:[[@LINE+2]]:1: error: unknown ccl.kind ""; accepted kinds: incore,
// expected-error @+1 {{unknown ccl.kind ""; accepted kinds: incore, aic, aiv, orchestration, graph, group, spmd, opaque}}
func.func @empty() attributes {ccl.kind = ""} {
  return
}
