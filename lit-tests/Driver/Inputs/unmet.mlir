func.func @f(%a: i32) {
  // expected-error @+1 {{this is never reported}}
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %nope : i32
  return
}
