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

/// `name` as a symbol reference in MLIR's syntax: `@name` when it is a bare
/// identifier, else quoted (`@""`, `@"a b"`), so a message names every
/// function unambiguously, the empty name included.
pub fn symbol_ref(name: &str) -> String {
    let mut chars = name.chars();
    let bare = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        format!("@{name:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::symbol_ref;

    #[test]
    fn symbols_print_as_mlir_spells_them() {
        assert_eq!(symbol_ref("kernel_0.a$"), "@kernel_0.a$");
        assert_eq!(symbol_ref(""), "@\"\"");
        assert_eq!(symbol_ref("a b"), "@\"a b\"");
        assert_eq!(symbol_ref("0x"), "@\"0x\"");
    }
}
