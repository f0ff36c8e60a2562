//! Builds the C++ half of cclir against Debian's MLIR 22:
//!
//! 1. checks that MLIR 22 is installed, and stops with one line naming the
//!    missing package otherwise;
//! 2. runs `mlir-tblgen` on `src/dialect/Ccl.td` (the one definition of the
//!    dialect) into OUT_DIR: dialect, ops, attributes, enums, and the
//!    dialect reference (`CclDialect.md`, which `docs/dialect/ccl.md` must
//!    equal: `tests/dialect_doc.rs`);
//! 3. compiles the glue in `src/mlir/cpp/` with the `cc` crate into one
//!    static library, linked into every cclir binary beside the static MLIR
//!    libraries mlir-sys links;
//! 4. links the mlir-opt dialect plugin, `libccl_dialect_plugin.so`, into the
//!    profile's target directory (next to `ccl-opt`), against the shared
//!    `libMLIR.so` that upstream `mlir-opt` loads.
//!
//! The passes crate reads the same `Ccl.td` for its typed op views
//! (`passes/build.rs`).
use std::{
    env,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

const INSTALL_HINT: &str =
    "run `bash scripts/install-deps.sh` (Debian packages libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools)";

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

/// The glue linked into the cclir binaries.
const GLUE: &[&str] = &["CclDialect.cpp", "CclCAPI.cpp", "RustPass.cpp", "CclTools.cpp"];
/// The plugin's own entry point (it links `CclDialect.cpp` too).
const PLUGIN: &str = "DialectPlugin.cpp";
const PLUGIN_LIBRARY: &str = "libccl_dialect_plugin.so";

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let prefix = PathBuf::from(env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string()));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-changed=src/dialect/Ccl.td");
    println!("cargo:rerun-if-changed=src/mlir/cpp");

    check_installation(&prefix);
    let td = root.join("src/dialect/Ccl.td");
    let include = prefix.join("include");
    for (generator, file) in GENERATED {
        run(Command::new(prefix.join("bin/mlir-tblgen"))
            .arg(generator)
            .arg("-dialect=ccl")
            .arg("-attrdefs-dialect=ccl")
            .arg(format!("-I{}", include.display()))
            .arg(&td)
            .arg("-o")
            .arg(out.join(file)));
    }
    println!("cargo:rustc-env=CCLIR_DIALECT_DOC={}", out.join("CclDialect.md").display());

    let cpp = root.join("src/mlir/cpp");
    let cxxflags = llvm_config(&prefix, "--cxxflags");
    let mut build = cc::Build::new();
    build.cpp(true).include(&cpp).include(&out).warnings(false);
    for flag in cxxflags.split_whitespace() {
        build.flag(flag);
    }
    let mut objects = build.clone().files(GLUE.iter().map(|f| cpp.join(f))).compile_intermediates();
    let plugin_object = build.clone().file(cpp.join(PLUGIN)).compile_intermediates();

    // The static glue library, for the Rust binaries.
    let mut archive = cc::Build::new();
    archive.cpp(true);
    for object in &objects {
        archive.object(object);
    }
    archive.compile("cclir_mlir_glue");

    // The plugin: the dialect and its entry point against the shared MLIR.
    objects.retain(|o| o.file_name().is_some_and(|n| n.to_string_lossy().contains("CclDialect")));
    objects.extend(plugin_object);
    let library = profile_dir(&out).join(PLUGIN_LIBRARY);
    let lib_dir = prefix.join("lib");
    let mut link = build.get_compiler().to_command();
    link.arg("-shared")
        .arg("-o")
        .arg(&library)
        .args(&objects)
        .arg(format!("-L{}", lib_dir.display()))
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-lMLIR")
        .arg("-lLLVM");
    run(&mut link);
    println!("cargo:rustc-env=CCLIR_DIALECT_PLUGIN={}", library.display());
}

/// Stops the build with one line naming the package that provides a
/// missing file.
fn check_installation(prefix: &Path) {
    let required = [
        ("lib/libMLIRCAPIIR.a", "libmlir-22-dev"),
        ("lib/libMLIR.so", "libmlir-22-dev"),
        ("include/mlir-c/IR.h", "libmlir-22-dev"),
        ("include/mlir/IR/OpBase.td", "libmlir-22-dev"),
        ("bin/mlir-tblgen", "mlir-22-tools"),
        ("bin/llvm-config", "llvm-22-dev"),
        ("bin/llvm-tblgen", "llvm-22-dev"),
        ("bin/mlir-opt", "mlir-22-tools"),
        ("bin/FileCheck", "llvm-22-tools"),
    ];
    for (file, package) in required {
        if !prefix.join(file).exists() {
            eprintln!(
                "error: MLIR 22 not found: {} is missing (package {package}); {INSTALL_HINT}",
                prefix.join(file).display()
            );
            std::process::exit(1);
        }
    }
}

fn llvm_config(prefix: &Path, flag: &str) -> String {
    let output = Command::new(prefix.join("bin/llvm-config")).arg(flag).output();
    match output {
        Ok(output) if output.status.success() => String::from_utf8_lossy(&output.stdout).trim().to_string(),
        _ => {
            eprintln!("error: `llvm-config {flag}` failed; {INSTALL_HINT}");
            std::process::exit(1);
        }
    }
}

/// `target/<profile>` (where cargo puts the binaries) from OUT_DIR
/// (`target/<profile>/build/<crate>-<hash>/out`).
fn profile_dir(out: &Path) -> PathBuf {
    out.ancestors().nth(3).expect("OUT_DIR is inside the target directory").to_path_buf()
}

fn run(command: &mut Command) {
    let status = command.stdin(Stdio::null()).status();
    match status {
        Ok(status) if status.success() => {}
        _ => {
            eprintln!("error: {command:?} failed");
            std::process::exit(1);
        }
    }
}
