//! Puts the mlir-opt dialect plugin next to the tools. The glue crate's
//! build script links `libccl_dialect_plugin.so` into its own OUT_DIR and
//! passes its path on (`DEP_CCLIR_MLIR_GLUE_PLUGIN`); this package ships the
//! tools, so it places the plugin in the profile's target directory beside
//! `ccl-opt`, where `mlir-opt --load-dialect-plugin=target/<profile>/
//! libccl_dialect_plugin.so`, the lit suite and the docs load it from.
use std::{
    env, fs,
    path::{Path, PathBuf},
};

fn main() {
    let plugin = PathBuf::from(env::var("DEP_CCLIR_MLIR_GLUE_PLUGIN").expect("the glue crate names its plugin"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_CCLIR_MLIR_GLUE_PLUGIN");
    println!("cargo:rerun-if-changed={}", plugin.display());
    let name = plugin.file_name().expect("the plugin is a file");
    let beside_tools = profile_dir(&out).join(name);
    // Copied, then renamed over the old one: a tool or mlir-opt that has the
    // old plugin loaded keeps a valid mapping.
    let staged = out.join(name);
    if let Err(error) = fs::copy(&plugin, &staged).and_then(|_| fs::rename(&staged, &beside_tools)) {
        eprintln!("error: cannot place {} at {}: {error}", plugin.display(), beside_tools.display());
        std::process::exit(1);
    }
    println!("cargo:rustc-env=CCLIR_DIALECT_PLUGIN={}", beside_tools.display());
}

/// `target/<profile>` (where cargo puts the binaries) from OUT_DIR
/// (`target/<profile>/build/<crate>-<hash>/out`).
fn profile_dir(out: &Path) -> PathBuf {
    out.ancestors().nth(3).expect("OUT_DIR is inside the target directory").to_path_buf()
}
