// Every pass is also a flag; flags run in command-line order under
// builtin.module, with options after '='.
// RUN: ccl-opt %s --cse --canonicalize='max-iterations=3' | FileCheck %s
// RUN: ccl-opt %s --cse --canonicalize='max-iterations=3' --dump-pass-pipeline -o /dev/null 2> %t.ccl
// RUN: mlir-opt %s --cse --canonicalize='max-iterations=3' --dump-pass-pipeline -o /dev/null 2> %t.upstream
// RUN: diff %t.ccl %t.upstream
// RUN: FileCheck %s --check-prefix=DUMP < %t.ccl

// DUMP: Pass Manager with 2 passes:
// DUMP-NEXT: builtin.module(
// DUMP-NEXT:   cse,
// DUMP-NEXT:   canonicalize{ {{.*}}max-iterations=3

// CHECK-LABEL: func.func @twice
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %arg0, %arg0
// CHECK-NEXT: %[[DOUBLE:.*]] = arith.addi %[[SUM]], %[[SUM]]
// CHECK-NEXT: return %[[DOUBLE]]
func.func @twice(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.addi %0, %1 : i32
  return %2 : i32
}
