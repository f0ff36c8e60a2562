// PTOAS issue #711 (fixed by PR #718): `pto.comm.tnotify` was lowered with no
// drain before the signal store. A peer-addressed tile store issued just
// before it can still be in flight when the signal lands, so the receiver's
// wait returns before the data is there. The markers are written as the
// lowering emitted them: the store, then the notify, no fence between.
// Rank 0 sends, rank 1 receives.

func.func @send(%inbox: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %value: vector<1xi32>)
    attributes {ccl.kind = "aiv"} {
  %one = arith.constant 1 : i32
  %c1 = arith.constant 1 : index
  ccl.remote_store %value, %inbox, %c1 : vector<1xi32>, memref<1xi32, #ccl.window>, index
  ccl.notify atomic_add %sig, %c1, %one : memref<1xi32, #ccl.window>, index, i32
  return
}

func.func @recv(%inbox: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %out: memref<1xi32>)
    attributes {ccl.kind = "aiv"} {
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  ccl.wait ge %sig, %one : memref<1xi32, #ccl.window>, i32
  ccl.cacheinvalid
  %v = ccl.read %inbox[%c0] : memref<1xi32, #ccl.window> -> i32
  ccl.tensor_write %out[%c0], %v : memref<1xi32>, i32
  return
}

func.func @main(%inbox: memref<1xi32, #ccl.window>, %sig: memref<1xi32, #ccl.window>, %out: memref<1xi32>)
    attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %value = arith.constant dense<7> : vector<1xi32>
  %me = ccl.rank : index
  %sender = arith.cmpi eq, %me, %c0 : index
  scf.if %sender {
    func.call @send(%inbox, %sig, %value) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, vector<1xi32>) -> ()
  } else {
    func.call @recv(%inbox, %sig, %out) : (memref<1xi32, #ccl.window>, memref<1xi32, #ccl.window>, memref<1xi32>) -> ()
  }
  return
}
