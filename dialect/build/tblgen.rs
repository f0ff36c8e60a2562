//! What mlir-tblgen generates from `Ccl.td`: the C++ declarations and
//! definitions that the glue crate (`cclir-dialect-glue`) compiles, and the
//! dialect reference.
use super::run;
use std::{path::Path, process::Command};

/// What mlir-tblgen generates, and where it goes in OUT_DIR.
const GENERATED: &[(&str, &str)] = &[
    ("-gen-dialect-decls", "CclDialect.h.inc"),
    ("-gen-dialect-defs", "CclDialect.cpp.inc"),
    ("-gen-op-decls", "CclOps.h.inc"),
    ("-gen-op-defs", "CclOps.cpp.inc"),
    ("-gen-attrdef-decls", "CclAttrs.h.inc"),
    ("-gen-attrdef-defs", "CclAttrs.cpp.inc"),
    ("-gen-enum-decls", "CclEnums.h.inc"),
    ("-gen-enum-defs", "CclEnums.cpp.inc"),
    ("-gen-dialect-doc", "CclDialect.md"),
];

/// Runs mlir-tblgen on `td` for every file of [`GENERATED`].
pub fn generate(prefix: &Path, td: &Path, out: &Path) {
    let include = prefix.join("include");
    for (generator, file) in GENERATED {
        run(Command::new(prefix.join("bin/mlir-tblgen"))
            .arg(generator)
            .arg("-dialect=ccl")
            .arg("-attrdefs-dialect=ccl")
            .arg(format!("-I{}", include.display()))
            .arg(td)
            .arg("-o")
            .arg(out.join(file)));
    }
}
