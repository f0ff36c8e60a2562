func.func @good() {
  return
}
