//! The context an IR object lives in, as the `&Context` melior's builders
//! take, and the ccl dialect's registration handle.

use melior::{
    dialect::DialectHandle,
    ir::{Location, OperationRef, Type, TypeLike},
    Context,
};

/// The ccl dialect's handle, for registries and contexts.
pub fn ccl_dialect_handle() -> DialectHandle {
    // SAFETY: the handle function of the dialect's C API (CclCAPI.cpp),
    // linked from this crate's glue library; it has no preconditions.
    unsafe { DialectHandle::from_raw(super::sys::mlirGetDialectHandle__ccl__()) }
}

/// The context `op` lives in.
pub fn of_operation<'c>(op: OperationRef<'c, '_>) -> &'c Context {
    // SAFETY: `op` is a live op (melior's contract for an `OperationRef`).
    context_at(unsafe { mlir_sys::mlirOperationGetContext(op.to_raw()) })
}

/// The context `ty` lives in.
pub fn of_type<'c>(ty: Type<'c>) -> &'c Context {
    // SAFETY: `ty` is a live type of a context alive for `'c`.
    context_at(unsafe { mlir_sys::mlirTypeGetContext(ty.to_raw()) })
}

/// The context `location` lives in.
pub fn of_location<'c>(location: Location<'c>) -> &'c Context {
    // SAFETY: `location` is a live location of a context alive for `'c`.
    context_at(unsafe { mlir_sys::mlirLocationGetContext(location.to_raw()) })
}

/// A `&Context` for a raw context. melior hands out contexts only by value
/// (`ContextRef`) or behind the owner's borrow, so each raw context gets one
/// `ContextRef` that is never dropped (dropping it would do nothing, but a
/// `Context` made from it would destroy the MLIR context), made on first
/// sight and kept for the process: a pointer's worth per context ever used.
/// A reused address names the new context, which is all the value holds.
fn context_at<'c>(raw: mlir_sys::MlirContext) -> &'c Context {
    use std::{collections::HashMap, sync::Mutex};
    // Keyed and held by address: the values are only read back here.
    static CONTEXTS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);
    let mut known = CONTEXTS.lock().unwrap_or_else(|poison| poison.into_inner());
    let address = *known.get_or_insert_with(HashMap::new).entry(raw.ptr as usize).or_insert_with(|| {
        // SAFETY: `raw` is a live context (each caller got it from a live
        // object of it); a `ContextRef` never destroys its context.
        let kept: &'static melior::ContextRef<'static> =
            Box::leak(Box::new(unsafe { melior::ContextRef::from_raw(raw) }));
        kept as *const melior::ContextRef<'static> as usize
    });
    // SAFETY: `address` is a leaked `ContextRef` that lives for the process;
    // it names the context the caller's object lives in, alive for `'c`.
    unsafe { (*(address as *const melior::ContextRef<'c>)).to_ref() }
}

/// Loads dialect `name` into `context` if it is registered there; whether
/// the context has it.
pub fn load_dialect(context: &Context, name: &str) -> bool {
    // melior's `get_or_load_dialect` wraps a null dialect without a way to
    // tell.
    // SAFETY: the context is live; the name is borrowed for the call.
    !unsafe { mlir_sys::mlirContextGetOrLoadDialect(context.to_raw(), super::strings::string_ref(name)) }.ptr.is_null()
}
