//! The IR queries and edits the pass needs: integer constants of any width,
//! building ops before another one, replacing and erasing, and dominance
//! inside structured control flow. What melior does not wrap goes through
//! mlir-sys here, and only here, in this pass.

use crate::names::{Interned, Name};
use melior::ir::{
    attribute::{AttributeLike, IntegerAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    r#type::{IntegerType, TypeLike},
    Attribute, Identifier, OperationRef, Type, Value, ValueLike,
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
    let owner = crate::ir::defining_op(value)?;
    if Name::of(owner) != names.arith_constant {
        return None;
    }
    int_width(value.r#type())?;
    int_attribute_value(owner.attribute("value").ok()?)
}

/// An integer attribute `value : ty`, for any integer width or index.
pub fn int_attribute<'c>(ty: Type<'c>, value: i128) -> Attribute<'c> {
    if let Ok(narrow) = i64::try_from(value) {
        return IntegerAttribute::new(ty, narrow).into();
    }
    let text = format!("{value} : {ty}");
    unsafe {
        Attribute::from_option_raw(mlir_sys::mlirAttributeParseGet(
            mlir_sys::mlirTypeGetContext(ty.to_raw()),
            mlir_sys::MlirStringRef { data: text.as_ptr() as *const _, length: text.len() },
        ))
    }
    .expect("an integer literal of an integer type parses")
}

/// An `i64` integer attribute.
pub fn i64_attribute<'c>(like: Type<'c>, value: i64) -> Attribute<'c> {
    IntegerAttribute::new(int_type(like, 64), value).into()
}

/// An identifier in the context of `ty`.
pub fn identifier<'c>(like: Type<'c>, name: &str) -> Identifier<'c> {
    unsafe {
        Identifier::from_raw(mlir_sys::mlirIdentifierGet(
            mlir_sys::mlirTypeGetContext(like.to_raw()),
            mlir_sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() },
        ))
    }
}

/// Inserts `builder`'s op right before `anchor`.
pub fn insert_before<'c, 'a>(anchor: OperationRef<'c, 'a>, builder: OperationBuilder<'c>) -> OperationRef<'c, 'a> {
    let block = anchor.block().expect("the anchor op is in a block");
    let op = builder.build().expect("a well-formed arith op");
    block.insert_operation_before(anchor, op)
}

/// The first result of `op`.
pub fn first_result<'c, 'a>(op: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    op.result(0).expect("the op has a result").into()
}

/// Replaces every use of `old` with `new`.
pub fn replace_all_uses(old: Value<'_, '_>, new: Value<'_, '_>) {
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// Erases `op` (it must have no uses left). The reference must not be used
/// afterwards.
pub fn erase(op: OperationRef<'_, '_>) {
    unsafe {
        // Detach first: the C API destroys ops the caller owns.
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirOperationDestroy(op.to_raw());
    }
}

/// Whether `first` properly dominates `later` by structure alone: `later` is
/// in `first`'s block, or nested in an op of that block, after `first`.
/// Anything else (other blocks of a CFG region, sibling branches) is "no":
/// the pass only relies on this to merge, so "no" is always safe.
pub fn dominates_structurally<'c, 'a>(first: OperationRef<'c, 'a>, later: OperationRef<'c, 'a>) -> bool {
    let Some(block) = first.block() else { return false };
    let mut current = later;
    loop {
        match current.block() {
            Some(b) if b == block => {
                return current != first && first.is_before_in_block(current);
            }
            _ => match current.parent_operation() {
                Some(parent) => current = parent,
                None => return false,
            },
        }
    }
}

/// Sets (or replaces) the attribute `name` of `op`.
pub fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attribute: Attribute<'c>) {
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(
            op.to_raw(),
            mlir_sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() },
            attribute.to_raw(),
        )
    }
}

/// The signless integer type of `width` bits, in the context of `like`.
pub fn int_type<'c>(like: Type<'c>, width: u32) -> Type<'c> {
    unsafe { Type::from_raw(mlir_sys::mlirIntegerTypeGet(mlir_sys::mlirTypeGetContext(like.to_raw()), width)) }
}
