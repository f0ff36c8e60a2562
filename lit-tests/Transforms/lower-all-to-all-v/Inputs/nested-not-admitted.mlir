// A collective of a nested module that was never admitted (nested-modules.mlir
// runs this): the error is at the op, as on the nested module alone.
func.func @top() {
  return
}

module @inner {
  func.func @entry(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                   %sig: memref<4x4xi32, #ccl.window>, %b: i32) {
    // expected-error @+1 {{'ccl.all_to_all_v' has no admitted launch_width: run ccl-admit-launch-width on a constant number of blocks first}}
    ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig
        : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
    return
  }
}
