//! Finds Debian's MLIR 22 before anything links against it, and records the
//! upstream pass catalogue (`mlir-opt --list-passes`) for `--list-passes`,
//! `--help` and "did you mean" suggestions: MLIR's C API can look a pass up by
//! name but cannot enumerate the registry.
use std::{env, fs, path::Path, process::Command};

const INSTALL_HINT: &str = "run `bash scripts/install-deps.sh` (Debian packages libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools)";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string());
    let prefix = Path::new(&prefix);

    let required = [
        ("lib/libMLIRCAPIIR.a", "libmlir-22-dev"),
        ("include/mlir-c/IR.h", "libmlir-22-dev"),
        ("bin/llvm-config", "llvm-22-dev"),
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

    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let listing = Command::new(prefix.join("bin/mlir-opt"))
        .arg("--list-passes")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default();
    fs::write(Path::new(&out_dir).join("upstream-passes.txt"), listing).expect("write OUT_DIR file");
}
