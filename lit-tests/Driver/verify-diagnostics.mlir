// Every designator and form of expected-* lines is matched.
// RUN: ccl-opt --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin --split-input-file --verify-diagnostics %s

func.func @plus_one() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addi %x, %x : i32
  return
}

// -----

func.func @minus_and_below(%a: i32) {
  %0 = arith.addi %a, %q : i32
  // expected-error @-1 {{undeclared SSA value}}
  return
}

// -----

func.func @below(%a: i32) {
  // expected-error @below {{custom op 'arith.nope' is unknown}}
  %0 = arith.nope %a : i32
  return
}

// -----

func.func @regex(%a: i32) {
  %0 = arith.addi %a, %zz : i32 // expected-error-re {{use of {{[a-z]+}} SSA value}}
  return
}

// -----

func.func @above() {
  %0 = ccl.rank : f32
  // expected-error @above {{'ccl.rank' op result #0 must be signless integer wider than i1, or index, but got 'f32'}}
  return
}

