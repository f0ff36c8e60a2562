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

// -----

// An op that indexes a ranked memref takes one index per dimension (an
// unranked one takes any number).
func.func @read_no_index(%m: memref<8xi32>) {
  // expected-error @+1 {{'ccl.read' op expects 1 index, one per dimension of src ('memref<8xi32>'), but got 0}}
  %v = ccl.read %m[] : memref<8xi32> -> i32
  return
}

// -----

func.func @read_three_indices(%m: memref<8xi32>, %i: index) {
  // expected-error @+1 {{'ccl.read' op expects 1 index, one per dimension of src ('memref<8xi32>'), but got 3}}
  %v = ccl.read %m[%i, %i, %i] : memref<8xi32> -> i32
  return
}

// -----

func.func @read_memref_result(%m: memref<8xi32>, %i: index) {
  // expected-error @+1 {{'ccl.read' op result type 'memref<8xi32>' must be the element type of src, 'i32'}}
  %v = ccl.read %m[%i] : memref<8xi32> -> memref<8xi32>
  return
}

// -----

func.func @tile_load_rank_2(%m: memref<4x16xf32>, %i: index) {
  // expected-error @+1 {{'ccl.tile_load' op expects 2 indices, one per dimension of src ('memref<4x16xf32>'), but got 1}}
  %t = ccl.tile_load %m[%i] : memref<4x16xf32> -> vector<16xf32>
  return
}

// -----

func.func @tile_store_scalar_memref(%t: vector<16xf32>, %m: memref<f32>, %i: index) {
  // expected-error @+1 {{'ccl.tile_store' op expects 0 indices, one per dimension of dst ('memref<f32>'), but got 1}}
  ccl.tile_store %t, %m[%i] : vector<16xf32>, memref<f32>
  return
}

// -----

func.func @tensor_write_two_indices(%m: memref<8xf32, #ccl.window>, %x: f32, %i: index) {
  // expected-error @+1 {{'ccl.tensor_write' op expects 1 index, one per dimension of dst ('memref<8xf32, #ccl.window>'), but got 2}}
  ccl.tensor_write %m[%i, %i], %x : memref<8xf32, #ccl.window>, f32
  return
}

// -----

// A signal holds integers.
func.func @notify_float_signal(%sig: memref<8xf32, #ccl.window>, %peer: i32, %v: i32) {
  // expected-error @+1 {{'ccl.notify' op operand #0 must be memref of signless integers wider than i1, or index, but got 'memref<8xf32, #ccl.window>'}}
  ccl.notify set %sig, %peer, %v : memref<8xf32, #ccl.window>, i32, i32
  return
}

// -----

func.func @notify_scalar_signal(%sig: f32, %peer: i32, %v: i32) {
  // expected-error @+1 {{'ccl.notify' op operand #0 must be memref of signless integers wider than i1, or index, but got 'f32'}}
  ccl.notify set %sig, %peer, %v : f32, i32, i32
  return
}

// -----

func.func @wait_bool_signal(%sig: memref<8xi1>, %v: i32) {
  // expected-error @+1 {{'ccl.wait' op operand #0 must be memref of signless integers wider than i1, or index, but got 'memref<8xi1>'}}
  ccl.wait ge %sig, %v : memref<8xi1>, i32
  return
}

// -----

// ccl.submit names a function of the nearest symbol table, as func.call does.
func.func @submit_nowhere() {
  // expected-error @+1 {{'ccl.submit' op @nowhere does not reference a symbol}}
  ccl.submit @nowhere() : () -> ()
  return
}

// -----

// expected-note @+1 {{the symbol it references}}
memref.global "private" @table : memref<4xf32>

func.func @submit_not_a_function() {
  // expected-error @+1 {{'ccl.submit' op @table does not reference a function}}
  ccl.submit @table() : () -> ()
  return
}

// -----

// The callee is looked up in the submit's own module.
func.func private @outside()

module @inner {
  func.func @submit_from_inner() {
    // expected-error @+1 {{'ccl.submit' op @outside does not reference a symbol}}
    ccl.submit @outside() : () -> ()
    return
  }
}

// -----

// ccl.launch_width, on a launch or on a kernel, is a positive integer.
func.func private @kernel()

func.func @launch_negative() {
  // expected-error @+1 {{'func.call' op attribute 'ccl.launch_width' must be a positive integer, but got -1 : i64}}
  func.call @kernel() {ccl.launch_width = -1 : i64} : () -> ()
  return
}

// -----

func.func private @kernel()

func.func @launch_zero() {
  // expected-error @+1 {{'func.call' op attribute 'ccl.launch_width' must be a positive integer, but got 0 : i64}}
  func.call @kernel() {ccl.launch_width = 0 : i64} : () -> ()
  return
}

// -----

func.func private @kernel()

func.func @launch_string() {
  // expected-error @+1 {{'func.call' op attribute 'ccl.launch_width' must be a positive integer, but got "x"}}
  func.call @kernel() {ccl.launch_width = "x"} : () -> ()
  return
}

// -----

// expected-error @+1 {{'func.func' op attribute 'ccl.launch_width' must be a positive integer, but got 0 : i32}}
func.func @kernel_zero() attributes {ccl.kind = "aiv", ccl.launch_width = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'func.func' op attribute 'ccl.launch_width' must be a positive integer, but got 1.000000e+00 : f32}}
func.func private @kernel_float() attributes {ccl.launch_width = 1.0 : f32}
