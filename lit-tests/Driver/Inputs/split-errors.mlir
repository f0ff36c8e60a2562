func.func @first() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addi %x, %x : i32
  return
}

// -----

func.func @second(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
// ----- a marker in the middle of a line is not one
func.func @third(%a: i32) -> i32 {
  // expected-error @+1 {{custom op 'arith.addx' is unknown}}
  %0 = arith.addx %a, %a : i32
  return %0 : i32
}
