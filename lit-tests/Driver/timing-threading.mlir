// --mlir-timing reports every pass, Rust passes included; threading can be
// turned off without changing the output.
// RUN: ccl-opt %s -p 'builtin.module(func.func(cse),ccl-pipeline)' --mlir-timing -o /dev/null 2>&1 | FileCheck %s
// CHECK: ... Execution time report ...
// CHECK: Parser
// CHECK: 'func.func' Pipeline
// CHECK: CSE
// CHECK: CclFindPostCollectiveKernels
// CHECK: 'func.func' Pipeline
// CHECK: CclAdmitLaunchWidth
// CHECK: CclInsertKernelFence
// CHECK: CclVerifyCommOrder
// CHECK: Output
// CHECK: Total
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline)' > %t.threads
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline)' --mlir-disable-threading > %t.nothreads
// RUN: diff %t.threads %t.nothreads
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline)' --verify-each=false > %t.noverify
// RUN: diff %t.threads %t.noverify
func.func @k(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  return
}
