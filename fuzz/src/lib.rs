//! The libFuzzer entry point of every target.
//!
//! Debian's `libMLIRMlirOptMain.a` carries mlir-opt's own `main`. A target
//! with `#![no_main]` leaves `main` undefined until the linker meets an
//! archive that defines it, and the MLIR archives come before libFuzzer's:
//! the target would start as mlir-opt and reject libFuzzer's flags. So each
//! target defines `main` itself and hands over to libFuzzer's driver.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

use std::{
    ffi::{c_char, c_int, CString},
    ptr,
};

extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        callback: unsafe extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
    /// Defined by `libfuzzer_sys` (it calls the `fuzz_target!` body).
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> c_int;
}

/// Runs libFuzzer with this process's arguments; never returns.
pub fn run() -> ! {
    let args: Vec<CString> =
        std::env::args().map(|a| CString::new(a).unwrap_or_else(|_| CString::new("?").unwrap())).collect();
    let mut pointers: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    pointers.push(ptr::null_mut());
    let mut argc = args.len() as c_int;
    let mut argv = pointers.as_mut_ptr();
    // SAFETY: `argc` and `argv` describe `pointers`, a null-terminated array
    // of NUL-terminated strings (`args`) that outlive the call, which never
    // returns before the process exits; the callback is libfuzzer_sys's
    // entry point, of the signature the driver expects.
    let code = unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, LLVMFuzzerTestOneInput) };
    std::process::exit(code)
}
