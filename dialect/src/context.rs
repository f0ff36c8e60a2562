//! The contexts cclir makes: every upstream dialect (and extension) and
//! ccl, generated from `Ccl.td` by the build script, compiled by the glue
//! crate (`cclir-dialect-glue`) and linked into every binary that uses this
//! crate.

use crate::ffi::context::ccl_dialect_handle;
use melior::{dialect::DialectRegistry, utility::register_all_dialects, Context};

/// The dialect's definition in the repository (`mlir-tblgen` input).
pub const ODS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/Ccl.td");

/// The dialect reference mlir-tblgen generated from `Ccl.td`
/// (docs/dialect/ccl.md is kept equal to it).
pub const GENERATED_REFERENCE: &str = include_str!(env!("CCLIR_DIALECT_DOC"));

/// A registry with every upstream dialect (and extension) and ccl.
pub fn registry() -> DialectRegistry {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    ccl_dialect_handle().insert_dialect(&registry);
    registry
}

/// A context with every upstream dialect and the ccl dialect registered
/// (loaded lazily, as the parser meets them).
pub fn create_context(threading: bool, allow_unregistered: bool) -> Context {
    let context = Context::new_with_registry(&registry(), threading);
    context.set_allow_unregistered_dialects(allow_unregistered);
    context
}
