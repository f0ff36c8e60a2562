//! `ccl-gen`'s command line at its edges: every value past a bound (2^64 - 1
//! included) and every malformed argument (non-UTF-8 included) is one error
//! line naming the flag and the bound, exit status 1, nothing on stdout.
//! (That every program it prints at its extremes parses and verifies is the
//! root package's tests/generator_bounds.rs: it needs ccl-opt.)

use cclir_gen::{protocol::MAX_BLOCKS, MAX_DEPTH, MAX_FUNCTIONS, MAX_OPS};
use std::{
    ffi::OsString,
    os::unix::ffi::OsStringExt,
    process::{Command, Output},
};

fn ccl_gen(args: &[OsString]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ccl-gen")).args(args).output().expect("ccl-gen runs")
}

fn strings(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[test]
fn values_past_a_bound_are_errors_naming_the_flag_and_the_bound() {
    let max = u64::MAX.to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        // The cases: a stack overflow and panics before.
        (vec!["--depth", "10000"], format!("invalid value '10000' for --depth: must be at most {MAX_DEPTH}")),
        (vec!["--ops", &max], format!("invalid value '{max}' for --ops: must be at most {MAX_OPS}")),
        (vec!["--functions", &max], format!("invalid value '{max}' for --functions: must be at most {MAX_FUNCTIONS}")),
        (vec!["--depth", &max], format!("invalid value '{max}' for --depth: must be at most {MAX_DEPTH}")),
        (
            vec!["--all-to-all-v", "18446744073709551615,2"],
            "invalid value '18446744073709551615,2' for --all-to-all-v: P x ROWS must be below 9223372036854775807"
                .to_string(),
        ),
        (
            vec!["--all-to-all-v", "2,18446744073709551615"],
            format!("invalid value '2,18446744073709551615' for --all-to-all-v: B must be at most {MAX_BLOCKS}"),
        ),
        (
            vec!["--all-to-all-v", "4294967300,2147483647"],
            "for --all-to-all-v: P x B must be at most 9223372036854775807".to_string(),
        ),
        (
            vec!["--all-to-all-v", "2,2,1,9223372036854775808"],
            "for --all-to-all-v: CALLS must be at most 9223372036854775807".to_string(),
        ),
        (vec!["--all-to-all-v", "2,0"], "for --all-to-all-v: every value must be at least 1".to_string()),
        (vec!["--all-to-all-v", "2"], "for --all-to-all-v: expected P,B[,ROWS[,CALLS]]".to_string()),
        (vec!["--functions", "0"], "invalid value '0' for --functions: must be at least 1".to_string()),
        (vec!["--ops", "-1"], "invalid value '-1' for --ops: expected a non-negative integer".to_string()),
        (vec!["--seed", "18446744073709551616"], format!("for --seed: must be at most {max}")),
        (vec!["--exchange", "x"], "invalid value 'x' for --exchange: expected a non-negative integer".to_string()),
        (vec!["--litmus", "x"], "invalid value 'x' for --litmus: expected a non-negative integer".to_string()),
        (vec!["--litmus", "18446744073709551616"], format!("for --litmus: must be at most {max}")),
        (vec!["--litmus-coverage", "0"], "invalid value '0' for --litmus-coverage: must be at least 1".to_string()),
        (
            vec!["--litmus-coverage", "1000001"],
            "invalid value '1000001' for --litmus-coverage: must be at most 1000000".to_string(),
        ),
        (vec!["--litmus-coverage", &max], "for --litmus-coverage: must be at most 1000000".to_string()),
        (vec!["--litmus"], "missing value for --litmus".to_string()),
        (vec!["--litmus", "1", "--seed", "2"], "cannot be used with".to_string()),
        (vec!["--litmus", "1", "--exchange", "2"], "cannot be used with".to_string()),
        (vec!["--litmus", "1", "--litmus-coverage", "2"], "cannot be used with".to_string()),
        (vec!["--ops"], "missing value for --ops".to_string()),
        (vec!["--bogus"], "unknown option '--bogus'".to_string()),
        (vec!["--seed", "1", "--seed", "2"], "--seed given more than once".to_string()),
        (vec!["--seed", "1", "--all-to-all-v", "2,2"], "cannot be used with".to_string()),
    ];
    for (args, expected) in cases {
        assert_error(&strings(&args), &expected);
    }
}

#[test]
fn a_non_utf8_argument_is_an_error() {
    let bad = OsString::from_vec(b"\xff".to_vec());
    assert_error(&[OsString::from("--seed"), bad.clone()], "not valid UTF-8");
    assert_error(&[OsString::from("--exchange"), bad.clone()], "not valid UTF-8");
    assert_error(&[OsString::from("--litmus"), bad.clone()], "not valid UTF-8");
    assert_error(&[OsString::from("--litmus-coverage"), bad.clone()], "not valid UTF-8");
    assert_error(&[bad], "unknown option");
}

#[test]
fn litmus_prints_the_library_s_program_and_coverage_its_table() {
    for seed in ["0", "41", "18446744073709551615"] {
        let output = ccl_gen(&strings(&["--litmus", seed]));
        assert_eq!(output.status.code(), Some(0), "ccl-gen --litmus {seed}");
        let program = cclir_gen::litmus::litmus_program(seed.parse().unwrap());
        assert_eq!(String::from_utf8_lossy(&output.stdout), program.text, "ccl-gen --litmus {seed}");
        assert!(output.stderr.is_empty());
    }
    let output = ccl_gen(&strings(&["--litmus-coverage", "40"]));
    assert_eq!(output.status.code(), Some(0));
    let table = String::from_utf8_lossy(&output.stdout);
    let coverage = cclir_gen::litmus::coverage(0..40);
    assert_eq!(
        table,
        format!(
            "ccl-gen --litmus-coverage 40: the features of the litmus programs of seeds 0..40\n{}",
            coverage.table()
        )
    );
    for feature in cclir_gen::litmus::all_features() {
        assert!(table.lines().any(|l| l.starts_with(feature.name())), "{} is not in the table", feature.name());
    }
}

/// One line `ccl-gen: ...` containing `expected`, then the usage; exit 1;
/// nothing on stdout.
fn assert_error(args: &[OsString], expected: &str) {
    let output = ccl_gen(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "ccl-gen {args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "ccl-gen {args:?} printed a program");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("ccl-gen: ") && first.contains(expected), "ccl-gen {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "ccl-gen {args:?}: {stderr}");
}
