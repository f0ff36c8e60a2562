func.func @f(%a: i1) -> i1 {
  %0 = ccl.rank : i1
  return %0 : i1
}
