//! See cclir::fuzzing::pipeline. (`main` is ours: see cclir_fuzz::run.)
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cclir::fuzzing::pipeline(data));

fn main() {
    cclir_fuzz::run()
}
