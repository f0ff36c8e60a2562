//! Op names as their context uniques them (`MlirIdentifier`s), so that a
//! pass compares one word per op instead of fetching and comparing strings
//! across the FFI boundary.

use super::strings::{bytes, string_ref};
use melior::{ir::OperationRef, Context};

/// An op name as its context uniques it. Two names are equal exactly when
/// they are the same identifier. A name is an identity only: it is never
/// read through, so it outlives nothing it points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Name(usize);

impl Name {
    /// The name of `op`.
    pub fn of(op: OperationRef<'_, '_>) -> Self {
        // SAFETY: `op` is live.
        Self(unsafe { mlir_sys::mlirOperationGetName(op.to_raw()) }.ptr as usize)
    }

    /// `text` as an identifier of `context`.
    pub fn get(context: &Context, text: &str) -> Self {
        // SAFETY: the context is live; the text is copied into it.
        Self(unsafe { mlir_sys::mlirIdentifierGet(context.to_raw(), string_ref(text)) }.ptr as usize)
    }
}

/// The characters of `op`'s name, not checked as UTF-8 (for byte tests on
/// every op of a walk).
pub fn name_bytes<'c>(op: OperationRef<'c, '_>) -> &'c [u8] {
    // SAFETY: `op` is live; an identifier's characters live as long as its
    // context, which outlives `'c`.
    unsafe { bytes(mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op.to_raw()))) }
}
