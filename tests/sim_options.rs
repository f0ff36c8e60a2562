//! ccl-sim's settings come from one definition
//! (`cclir_sim::options::SETTINGS`): `ccl-sim --help` shows each with its
//! help and default, the library's `Options::default()` is what no setting
//! gives, the Python stub declares `cclir.simulate`'s keywords with the same
//! defaults (python/tests/test_simulate.py holds the binding itself to the
//! stub), and docs/ccl-sim.md shows the usage the tool prints.
//!
//! `CCLIR_BLESS=1 cargo test --test sim_options` rewrites the stub's list
//! and the docs' usage after a setting changed.

use cclir::sim::options::{self, DefaultValue, Setting, Syntax};
use cclir::sim::Options;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("CCLIR_BLESS").is_some()
}

/// Replaces the lines between the lines `begin` and `end` of `path` with
/// `lines` when blessing; else checks that they are `lines`.
fn check_block(path: &Path, begin: &str, end: &str, lines: &[String]) {
    let text = std::fs::read_to_string(path).expect("readable");
    let start = text.find(begin).unwrap_or_else(|| panic!("{begin} in {}", path.display())) + begin.len();
    let stop = start + text[start..].find(end).unwrap_or_else(|| panic!("{end} in {}", path.display()));
    let block: String = lines.iter().map(|line| format!("{line}\n")).collect();
    if bless() {
        std::fs::write(path, format!("{}{block}{}", &text[..start], &text[stop..])).expect("writable");
    } else {
        assert_eq!(
            &text[start..stop],
            block,
            "{} is stale: run CCLIR_BLESS=1 cargo test --test sim_options",
            path.display()
        );
    }
}

#[test]
fn help_shows_every_setting_with_its_help_and_default() {
    let output = Command::new(env!("CARGO_BIN_EXE_ccl-sim")).arg("--help").output().expect("ccl-sim runs");
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).expect("UTF-8");
    let usage = options::usage("ccl-sim", 15, 110).join("\n");
    assert!(help.starts_with(&format!("USAGE: {usage}\n")), "{help}");
    for setting in options::SETTINGS {
        let flag = match setting.syntax {
            Syntax::Flag => format!("--{}", setting.name),
            Syntax::Value { value, .. } | Syntax::Pairs { value } => format!("--{} <{value}>", setting.name),
        };
        let line = help.lines().find(|line| line.trim_start().starts_with(&format!("{flag} "))).unwrap_or_else(|| {
            panic!("--help has no line for {flag}:\n{help}");
        });
        assert!(line.trim_end().ends_with(&setting.help_with_default()), "{line}");
        match setting.default {
            DefaultValue::Text(text) => assert!(line.contains(&format!("[default: {text}]")), "{line}"),
            DefaultValue::Computed(text) => assert!(line.contains(&format!("[default: {text}]")), "{line}"),
            DefaultValue::None | DefaultValue::Required => assert!(!line.contains("[default:"), "{line}"),
        }
    }
}

#[test]
fn the_library_defaults_are_what_no_setting_gives() {
    let ranks: &Setting = options::setting("ranks").expect("ranks");
    let made = Options::from_settings(&[(ranks, "2".to_string())], |s| s.name.to_string()).expect("valid");
    assert_eq!(format!("{made:?}"), format!("{:?}", Options::default()));
    let defaults = Options::default();
    assert_eq!(defaults.max_states, 2_000_000);
    assert_eq!(defaults.limits.max_steps, 1_000_000);
    assert_eq!(defaults.search_config.threads, cclir::sim::available_threads());
    // Each default the table names, given explicitly, changes nothing.
    for setting in options::SETTINGS {
        if let DefaultValue::Text(text) = setting.default {
            let given = [(ranks, "2".to_string()), (setting, text.to_string())];
            let options = Options::from_settings(&given, |s| s.name.to_string()).expect("the default is valid");
            assert_eq!(format!("{options:?}"), format!("{defaults:?}"), "--{}", setting.name);
        }
    }
}

#[test]
fn the_python_stub_declares_the_settings() {
    let lines: Vec<String> = options::python_stub().iter().map(|line| format!("    {line},")).collect();
    check_block(&root().join("python/cclir/_cclir.pyi"), "    # settings-begin\n", "    # settings-end\n", &lines);
}

#[test]
fn the_docs_show_the_usage_the_tool_prints() {
    let usage = options::usage("ccl-sim", 12, 114).into_iter().map(|line| format!("    {line}"));
    let lines: Vec<String> = std::iter::once(String::new()).chain(usage).chain([String::new()]).collect();
    check_block(&root().join("docs/ccl-sim.md"), "<!-- usage-begin -->\n", "<!-- usage-end -->", &lines);
}
