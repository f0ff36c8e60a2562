func.func @keep(%w: memref<64xf32, #ccl.window>) attributes {ccl.kind = "incore"} {
  ccl.fence
  ccl.barrier
  return
}
func.func @drop() {
  return
}
