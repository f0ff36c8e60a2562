//! Strings across the C boundary: `MlirStringRef`s read by pointer and
//! length (melior's `StringRef::as_str` indexes `len - 1` and panics on an
//! empty one, and `""` is a value like any other: a `ccl.kind`, a symbol
//! name), and the C strings MLIR's registry keeps for the life of the
//! process.

use mlir_sys::MlirStringRef;
use std::ffi::{c_char, c_void, CString};

/// A borrowed `MlirStringRef` of `text` (valid while `text` is).
pub fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr() as *const c_char, length: text.len() }
}

/// A borrowed `MlirStringRef` of `bytes`, which need not be UTF-8 (MLIR
/// bytecode).
pub fn byte_ref(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef { data: bytes.as_ptr() as *const c_char, length: bytes.len() }
}

/// The bytes of `text`, read by pointer and length.
///
/// # Safety
/// `text` must point at `length` readable bytes that stay unchanged for
/// `'s`, or be empty.
pub unsafe fn bytes<'s>(text: MlirStringRef) -> &'s [u8] {
    if text.data.is_null() || text.length == 0 {
        &[]
    } else {
        // SAFETY: the caller vouches for `length` readable bytes at `data`.
        unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) }
    }
}

/// `text` as an owned string (invalid UTF-8 replaced).
///
/// # Safety
/// As [`bytes`], for the duration of the call.
pub unsafe fn owned(text: MlirStringRef) -> String {
    // SAFETY: the caller's promise is `bytes`'s.
    String::from_utf8_lossy(unsafe { bytes(text) }).into_owned()
}

/// A NUL-terminated copy of `text` that lives for the process (MLIR keeps
/// `StringRef`s to pass names, options and descriptions).
pub fn leak_c(text: &str) -> *const c_char {
    let owned = CString::new(text.replace('\0', " ")).unwrap_or_default();
    Box::leak(owned.into_boxed_c_str()).as_ptr()
}

/// An `MlirStringCallback` appending to a `Vec<u8>` (`user_data`).
///
/// # Safety
/// `user_data` must point at a live `Vec<u8>` that nothing else borrows, and
/// `chunk` at readable bytes, for the duration of the call.
pub unsafe extern "C" fn append_to_vec(chunk: MlirStringRef, user_data: *mut c_void) {
    // Once per printed token: a bare catch_unwind, free unless something panics.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller's promise: a live, unshared `Vec<u8>`.
        let buffer = unsafe { &mut *(user_data as *mut Vec<u8>) };
        // SAFETY: the caller's promise: `chunk` is readable for the call.
        buffer.extend_from_slice(unsafe { bytes(chunk) });
    }));
}

/// What MLIR prints through an `MlirStringCallback`, collected: `print`
/// gets the callback and its user data.
pub fn printed(print: impl FnOnce(mlir_sys::MlirStringCallback, *mut c_void)) -> Vec<u8> {
    let mut text = Vec::new();
    print(Some(append_to_vec), &mut text as *mut Vec<u8> as *mut c_void);
    text
}
