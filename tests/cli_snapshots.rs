//! Snapshots of what ccl-opt prints to a person: the ccl part of --help and
//! --list-passes (the rest is MLIR's, and changes with MLIR), and the
//! diagnostics of each bad-input path. A change to any of them shows up as
//! a snapshot diff to review: `INSTA_UPDATE=always cargo test --test
//! cli_snapshots` rewrites the snapshots (`cargo insta review`, with
//! cargo-insta installed, shows them one by one); a new pass is a new entry.

use std::process::Command;

fn ccl_opt(args: &[&str], stdin: Option<&str>) -> (String, String, i32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ccl-opt"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = if let Some(text) = stdin {
        use std::io::Write;
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    } else {
        command.output().unwrap()
    };
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

/// The entries of the ccl passes and pipelines in a listing (each with
/// its option lines), with runs of blanks squeezed: the column widths are
/// set by the longest upstream name.
fn ccl_entries(listing: &str) -> String {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut out = String::new();
    let mut entry_indent = None;
    for line in listing.lines() {
        match entry_indent {
            Some(depth) if indent(line) > depth && !line.trim().is_empty() => {}
            _ => entry_indent = line.trim_start().starts_with("--ccl-").then(|| indent(line)),
        }
        if let Some(depth) = entry_indent {
            let squeezed: Vec<&str> = line.split_whitespace().collect();
            out.push_str(&format!("{}{}\n", " ".repeat(indent(line) - depth), squeezed.join(" ")));
        }
    }
    out
}

#[test]
fn help() {
    let (stdout, _, code) = ccl_opt(&["--help"], None);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("OVERVIEW: ccl-opt: MLIR's optimizer driver with the ccl dialect and passes\n"));
    assert!(stdout.lines().nth(1).is_some_and(|dialects| dialects.contains(" ccl,")), "ccl is a dialect");
    insta::assert_snapshot!(ccl_entries(&stdout));
}

#[test]
fn list_passes() {
    let (stdout, _, code) = ccl_opt(&["--list-passes"], None);
    assert_eq!(code, 0);
    insta::assert_snapshot!(ccl_entries(&stdout));
}

/// Every bad-input path: message on stderr, nothing on stdout, exit 1.
#[test]
fn bad_inputs() {
    let cases: &[(&str, &[&str], Option<&str>)] = &[
        ("malformed IR", &["-"], Some("func.func @f() {\n  %0 = arith.addi %x, %x : i32\n}\n")),
        ("verifier error", &["-"], Some("func.func @f() {\n  %r = ccl.rank : i1\n  return\n}\n")),
        ("too deep", &["-"], Some(&"{".repeat(300_000))),
        ("missing anchor", &["-", "--pass-pipeline=cse"], Some("")),
        ("unknown pass", &["-", "-p", "builtin.module(ccl-insert-comm-fense)"], Some("")),
        ("bad rust option", &["-", "-p", "builtin.module(ccl-admit-launch-width{max-blocks=-3})"], Some("")),
        ("bad rust option word", &["-", "-p", "builtin.module(ccl-admit-launch-width{lower-dynamic=maybe})"], Some("")),
        ("unknown rust option", &["-", "-p", "builtin.module(ccl-insert-comm-fence{depth=2})"], Some("")),
        ("bad upstream option", &["-", "-p", "builtin.module(canonicalize{max-iterations=x})"], Some("")),
        ("mixed pipeline and flags", &["-", "--cse", "-p", "builtin.module(cse)"], Some("")),
        ("unknown flag", &["--split-input-fil"], None),
        ("missing file", &["lit-tests/no-such-file.mlir"], None),
        ("missing output directory", &["-", "-o", "/nonexistent-dir/out.mlir"], Some("module {}")),
    ];
    let mut report = String::new();
    for (name, args, stdin) in cases {
        let (stdout, stderr, code) = ccl_opt(args, *stdin);
        assert_eq!(code, 1, "{name}: exit code");
        assert!(stdout.is_empty(), "{name}: printed output {stdout}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        // llvm::cl names the binary by the path it was started with.
        let stderr = stderr.replace(env!("CARGO_BIN_EXE_ccl-opt"), "ccl-opt");
        report.push_str(&format!("== {name}: ccl-opt {}\n{stderr}\n", args.join(" ")));
    }
    insta::assert_snapshot!(report);
}
