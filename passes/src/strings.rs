//! Strings MLIR hands over, read by pointer and length: melior's
//! `StringRef::as_str` indexes `len - 1` and panics on an empty string,
//! and `""` is a value like any other (a `ccl.kind`, a symbol name).

/// The bytes of `text`.
///
/// # Safety
/// `text` must point at `length` readable bytes, or be empty.
pub unsafe fn bytes_of<'s>(text: mlir_sys::MlirStringRef) -> &'s [u8] {
    if text.data.is_null() || text.length == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(text.data as *const u8, text.length)
    }
}
