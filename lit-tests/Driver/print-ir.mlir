// IR printing around passes, with mlir-opt's headers and selection.
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-before=cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NOT: IR Dump
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after=canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER-NOT: IR Dump Before
// AFTER-NOT: IR Dump After CSE
// AFTER: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after-all --mlir-print-ir-module-scope --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPE
// SCOPE: // -----// IR Dump After CSE (cse) ('func.func' operation: @twice) //----- //
// SCOPE-NEXT: module {
// Module scope needs threading off, as in mlir-opt (MLIR itself would abort).
// RUN: not ccl-opt %s -p 'builtin.module(func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-module-scope -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPEERR
// RUN: not mlir-opt %s -p 'builtin.module(func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-module-scope -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPEERR
// SCOPEERR: error: IR print for module scope can't be setup on a pass-manager without disabling multi-threading first.

// The same dumps, byte for byte, as mlir-opt for each selection.
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-before-all -o /dev/null 2> %t.ccl
// RUN: mlir-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-before-all -o /dev/null 2> %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2> %t.change.ccl
// RUN: mlir-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2> %t.change.upstream
// RUN: diff %t.change.ccl %t.change.upstream
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after=cse -o /dev/null 2> %t.after.ccl
// RUN: mlir-opt %s -p 'builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after=cse -o /dev/null 2> %t.after.upstream
// RUN: diff %t.after.ccl %t.after.upstream
func.func @twice(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.addi %0, %1 : i32
  return %2 : i32
}
