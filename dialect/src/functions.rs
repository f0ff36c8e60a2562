//! What a function is (docs/semantics.md, "Functions"), read from its
//! attributes: its `ccl.kind` (default `opaque`), with `ccl.level = "host"`
//! plus `ccl.role = "orchestrator"` making a non-InCore function
//! orchestration-like.

use crate::{
    ffi::attributes::{discardable_attribute, discardable_string_attr, string_of},
    names::{self, FunctionKind},
};
use melior::ir::{BlockRef, OperationRef, RegionLike};
use std::fmt;

/// A `ccl.kind` that docs/semantics.md does not list (or that is not a string).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKind {
    /// The attribute as written (`"foo"`, `3 : i32`).
    pub value: String,
}

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown ccl.kind {}; accepted kinds: {}", self.value, names::KINDS.join(", "))
    }
}

/// The kind of `func`. An explicit InCore kind wins over level/role: a
/// device kernel is never a scan target.
pub fn function_kind(func: OperationRef<'_, '_>) -> Result<FunctionKind, UnknownKind> {
    let kind = match discardable_attribute(func, names::ATTR_KIND) {
        None => FunctionKind::Other,
        Some(attribute) => string_of(attribute)
            .and_then(FunctionKind::from_kind)
            .ok_or_else(|| UnknownKind { value: attribute.to_string() })?,
    };
    if kind != FunctionKind::InCore && is_host_orchestrator(func) {
        return Ok(FunctionKind::Orchestration);
    }
    Ok(kind)
}

/// Whether `func` is a device kernel: its `ccl.kind` is an InCore kind. The
/// one attribute [`function_kind`] reads first, and all it needs to say
/// `InCore`.
pub fn is_in_core(func: OperationRef<'_, '_>) -> bool {
    discardable_string_attr(func, names::ATTR_KIND).and_then(FunctionKind::from_kind) == Some(FunctionKind::InCore)
}

/// `ccl.level = "host"` together with `ccl.role = "orchestrator"`.
pub fn is_host_orchestrator(func: OperationRef<'_, '_>) -> bool {
    discardable_string_attr(func, names::ATTR_LEVEL) == Some("host")
        && discardable_string_attr(func, names::ATTR_ROLE) == Some("orchestrator")
}

/// The entry block of a function, or `None` for a declaration.
pub fn entry_block<'c, 'a>(func: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    crate::ffi::walk::regions(func).next()?.first_block()
}
