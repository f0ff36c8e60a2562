// Printer flags: generic form, debug locations, unregistered dialects.
// RUN: ccl-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "func.func"() <{function_type = () -> (), sym_name = "f"}>
// GENERIC: "func.return"() : () -> ()
// RUN: ccl-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// DEBUG: loc(
// RUN: ccl-opt %s --mlir-print-debuginfo > %t.ccl
// RUN: mlir-opt %s --mlir-print-debuginfo > %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: not ccl-opt %S/Inputs/unregistered.mlir 2>&1 | FileCheck %s --check-prefix=NOALLOW
// NOALLOW: error: operation being parsed with an unregistered dialect
// RUN: ccl-opt %S/Inputs/unregistered.mlir --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOW
// ALLOW: "foo.bar"() : () -> ()
func.func @f() {
  return
}
