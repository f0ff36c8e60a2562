//! The `ccl` dialect: its IRDL declaration (the one file `mlir-opt
//! --irdl-file` also reads) and the context every run parses into.

use melior::{
    dialect::DialectRegistry,
    ir::Module,
    utility::{load_irdl_dialects, register_all_dialects},
    Context,
};

/// The dialect's declaration, shipped inside the binary.
pub const IRDL_SOURCE: &str = include_str!("ccl.irdl.mlir");

/// The path of the IRDL file in the repository (for `mlir-opt --irdl-file`).
pub const IRDL_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/dialect/ccl.irdl.mlir");

/// A context with every upstream dialect registered (loaded lazily, as the
/// parser meets them) and the `ccl` dialect loaded from IRDL.
pub fn create_context(threading: bool, allow_unregistered: bool) -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, threading);
    context.set_allow_unregistered_dialects(allow_unregistered);
    let declaration = Module::parse(&context, IRDL_SOURCE).expect("the shipped IRDL file parses");
    assert!(load_irdl_dialects(&declaration), "the shipped IRDL file loads");
    // The declaration module can go: IRDL copies what it needs into the dialect.
    drop(declaration);
    context
}
