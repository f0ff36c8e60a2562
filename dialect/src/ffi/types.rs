//! Memref types where melior has no wrapper: memory spaces (of unranked
//! memrefs too), shapes, layouts, and strided memref types for views.

use melior::ir::{Attribute, AttributeLike, Type, TypeLike};

/// The memory space of a memref type (ranked or unranked); `None` for
/// another type or the default space.
pub fn memory_space(ty: Type<'_>) -> Option<Attribute<'_>> {
    // melior wraps only ranked memrefs; the memory-space getters are C API.
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type, asked for a memory space only when it is
    // a memref of that kind; the attribute (or null) lives in its context.
    unsafe {
        let space = if mlir_sys::mlirTypeIsAMemRef(raw) {
            mlir_sys::mlirMemRefTypeGetMemorySpace(raw)
        } else if mlir_sys::mlirTypeIsAUnrankedMemRef(raw) {
            mlir_sys::mlirUnrankedMemrefGetMemorySpace(raw)
        } else {
            return None;
        };
        Attribute::from_option_raw(space)
    }
}

/// The shape, element type and memory space of a ranked memref type.
pub fn memref_parts(ty: Type<'_>) -> Option<(Vec<i64>, Type<'_>, Option<Attribute<'_>>)> {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type, read as a ranked memref only when it is
    // one; its element type and memory space live in its context.
    unsafe {
        if !mlir_sys::mlirTypeIsAMemRef(raw) {
            return None;
        }
        let shape = (0..mlir_sys::mlirShapedTypeGetRank(raw))
            .map(|i| mlir_sys::mlirShapedTypeGetDimSize(raw, i as isize))
            .collect();
        let element = Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw));
        let space = Attribute::from_option_raw(mlir_sys::mlirMemRefTypeGetMemorySpace(raw));
        Some((shape, element, space))
    }
}

/// The shape of a vector type (`None` for any other type).
pub fn vector_shape(ty: Type<'_>) -> Option<Vec<i64>> {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type, read as a shaped vector only when it is
    // one.
    unsafe {
        if !mlir_sys::mlirTypeIsAVector(raw) {
            return None;
        }
        Some(
            (0..mlir_sys::mlirShapedTypeGetRank(raw))
                .map(|i| mlir_sys::mlirShapedTypeGetDimSize(raw, i as isize))
                .collect(),
        )
    }
}

/// Whether a memref type has the identity layout (rows laid out one after
/// the other, so its elements can be viewed as one flat run).
pub fn has_identity_layout(ty: Type<'_>) -> bool {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type, asked for its layout only when it is a
    // ranked memref.
    unsafe {
        mlir_sys::mlirTypeIsAMemRef(raw) && mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(raw))
    }
}

/// MLIR's marker for a dynamic offset or stride in shaped types and the
/// static arrays of view ops.
pub fn dynamic_extent() -> i64 {
    // SAFETY: reads a constant; no arguments.
    unsafe { mlir_sys::mlirShapedTypeGetDynamicStrideOrOffset() }
}

/// Whether a dimension size is dynamic.
pub fn is_dynamic_size(size: i64) -> bool {
    // SAFETY: reads a constant; no arguments.
    size == unsafe { mlir_sys::mlirShapedTypeGetDynamicSize() }
}

/// `memref<shape x element, strided<strides, offset: ?>, space>`.
pub fn strided_memref<'c>(element: Type<'c>, shape: &[i64], strides: &[i64], space: Option<Attribute<'c>>) -> Type<'c> {
    // SAFETY: `element` and `space` are live objects of one context; the
    // arrays are borrowed for the calls, which copy them.
    unsafe {
        let context = mlir_sys::mlirTypeGetContext(element.to_raw());
        let layout =
            mlir_sys::mlirStridedLayoutAttrGet(context, dynamic_extent(), strides.len() as isize, strides.as_ptr());
        let space = space.map(|s| s.to_raw()).unwrap_or(mlir_sys::MlirAttribute { ptr: std::ptr::null() });
        Type::from_raw(mlir_sys::mlirMemRefTypeGet(
            element.to_raw(),
            shape.len() as isize,
            shape.as_ptr(),
            layout,
            space,
        ))
    }
}
