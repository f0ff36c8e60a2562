//! The C++ half: what mlir-tblgen generates from `Ccl.td`, the glue in
//! `cpp/` compiled into one static library, and the mlir-opt plugin.
use super::{fail, run, INSTALL_HINT};
use std::{
    path::{Path, PathBuf},
    process::Command,
};

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

/// The glue linked into the cclir binaries: the dialect, its C API, the one
/// pass class every Rust pass is registered as, and the tool mains.
const GLUE: &[&str] = &["CclDialect.cpp", "CclCAPI.cpp", "RustPass.cpp", "CclTools.cpp"];
/// The plugin's own entry point (it links `CclDialect.cpp` too).
const PLUGIN: &str = "DialectPlugin.cpp";
const PLUGIN_LIBRARY: &str = "libccl_dialect_plugin.so";

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

/// Compiles the glue of `cpp` into the static library `cclir_mlir_glue`
/// (which cargo links into every dependent) and links the plugin; returns
/// the plugin's path in `out`.
pub fn compile(prefix: &Path, cpp: &Path, out: &Path) -> PathBuf {
    let cxxflags = llvm_config(prefix, "--cxxflags");
    let mut build = cc::Build::new();
    build.cpp(true).include(cpp).include(out).warnings(false);
    for flag in cxxflags.split_whitespace() {
        build.flag(flag);
    }
    // One batch, compiled in parallel (cc's `parallel` feature, within
    // cargo's job limit): this compile is on the critical path of a cold
    // build, since every crate above this one waits for this build script.
    let sources: Vec<PathBuf> = GLUE.iter().chain([&PLUGIN]).map(|f| cpp.join(f)).collect();
    let (plugin_object, mut objects): (Vec<PathBuf>, Vec<PathBuf>) =
        build.files(&sources).compile_intermediates().into_iter().partition(|o| is_object_of(o, PLUGIN));

    // The static glue library, for the Rust binaries.
    let mut archive = cc::Build::new();
    archive.cpp(true);
    for object in &objects {
        archive.object(object);
    }
    archive.compile("cclir_mlir_glue");

    // The plugin: the dialect and its entry point against the shared MLIR.
    objects.retain(|o| is_object_of(o, "CclDialect.cpp"));
    objects.extend(plugin_object);
    let library = out.join(PLUGIN_LIBRARY);
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
    library
}

/// Whether cc compiled `object` (`<hash>-<stem>.o`) from the source `file`.
fn is_object_of(object: &Path, file: &str) -> bool {
    let stem = file.strip_suffix(".cpp").unwrap_or(file);
    object.file_stem().is_some_and(|name| name.to_string_lossy().ends_with(&format!("-{stem}")))
}

fn llvm_config(prefix: &Path, flag: &str) -> String {
    let output = Command::new(prefix.join("bin/llvm-config")).arg(flag).output();
    match output {
        Ok(output) if output.status.success() => String::from_utf8_lossy(&output.stdout).trim().to_string(),
        _ => fail(&format!("`llvm-config {flag}` failed; {INSTALL_HINT}")),
    }
}
