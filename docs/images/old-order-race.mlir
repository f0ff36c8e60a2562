
func.func @stage(%send: memref<2xi32, #ccl.window>, %sc: memref<2xi32, #ccl.window>, %round: index) attributes {ccl.kind = "aiv"} {
  %me = ccl.rank : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant 2 : index
  %rows = arith.constant 1 : index
  %rows1 = arith.constant 2 : index
  scf.for %q = %c0 to %p step %c1 {
    %a = arith.addi %round, %me : index
    %b = arith.addi %a, %q : index
    %n = arith.remui %b, %rows1 : index
    %n32 = arith.index_cast %n : index to i32
    ccl.tensor_write %sc[%q], %n32 : memref<2xi32, #ccl.window>, i32
    %base = arith.muli %q, %rows : index
    scf.for %k = %c0 to %rows step %c1 {
      %at = arith.addi %base, %k : index
      %v = arith.index_cast %at : index to i32
      ccl.tensor_write %send[%at], %v : memref<2xi32, #ccl.window>, i32
    }
  }
  return
}
func.func @main(%send: memref<2xi32, #ccl.window>, %sc: memref<2xi32, #ccl.window>, %recv: memref<2xi32, #ccl.window>, %rc: memref<2xi32>, %sig: memref<2x1xi32, #ccl.window>) attributes {ccl.kind = "orchestration"} {
  %blocks = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %calls = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %round = %c0 to %calls step %c1 {
    func.call @stage(%send, %sc, %round) : (memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, index) -> ()
    ccl.all_to_all_v %send, %sc, %recv, %rc, blocks %blocks, signal %sig {launch_width = 1 : i64}
      : memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32, #ccl.window>, memref<2xi32>, i32, memref<2x1xi32, #ccl.window>
  }
  return
}
