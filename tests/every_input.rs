//! Every input of the lit suite, through every ccl pass and pipeline: a run
//! ends with exit code 0 or 1 and never says "internal error" (a caught
//! panic) or dies by a signal, whatever the input is meant to test.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

const PIPELINES: &[&str] = &[
    "builtin.module(ccl-admit-launch-width)",
    "builtin.module(ccl-insert-comm-fence)",
    "builtin.module(ccl-verify-comm-order)",
    "builtin.module(ccl-lower-all-to-all-v)",
    "builtin.module(ccl-pipeline)",
    "builtin.module(ccl-pipeline{lower-collectives=true})",
];

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("lit-tests is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            mlir_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

#[test]
fn no_lit_input_crashes_a_pass() {
    let mut files = Vec::new();
    mlir_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("lit-tests"), &mut files);
    files.sort();
    assert!(files.len() > 40, "found only {} inputs", files.len());
    // Every (input, pipeline) run is its own process: shared out to as
    // many threads as there are cores.
    let jobs: Vec<(&PathBuf, &str)> = files.iter().flat_map(|f| PIPELINES.iter().map(move |p| (f, *p))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let Some(&(file, pipeline)) = jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) else {
                    return;
                };
                let output = Command::new(env!("CARGO_BIN_EXE_ccl-opt"))
                    .arg(file)
                    .args(["--split-input-file", "-o", "/dev/null", "--pass-pipeline", pipeline])
                    .output()
                    .expect("ccl-opt runs");
                let stderr = String::from_utf8_lossy(&output.stderr);
                let what = format!("{} with {pipeline}", file.display());
                assert!(matches!(output.status.code(), Some(0 | 1)), "{what}: {:?}\n{stderr}", output.status);
                assert!(!stderr.contains("internal error"), "{what}:\n{stderr}");
            });
        }
    });
    let runs = jobs.len();
    println!("{runs} runs over {} inputs", files.len());
}
