//! Reading and setting attributes where melior has no wrapper or one that
//! does too much: by name without allocating an error when absent, inherent
//! or discardable, strings and symbols read by pointer and length (melior's
//! `StringAttribute::value` panics on `""`), integers of any width.

use super::strings::{bytes, string_ref};
use melior::ir::{attribute::IntegerAttribute, r#type::IntegerType, Attribute, AttributeLike, OperationRef, Type};

fn attribute<'c>(raw: mlir_sys::MlirAttribute) -> Option<Attribute<'c>> {
    // SAFETY: every caller passes an attribute MLIR just returned for a live
    // op (or null); attributes live as long as their context.
    unsafe { Attribute::from_option_raw(raw) }
}

/// Attribute `name` of `op` (inherent or discardable).
pub fn attribute_by_name<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<Attribute<'c>> {
    // melior's `attribute` allocates the name into its error when absent.
    // SAFETY: `op` is live; `name` is borrowed for the call.
    attribute(unsafe { mlir_sys::mlirOperationGetAttributeByName(op.to_raw(), string_ref(name)) })
}

/// Discardable attribute `name` of `op` (every `ccl.*` function attribute is
/// one), skipping the op's inherent attributes.
pub fn discardable_attribute<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<Attribute<'c>> {
    // SAFETY: `op` is live; `name` is borrowed for the call.
    attribute(unsafe { mlir_sys::mlirOperationGetDiscardableAttributeByName(op.to_raw(), string_ref(name)) })
}

/// The string value of attribute `name` on `op`, if it is a string.
pub fn string_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    string_of(attribute_by_name(op, name)?)
}

/// The string value of discardable attribute `name` of `op`.
pub fn discardable_string_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    string_of(discardable_attribute(op, name)?)
}

/// The text of a string attribute, read by pointer and length (`""` is a
/// value like any other).
pub fn string_of(attribute: Attribute<'_>) -> Option<&str> {
    let raw = attribute.to_raw();
    // SAFETY: `raw` is a live attribute, read as a string only when it is
    // one; its characters live as long as its context.
    unsafe {
        if !mlir_sys::mlirAttributeIsAString(raw) {
            return None;
        }
        std::str::from_utf8(bytes(mlir_sys::mlirStringAttrGetValue(raw))).ok()
    }
}

/// The symbol of a flat symbol reference attribute (`@""` included).
pub fn flat_symbol_of(attribute: Attribute<'_>) -> Option<&str> {
    let raw = attribute.to_raw();
    // SAFETY: `raw` is a live attribute, read as a flat symbol reference
    // only when it is one; its characters live as long as its context.
    unsafe {
        if !mlir_sys::mlirAttributeIsAFlatSymbolRef(raw) {
            return None;
        }
        std::str::from_utf8(bytes(mlir_sys::mlirFlatSymbolRefAttrGetValue(raw))).ok()
    }
}

/// The symbol name of a symbol op (`sym_name`).
pub fn symbol_name<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    string_attr(op, "sym_name")
}

/// The flat symbol reference attribute `name` of `op`.
pub fn flat_symbol_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    flat_symbol_of(attribute_by_name(op, name)?)
}

/// The flat symbol a call-like op (`func.call`, `ccl.submit`) names in its
/// `callee` attribute; `None` when absent or nested (`@a::@b`).
pub fn callee_symbol<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    flat_symbol_attr(op, "callee")
}

/// The keyword of the ccl enum attribute `name` of `op` (`set` of
/// `#ccl<notify_kind set>`). The C API cannot open a dialect attribute, so
/// the keyword is read from its printed form.
pub fn enum_keyword(op: OperationRef<'_, '_>, name: &str) -> Option<String> {
    let text = attribute_by_name(op, name)?.to_string();
    let inner = text.strip_prefix("#ccl<")?.strip_suffix('>')?;
    inner.split_whitespace().nth(1).map(str::to_string)
}

/// The value of the i64 attribute `name` of `op`.
pub fn i64_attr(op: OperationRef<'_, '_>, name: &str) -> Option<i64> {
    IntegerAttribute::try_from(attribute_by_name(op, name)?).ok().map(|int| int.value())
}

/// The i64 value of discardable attribute `name` of `op`.
pub fn discardable_i64_attr(op: OperationRef<'_, '_>, name: &str) -> Option<i64> {
    IntegerAttribute::try_from(discardable_attribute(op, name)?).ok().map(|int| int.value())
}

/// Sets (or replaces) the attribute `name` of `op`.
pub fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attribute: Attribute<'c>) {
    // melior sets attributes only through a mutable reference, which a
    // pass holding shared references to the same IR cannot have.
    // SAFETY: `op` is live and `attribute` belongs to its context; `name`
    // is borrowed for the call.
    unsafe { mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), string_ref(name), attribute.to_raw()) }
}

/// Sets the i64 attribute `name` of `op` to `value`.
pub fn set_i64_attr(op: OperationRef<'_, '_>, name: &str, value: i64) {
    let ty = IntegerType::new(super::context::of_operation(op), 64).into();
    set_attribute(op, name, IntegerAttribute::new(ty, value).into());
}

/// An integer attribute `value : ty`, for any integer width or index (melior
/// builds them from an `i64` only; a wider value is parsed).
pub fn int_attribute<'c>(ty: Type<'c>, value: i128) -> Attribute<'c> {
    if let Ok(narrow) = i64::try_from(value) {
        return IntegerAttribute::new(ty, narrow).into();
    }
    let text = format!("{value} : {ty}");
    Attribute::parse(super::context::of_type(ty), &text).expect("an integer literal of an integer type parses")
}
