func.func @bad() {
  %0 = arith.addi %x, %x : i32
  return
}
