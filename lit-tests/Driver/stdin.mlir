// The input is read from stdin given '-' or no file; diagnostics name
// '<stdin>' as mlir-opt does.
// RUN: ccl-opt - < %s | FileCheck %s
// RUN: cat %s | ccl-opt | FileCheck %s
// RUN: not ccl-opt < %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not mlir-opt < %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK: func.func @from_stdin
// ERR: <stdin>:2:19: error: use of undeclared SSA value name
func.func @from_stdin() {
  return
}
