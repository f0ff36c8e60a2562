// Input of parse-error.mlir: parses, but a ccl.put with an i1 peer fails the
// op's verifier.
func.func @main(%dst: memref<4xi32, #ccl.window>, %src: memref<4xi32>, %peer: i1)
    attributes {ccl.kind = "orchestration"} {
  ccl.put %dst, %src, %peer : memref<4xi32, #ccl.window>, memref<4xi32>, i1
  return
}
