//! The pages in docs/passes/ against the code. Each page opens with its
//! pass's reference, generated from the `PassInfo` (`PassInfo::reference`:
//! argument, summary, description, options, statistics, as
//! `mlir-tblgen -gen-pass-doc` makes one from `Passes.td`), down to the line
//! `<!-- end of the generated part -->`; the rest is written by hand. This
//! test fails when a page's generated part differs from what the code
//! generates; `CCLIR_BLESS=1 cargo test --test pass_docs` rewrites the
//! generated parts and keeps the rest. Tables a page shows of the code
//! (the lowering's steps and errors) are checked here too.

use cclir::passes::{all_passes, framework::PassInfo, lower_all_to_all_v::protocol};
use std::path::{Path, PathBuf};

const END: &str = "<!-- end of the generated part -->";

/// The page of `info` (docs/passes/<argument without `ccl-`>.md).
fn page_of(info: &PassInfo) -> PathBuf {
    let name = info.argument.strip_prefix("ccl-").unwrap_or(info.argument);
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/passes").join(format!("{name}.md"))
}

/// The generated part of `info`'s page, the end line included.
fn generated_part(info: &PassInfo) -> String {
    format!(
        "<!-- Generated from the PassInfo of `{}` down to the end line below: edit the PassInfo, then run `CCLIR_BLESS=1 cargo test --test pass_docs`. -->\n{}{END}\n",
        info.argument,
        info.reference()
    )
}

#[test]
fn every_pass_page_opens_with_its_generated_reference() {
    let bless = std::env::var_os("CCLIR_BLESS").is_some();
    let mut stale = Vec::new();
    for info in all_passes() {
        let path = page_of(info);
        let page = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = generated_part(info);
        assert!(generated.contains(info.summary) && generated.contains(info.description.trim_end()));
        if page.starts_with(&generated) {
            continue;
        }
        if bless {
            let hand_written =
                page.split_once(END).map_or(page.as_str(), |(_, rest)| rest.strip_prefix('\n').unwrap_or(rest));
            std::fs::write(&path, format!("{generated}{hand_written}")).expect("write the page");
        } else {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these pages do not open with their pass's generated reference: {stale:?}; run `CCLIR_BLESS=1 cargo test --test pass_docs`"
    );
}

#[test]
fn every_page_is_of_a_pass() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/passes");
    let pages: Vec<PathBuf> = all_passes().iter().map(|info| page_of(info)).collect();
    for entry in std::fs::read_dir(&dir).expect("docs/passes exists") {
        let path = entry.expect("a directory entry").path();
        assert!(pages.contains(&path), "{} documents no registered pass", path.display());
    }
}

/// The step names of the first `| # | step |` table after `heading` in
/// docs/passes/lower-all-to-all-v.md, in order.
fn doc_steps(doc: &str, heading: &str) -> Vec<String> {
    let section = doc.split(heading).nth(1).unwrap_or_else(|| panic!("the doc has a section {heading:?}"));
    section
        .lines()
        .skip_while(|line| !line.starts_with("| # | step |"))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .filter_map(|line| line.split('|').nth(2).map(|cell| cell.trim().trim_matches('`').to_string()))
        .collect()
}

#[test]
fn lower_all_to_all_v_step_tables_are_the_protocols() {
    let doc = include_str!("../docs/passes/lower-all-to-all-v.md");
    assert_eq!(doc_steps(doc, "## The protocol"), protocol::step_names(protocol::PROTOCOL));
    assert_eq!(doc_steps(doc, "## Option `late-snapshot`"), protocol::step_names(protocol::LATE_SNAPSHOT));
}

/// Whether `text` is `pattern` with each placeholder (`<type>`, `<B>`: a
/// word in angle brackets, not the `<` of `memref<...>`) standing for any
/// run of characters.
fn fits(pattern: &str, text: &str) -> bool {
    // The literal runs between placeholders.
    let mut literals = vec![String::new()];
    let mut rest = pattern;
    while let Some(open) = rest.find('<') {
        let word = rest[open + 1..]
            .find('>')
            .filter(|&n| n > 0 && rest[open + 1..open + 1 + n].chars().all(|c| c.is_ascii_alphabetic()));
        let last = literals.last_mut().expect("one literal at least");
        match word {
            Some(n) => {
                last.push_str(&rest[..open]);
                literals.push(String::new());
                rest = &rest[open + n + 2..];
            }
            None => {
                last.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    literals.last_mut().expect("one literal at least").push_str(rest);
    let (first, last) = (&literals[0], &literals[literals.len() - 1]);
    if literals.len() == 1 {
        return text == first;
    }
    if text.len() < first.len() + last.len() || !text.starts_with(first.as_str()) || !text.ends_with(last.as_str()) {
        return false;
    }
    let (mut at, end) = (first.len(), text.len() - last.len());
    literals[1..literals.len() - 1].iter().all(|middle| match text[at..end].find(middle.as_str()) {
        Some(found) => {
            at += found + middle.len();
            true
        }
        None => false,
    })
}

#[test]
fn lower_all_to_all_v_error_table_is_the_messages_the_lit_test_expects() {
    let doc = include_str!("../docs/passes/lower-all-to-all-v.md");
    let lit = include_str!("../lit-tests/Transforms/lower-all-to-all-v/errors.mlir");
    let section = doc.split("## Errors").nth(1).expect("the doc has an Errors section");
    let rows: Vec<&str> = section
        .lines()
        .skip_while(|line| !line.starts_with("| when |"))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            let cell = line.rsplit('|').nth(1).expect("a message cell").trim();
            cell.split('`').nth(1).expect("the message in backticks")
        })
        .collect();
    let expected: Vec<&str> = lit
        .lines()
        .filter_map(|line| line.split("expected-error @+1 {{").nth(1))
        .map(|rest| rest.strip_suffix("}}").expect("one expectation per line"))
        .collect();
    assert_eq!(rows.len(), 19, "{rows:#?}");
    for row in &rows {
        assert!(expected.iter().any(|message| fits(row, message)), "no lit case for the doc's {row:?}");
    }
    for message in &expected {
        assert!(rows.iter().any(|row| fits(row, message)), "the doc's table lacks {message:?}");
    }
    assert!(fits("a <n> b", "a 12 b") && !fits("a <n> b", "a 12 c") && !fits("a <n> b <m>", "a b"));
    assert!(fits("x memref<P x S> y <type>", "x memref<P x S> y f32") && !fits("x memref<P x S>", "x memref<Q x S>"));
}
