// A second run changes nothing: the collectives are gone, so it finds
// nothing to lower and leaves the module as it is (byte-identical output,
// alone and inside ccl-pipeline{lower-collectives=true}).
// The exchange is in place (send and recv are one buffer, so are the counts): peers write what a
// rank still sends, a race the checker reports; sync=false checks the markers alone.
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v)' -o %t.once
// RUN: ccl-opt %t.once -p 'builtin.module(ccl-lower-all-to-all-v)' | diff %t.once -
// RUN: ccl-opt %s -p 'builtin.module(ccl-lower-all-to-all-v,ccl-lower-all-to-all-v)' | diff %t.once -
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{lower-collectives=true sync=false})' -o %t.piped
// RUN: ccl-opt %t.piped -p 'builtin.module(ccl-pipeline{lower-collectives=true sync=false})' | diff %t.piped -
// RUN: FileCheck %s < %t.once

// CHECK-LABEL: func.func @entry(
// CHECK-NOT:     ccl.all_to_all_v
// CHECK:         call @__ccl_all_to_all_v_p4_b4(
// CHECK-LABEL: func.func @__ccl_all_to_all_v_p4_b4(
// CHECK-NOT:     func.func

func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>)
    attributes {ccl.kind = "orchestration"} {
  %b = arith.constant 4 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}
