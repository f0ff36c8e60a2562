// "integer" operands are signless integers wider than i1, or index: i1 and
// floats are rejected with a located error naming the operand, by ccl-opt
// and by upstream mlir-opt with the dialect plugin (the same ODS verifier).
// RUN: ccl-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file --verify-diagnostics

func.func @cal_bool_p(%p: i1, %l: i32) {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'i1'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i1, i32
  return
}

// -----

func.func @cal_float_l(%p: i32, %l: f32) {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'f32'}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, f32
  return
}

// -----

// The result has the type of l.
func.func @cal_result_type(%p: i32, %l: i64) {
  // expected-error @+1 {{failed to verify that all of {l, b} have same type}}
  %b = "ccl.cal_all_to_all_v_blocks"(%p, %l) : (i32, i64) -> i32
  return
}

// -----

func.func @notify_bool_peer(%sig: memref<8xi32, #ccl.window>, %peer: i1, %v: i32) {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'i1'}}
  ccl.notify set %sig, %peer, %v : memref<8xi32, #ccl.window>, i1, i32
  return
}

// -----

func.func @notify_bad_op(%sig: memref<8xi32, #ccl.window>, %peer: i32, %v: i32) {
  // expected-error @+1 {{attribute 'op' failed to satisfy constraint: ccl.notify kind: set or atomic_add}}
  "ccl.notify"(%sig, %peer, %v) {op = "xor"} : (memref<8xi32, #ccl.window>, i32, i32) -> ()
  return
}

// -----

func.func @wait_float(%sig: memref<8xi32, #ccl.window>, %e: f16) {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'f16'}}
  ccl.wait ge %sig, %e : memref<8xi32, #ccl.window>, f16
  return
}

// -----

func.func @blocks_bool(%m: memref<64xf32, #ccl.window>, %c: memref<8xi32>, %b: i1) {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'i1'}}
  ccl.all_to_all_v %m, %c, %m, %c, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i1
  return
}

// -----

func.func @get_float_peer(%d: memref<64xf32, #ccl.window>, %s: memref<64xf32>, %peer: f32) {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'f32'}}
  ccl.get %d, %s, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, f32
  return
}

// -----

func.func @store_into_tensor(%t: vector<4xf32>, %d: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{operand #1 must be memref, but got 'tensor<64xf32>'}}
  ccl.tile_store %t, %d[%i] : vector<4xf32>, tensor<64xf32>
  return
}

// -----

func.func @rank_bool() {
  // expected-error @+1 {{must be signless integer wider than i1, or index, but got 'i1'}}
  %r = ccl.rank : i1
  return
}

// -----

func.func @cacheinvalid_two(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{operand group starting at #0 requires 0 or 1 element, but found 2}}
  "ccl.cacheinvalid"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// Enum keywords outside their list are parse errors at the keyword (MLIR's
// generated enum parser adds a second error after it).
func.func @notify_bad_keyword(%sig: memref<8xi32, #ccl.window>, %peer: i32, %v: i32) {
  // expected-error @+2 {{expected one of [set, atomic_add] for ccl.notify kind: set or atomic_add, got: xor}}
  // expected-error @+1 {{failed to parse Ccl_NotifyKindAttr parameter 'value'}}
  ccl.notify xor %sig, %peer, %v : memref<8xi32, #ccl.window>, i32, i32
  return
}

// -----

func.func @wait_bad_keyword(%sig: memref<8xi32, #ccl.window>, %v: i32) {
  // expected-error @+2 {{expected one of [ge, eq] for ccl.wait comparison: ge or eq, got: lt}}
  // expected-error @+1 {{failed to parse Ccl_WaitCmpAttr parameter 'value'}}
  ccl.wait lt %sig, %v : memref<8xi32, #ccl.window>, i32
  return
}

// -----

func.func @reduce_bad_keyword(%a: memref<8xf32>) {
  // expected-error @+2 {{expected one of [sum, max, min] for ccl.all_reduce reduction: sum, max or min, got: prod}}
  // expected-error @+1 {{failed to parse Ccl_ReduceKindAttr parameter 'value'}}
  ccl.all_reduce prod %a, %a : memref<8xf32>, memref<8xf32>
  return
}
