//! Integers in the IR: the width of an integer type, the value of an
//! integer attribute, and the value an `arith.constant` defines.

use cclir_dialect::{
    ffi::operations::defining_op,
    names::{Interned, Name},
};
use melior::ir::{
    attribute::IntegerAttribute, operation::OperationLike, r#type::IntegerType, Attribute, AttributeLike, Type,
    TypeLike, Value, ValueLike,
};

/// The bit width of an integer or index type (index counts as 64), or `None`
/// for any other type.
pub fn int_width(ty: Type<'_>) -> Option<u32> {
    if ty.is_index() {
        Some(64)
    } else if ty.is_integer() {
        IntegerType::try_from(ty).ok().map(|int| int.width())
    } else {
        None
    }
}

/// The value of an integer attribute of an integer or index type, read as a
/// signed number. Widths up to 64 go through MLIR's accessor; wider ones
/// (i128) through the attribute's decimal text, which MLIR prints exactly.
pub fn int_attribute_value(attribute: Attribute<'_>) -> Option<i128> {
    if !attribute.is_integer() {
        return None;
    }
    let width = int_width(attribute.r#type())?;
    if width <= 64 {
        return IntegerAttribute::try_from(attribute).ok().map(|int| int.signed_value() as i128);
    }
    let text = attribute.to_string();
    text.split(" : ").next()?.trim().parse::<i128>().ok()
}

/// The value of `value` if an `arith.constant` of integer or index type
/// defines it.
pub fn constant_int(names: &Interned, value: Value<'_, '_>) -> Option<i128> {
    let owner = defining_op(value)?;
    if Name::of(owner) != names.arith_constant {
        return None;
    }
    int_width(value.r#type())?;
    int_attribute_value(owner.attribute("value").ok()?)
}
