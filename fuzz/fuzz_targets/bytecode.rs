//! See cclir::fuzzing::bytecode. (`main` is ours: see cclir_fuzz::run.)
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cclir::fuzzing::bytecode(data));

fn main() {
    cclir_fuzz::run()
}
