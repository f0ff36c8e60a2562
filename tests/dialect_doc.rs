//! docs/dialect/ccl.md is the reference mlir-tblgen generates from
//! dialect/Ccl.td, kept in the repository so it can be read there; this
//! test fails when the two drift apart. Regenerate with
//! `CCLIR_BLESS=1 cargo test --test dialect_doc`.

use std::path::Path;

#[test]
fn dialect_reference_is_the_generated_one() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/dialect/ccl.md");
    let generated = cclir::dialect::context::GENERATED_REFERENCE;
    if std::env::var_os("CCLIR_BLESS").is_some() {
        std::fs::write(&committed, generated).expect("write docs/dialect/ccl.md");
    }
    let text = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(generated.contains("### `ccl.all_to_all_v`"), "the generated reference lists the ops");
    assert!(
        text == generated,
        "docs/dialect/ccl.md differs from what mlir-tblgen generates from Ccl.td; run `CCLIR_BLESS=1 cargo test --test dialect_doc`"
    );
}
