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
