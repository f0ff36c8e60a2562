//! Runs the whole lit suite (lit-tests/) with LLVM's own lit and FileCheck,
//! so `cargo test` covers the golden tests too.

use std::{path::Path, process::Command};

#[test]
fn lit_suite_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_ccl-opt")).parent().expect("binary directory");
    // lit marks a test UNSUPPORTED when its tool is absent; here every tool
    // must be present, so that no golden test is skipped unnoticed.
    for tool in ["ccl-opt", "ccl-gen", "ccl-lsp-server", "ccl-reduce", "ccl-sim", "libccl_dialect_plugin.so"] {
        assert!(
            bin_dir.join(tool).exists(),
            "{} is missing: build the workspace (cargo build)",
            bin_dir.join(tool).display()
        );
    }
    let lit = std::env::var("LIT").unwrap_or_else(|_| "/usr/lib/llvm-22/bin/lit".to_string());
    let output = Command::new(&lit)
        .arg("-sv")
        .arg(root.join("lit-tests"))
        .env("CCLIR_BIN_DIR", bin_dir)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {lit}: {error} (run scripts/install-deps.sh)"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(output.status.success(), "lit reported failures:\n{stdout}\n{stderr}");
    // lit aligns its summary ("Passed: 3", or "Passed     : 3" next to other rows).
    let ran_some = format!("{stdout}{stderr}").lines().any(|line| {
        line.trim_start().strip_prefix("Passed").map(|rest| rest.trim_start().starts_with(':')).unwrap_or(false)
    });
    assert!(ran_some, "lit ran no test:\n{stdout}\n{stderr}");
}
