//! Compiles the C++ glue in `cpp/` against what mlir-tblgen made of
//! `Ccl.td` (in `cclir-dialect`'s OUT_DIR, `DEP_CCLIR_DIALECT_INCLUDE`) and
//! MLIR 22's headers:
//!
//! - the dialect, its C API, the Rust pass class and the tool mains into
//!   the static library `cclir_mlir_glue`, which `cclir-dialect`'s FFI
//!   layer links (so this script only names its directory), beside the
//!   shared MLIR libraries mlir-sys links (`libMLIR.so`, `libLLVM.so`, and
//!   the `libMLIR-C.so` that scripts/install-deps.sh links);
//! - the dialect and the plugin's entry point into the mlir-opt dialect
//!   plugin, `libccl_dialect_plugin.so`, against the shared `libMLIR.so`
//!   that upstream `mlir-opt` loads. The plugin stays in OUT_DIR; its path
//!   goes to the packages that depend on this one as
//!   `DEP_CCLIR_MLIR_GLUE_PLUGIN` (the root package puts it next to the
//!   tools).
//!
//! `cclir-dialect`'s build script has checked that MLIR 22 is installed.
use std::{
    env,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

/// The glue linked into the cclir binaries: the dialect, its C API, the one
/// pass class every Rust pass is registered as, and the tool mains.
const GLUE: &[&str] = &["CclDialect.cpp", "CclCAPI.cpp", "RustPass.cpp", "CclTools.cpp"];
/// The plugin's own entry point (it links `CclDialect.cpp` too).
const PLUGIN: &str = "DialectPlugin.cpp";
const PLUGIN_LIBRARY: &str = "libccl_dialect_plugin.so";
const LIBRARY: &str = "cclir_mlir_glue";

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let generated =
        PathBuf::from(env::var("DEP_CCLIR_DIALECT_INCLUDE").expect("cclir-dialect names its generated C++"));
    let prefix = PathBuf::from(env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string()));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-env-changed=DEP_CCLIR_DIALECT_INCLUDE");
    for header in ["CclDialect", "CclOps", "CclAttrs", "CclEnums"] {
        for kind in ["h", "cpp"] {
            println!("cargo:rerun-if-changed={}", generated.join(format!("{header}.{kind}.inc")).display());
        }
    }

    let plugin = compile(&prefix, &root.join("cpp"), &generated, &out);
    // Not `rustc-link-lib`: `cclir-dialect` links the library, so that it
    // comes after that crate on the link line (see src/lib.rs).
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:plugin={}", plugin.display());
}

/// Compiles the glue of `cpp` into the static library [`LIBRARY`] in `out`
/// and links the plugin; returns the plugin's path in `out`.
fn compile(prefix: &Path, cpp: &Path, generated: &Path, out: &Path) -> PathBuf {
    let cxxflags = llvm_config(prefix, "--cxxflags");
    let mut build = cc::Build::new();
    build.cpp(true).include(cpp).include(generated).warnings(false);
    for flag in cxxflags.split_whitespace() {
        build.flag(flag);
    }
    // One batch, compiled in parallel (cc's `parallel` feature, within
    // cargo's job limit).
    let sources: Vec<PathBuf> = GLUE.iter().chain([&PLUGIN]).map(|f| cpp.join(f)).collect();
    let (plugin_object, mut objects): (Vec<PathBuf>, Vec<PathBuf>) =
        build.files(&sources).compile_intermediates().into_iter().partition(|o| is_object_of(o, PLUGIN));

    // The static glue library, for the Rust binaries. `cargo_metadata(false)`:
    // cc would otherwise tell cargo to link it into this crate.
    let mut archive = cc::Build::new();
    archive.cpp(true).cargo_metadata(false);
    for object in &objects {
        archive.object(object);
    }
    archive.compile(LIBRARY);

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
    output(&mut link);
    library
}

/// Whether cc compiled `object` (`<hash>-<stem>.o`) from the source `file`.
fn is_object_of(object: &Path, file: &str) -> bool {
    let stem = file.strip_suffix(".cpp").unwrap_or(file);
    object.file_stem().is_some_and(|name| name.to_string_lossy().ends_with(&format!("-{stem}")))
}

fn llvm_config(prefix: &Path, flag: &str) -> String {
    output(Command::new(prefix.join("bin/llvm-config")).arg(flag))
}

/// What `command` printed, or the build stops with what it said.
fn output(command: &mut Command) -> String {
    let error = match command.stdin(Stdio::null()).output() {
        Ok(output) if output.status.success() => return String::from_utf8_lossy(&output.stdout).trim().to_string(),
        Ok(output) => String::from_utf8_lossy(&output.stderr).into_owned(),
        Err(error) => error.to_string(),
    };
    eprintln!("error: {command:?} failed (run `bash scripts/install-deps.sh`?): {error}");
    std::process::exit(1)
}
