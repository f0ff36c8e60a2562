//! `ccl-opt`: an mlir-opt for the ccl dialect.
fn main() {
    std::process::exit(cclir::driver::main(std::env::args().collect()));
}
