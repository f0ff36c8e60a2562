//! `ccl-gen` at the edges of what it accepts: every program it prints, for
//! seeds and flag values at their extremes, parses and verifies under
//! ccl-opt; and generation keeps no stack per nesting level. (Its errors on
//! bad arguments are gen/tests/cli.rs.)

use cclir::generator::{self, Config, MAX_DEPTH, MAX_FUNCTIONS};
use std::{
    ffi::OsString,
    process::{Command, Output, Stdio},
};

/// ccl-gen, the cclir-gen package's binary, beside this package's tools.
/// Cargo names only this package's binaries to its tests; `cargo test` at
/// the top builds ccl-gen before any test runs because the cclir-gen
/// package's own tests (gen/tests/cli.rs) name it.
fn ccl_gen(args: &[OsString]) -> Output {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_ccl-opt")).with_file_name("ccl-gen");
    assert!(binary.exists(), "{} is missing: build the workspace (cargo build)", binary.display());
    Command::new(binary).args(args).output().expect("ccl-gen runs")
}

fn strings(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// ccl-opt parses, verifies and prints `program` (exit 0, no diagnostics).
fn assert_accepted(program: &[u8], what: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ccl-opt"))
        .args(["-", "--mlir-disable-threading", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ccl-opt runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let program = program.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &program));
    let output = child.wait_with_output().expect("ccl-opt ends");
    writer.join().expect("writer").expect("ccl-opt reads its input");
    assert!(
        output.status.success(),
        "ccl-gen {what}: ccl-opt rejects the program:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn generated(args: &[&str]) -> Vec<u8> {
    let output = ccl_gen(&strings(args));
    assert!(output.status.success(), "ccl-gen {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "ccl-gen {args:?} wrote to stderr");
    output.stdout
}

#[test]
fn programs_at_flag_extremes_are_accepted_by_ccl_opt() {
    let max_depth = MAX_DEPTH.to_string();
    let max_functions = MAX_FUNCTIONS.to_string();
    let max_seed = u64::MAX.to_string();
    let mut cases: Vec<Vec<&str>> = Vec::new();
    // Seeds at both ends, with the smallest and ordinary sizes and depths.
    for seed in ["0", "1", max_seed.as_str()] {
        for shape in [
            &["--ops", "0"][..],
            &["--ops", "1", "--functions", "1"],
            &["--ops", "300", "--depth", "0"],
            &["--ops", "300", "--depth", "7", "--functions", "1"],
            &["--ops", "2000", "--depth", "12", "--functions", "30"],
        ] {
            let mut args = vec!["--seed", seed];
            args.extend_from_slice(shape);
            cases.push(args);
        }
        cases.push(vec!["--exchange", seed]);
        cases.push(vec!["--litmus", seed]);
    }
    // The deepest nest and the most functions it prints.
    cases.push(vec!["--seed", "3", "--ops", "0", "--depth", &max_depth, "--functions", "1"]);
    cases.push(vec!["--seed", "4", "--ops", "0", "--depth", "2", "--functions", &max_functions]);
    // The protocol program at the bounds of its shapes: the smallest; the
    // widest B with the most calls; the most rows (P x ROWS just below
    // 2^63 - 1); P x B exactly 2^63 - 1 (21870289 x 421730688463).
    cases.push(vec!["--all-to-all-v", "1,1,1,1"]);
    cases.push(vec!["--all-to-all-v", "2147483647,2147483647,1,9223372036854775807"]);
    cases.push(vec!["--all-to-all-v", "1,1,9223372036854775806"]);
    cases.push(vec!["--all-to-all-v", "421730688463,21870289"]);
    for args in &cases {
        assert_accepted(&generated(args), &format!("{args:?}"));
    }
}

#[test]
fn generation_keeps_no_stack_per_nesting_level() {
    // The deepest nest on a thread with a 128 KiB stack: a recursive
    // generator needed over a kilobyte per level (a debug build overflowed
    // 8 MiB at 6,000 levels). (The text itself grows with the square of the
    // depth, by its indentation.)
    let depth = MAX_DEPTH as usize;
    let text = std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(move || generator::generate(&Config { seed: 5, ops: 0, depth, functions: Some(1) }))
        .expect("thread")
        .join()
        .expect("generation ends");
    let deepest = text.lines().map(|line| line.len() - line.trim_start().len()).max().unwrap_or(0);
    assert!(deepest / 2 >= depth, "deepest indentation {deepest}");
}
