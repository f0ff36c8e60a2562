//! Running the tools from the tests that check their output files.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root: the tools run there, so paths in their reports
/// are the repository's.
pub fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the tool `exe` with `args` in the repository; returns its exit
/// code and standard error.
pub fn run(exe: &str, args: &[&str]) -> (i32, String) {
    let output = Command::new(exe).args(args).current_dir(repository()).output().expect("the tool runs");
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A path named `name` in this test process's scratch folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclir-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
