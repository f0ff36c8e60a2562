//! Builds the ccl dialect from its one definition, `Ccl.td`, against
//! Debian's MLIR 22:
//!
//! 1. checks that MLIR 22 is installed, and stops with one line naming the
//!    missing package otherwise;
//! 2. `mlir-tblgen` makes the C++ dialect, ops, attributes and enums, and
//!    the dialect reference (`CclDialect.md`, which `docs/dialect/ccl.md`
//!    must equal: `tests/dialect_doc.rs`), in OUT_DIR;
//! 3. `llvm-tblgen --dump-json` gives the same records to [`views`], which
//!    writes the Rust typed op views (`ccl_ops.rs`);
//! 4. the generated C++ stays in OUT_DIR, named to the packages that depend
//!    on this one as `DEP_CCLIR_DIALECT_INCLUDE`: the glue crate
//!    (`cclir-dialect-glue`) compiles it with the hand-written C++ into the
//!    static library `cclir_mlir_glue` that `ffi::sys` links, and links the
//!    mlir-opt plugin. That compile is the long part of a cold build, and
//!    none of the Rust crates waits for it: they need only what this build
//!    script makes.
mod tblgen;
mod views;

use std::{
    env,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

const INSTALL_HINT: &str =
    "run `bash scripts/install-deps.sh` (Debian packages libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools)";

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let prefix = PathBuf::from(env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string()));
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-changed=Ccl.td");

    check_installation(&prefix);
    let td = root.join("Ccl.td");
    tblgen::generate(&prefix, &td, &out);
    println!("cargo:rustc-env=CCLIR_DIALECT_DOC={}", out.join("CclDialect.md").display());
    views::generate(&prefix, &td, &out.join("ccl_ops.rs"));
    println!("cargo:include={}", out.display());
}

/// Stops the build with one line naming what provides a missing file.
fn check_installation(prefix: &Path) {
    let required = [
        ("lib/libMLIRCAPIIR.a", "package libmlir-22-dev"),
        ("lib/libMLIR.so", "package libmlir-22-dev"),
        ("lib/libMLIR-C.so", "linked by scripts/install-deps.sh"),
        ("include/mlir-c/IR.h", "package libmlir-22-dev"),
        ("include/mlir/IR/OpBase.td", "package libmlir-22-dev"),
        ("bin/mlir-tblgen", "package mlir-22-tools"),
        ("bin/llvm-config", "package llvm-22-dev"),
        ("bin/llvm-tblgen", "package llvm-22-dev"),
        ("bin/mlir-opt", "package mlir-22-tools"),
        ("bin/FileCheck", "package llvm-22-tools"),
    ];
    for (file, source) in required {
        if !prefix.join(file).exists() {
            fail(&format!("MLIR 22 not found: {} is missing ({source}); {INSTALL_HINT}", prefix.join(file).display()));
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}

fn run(command: &mut Command) {
    let status = command.stdin(Stdio::null()).status();
    if !matches!(status, Ok(status) if status.success()) {
        fail(&format!("{command:?} failed"));
    }
}
