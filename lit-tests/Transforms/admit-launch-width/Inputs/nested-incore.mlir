// Rule 5 in a nested module's kernel (nested-modules.mlir runs this).
func.func @top() {
  return
}

module @inner {
  func.func @kernel(%p: i32, %l: i32) -> i32 attributes {ccl.kind = "aiv"} {
    // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' in InCore function @kernel (ccl.kind = "aiv")}}
    %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
    return %b : i32
  }
}
