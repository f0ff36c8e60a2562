// "integer" operands (DIALECT.md) are signless integers wider than i1 or
// index: i1 and floats are rejected with a located error, by ccl-opt and by
// upstream mlir-opt reading the same IRDL file.
// RUN: ccl-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file --verify-diagnostics

func.func @cal_bool_p(%p: i1, %l: i32) {
  // expected-error @+1 {{'i1' does not satisfy the constraint}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i1, i32
  return
}

// -----

func.func @cal_float_l(%p: i32, %l: f32) {
  // expected-error @+1 {{'f32' does not satisfy the constraint}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, f32
  return
}

// -----

// The result has the type of l.
func.func @cal_result_type(%p: i32, %l: i64) {
  // expected-error @+1 {{expected 'i64' but got 'i32'}}
  %b = "ccl.cal_all_to_all_v_blocks"(%p, %l) : (i32, i64) -> i32
  return
}

// -----

func.func @notify_bool_peer(%sig: memref<8xi32, #ccl.window>, %peer: i1, %v: i32) {
  // expected-error @+1 {{'i1' does not satisfy the constraint}}
  ccl.notify set %sig, %peer, %v : memref<8xi32, #ccl.window>, i1, i32
  return
}

// -----

func.func @notify_bad_op(%sig: memref<8xi32, #ccl.window>, %peer: i32, %v: i32) {
  // expected-error @+1 {{'"xor"' does not satisfy the constraint}}
  "ccl.notify"(%sig, %peer, %v) {op = "xor"} : (memref<8xi32, #ccl.window>, i32, i32) -> ()
  return
}

// -----

func.func @wait_float(%sig: memref<8xi32, #ccl.window>, %e: f16) {
  // expected-error @+1 {{'f16' does not satisfy the constraint}}
  ccl.wait ge %sig, %e : memref<8xi32, #ccl.window>, f16
  return
}

// -----

func.func @blocks_bool(%m: memref<64xf32, #ccl.window>, %c: memref<8xi32>, %b: i1) {
  // expected-error @+1 {{'i1' does not satisfy the constraint}}
  ccl.all_to_all_v %m, %c, %m, %c, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i1
  return
}

// -----

func.func @get_float_peer(%d: memref<64xf32, #ccl.window>, %s: memref<64xf32>, %peer: f32) {
  // expected-error @+1 {{'f32' does not satisfy the constraint}}
  ccl.get %d, %s, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, f32
  return
}

// -----

func.func @store_into_tensor(%t: vector<4xf32>, %d: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{expected base type 'builtin.memref' but got 'builtin.tensor'}}
  ccl.tile_store %t, %d[%i] : vector<4xf32>, tensor<64xf32>
  return
}

// -----

func.func @rank_bool() {
  // expected-error @+1 {{'i1' does not satisfy the constraint}}
  %r = ccl.rank : i1
  return
}

// -----

func.func @cacheinvalid_two(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{op expects at most 1 operands, but got 2}}
  "ccl.cacheinvalid"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
