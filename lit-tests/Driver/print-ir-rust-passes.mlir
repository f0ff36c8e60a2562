// IR dumps name the Rust passes like upstream ones: after one pass, with
// the module in scope, on one thread; an unknown name is refused.
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline)' --mlir-print-ir-after=ccl-verify-comm-order --mlir-print-ir-module-scope --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s
// CHECK: // -----// IR Dump After CclVerifyCommOrder (ccl-verify-comm-order) ('builtin.module' operation) //----- //
// CHECK-NEXT: module {
// CHECK: ccl.fence
// CHECK-NOT: IR Dump
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' --mlir-print-ir-before=ccl-insert-comm-fence -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: // -----// IR Dump Before CclInsertCommFence (ccl-insert-comm-fence) //----- //
// BEFORE-NOT: ccl.fence
// RUN: not ccl-opt %s --mlir-print-ir-after=ccl-no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: Cannot find option named 'ccl-no-such-pass'!
func.func @k(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}
