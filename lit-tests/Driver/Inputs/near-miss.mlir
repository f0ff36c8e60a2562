func.func @f(%a: i32) {
  // expected-warning @+1 {{use of undeclared SSA value name}}
  %1 = arith.addi %a, %nope : i32
  return
}
