//! The `ccl` dialect: defined in ODS (`Ccl.td`), compiled to C++ by
//! build.rs and linked into every cclir binary. This module puts it into the
//! contexts the library makes.

use melior::Context;

/// The dialect's definition in the repository (`mlir-tblgen` input).
pub const ODS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/dialect/Ccl.td");

/// The mlir-opt dialect plugin built next to the binaries:
/// `mlir-opt --load-dialect-plugin=<this>` reads, verifies and prints ccl.
pub const PLUGIN_PATH: &str = env!("CCLIR_DIALECT_PLUGIN");

/// The dialect reference mlir-tblgen generated from `Ccl.td`
/// (docs/dialect/ccl.md is kept equal to it).
pub const GENERATED_REFERENCE: &str = include_str!(env!("CCLIR_DIALECT_DOC"));

/// A context with every upstream dialect and the ccl dialect registered
/// (loaded lazily, as the parser meets them).
pub fn create_context(threading: bool, allow_unregistered: bool) -> Context {
    let context = Context::new_with_registry(&crate::mlir::ir::registry(), threading);
    context.set_allow_unregistered_dialects(allow_unregistered);
    context
}
