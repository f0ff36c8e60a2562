//! `--verify-diagnostics`: the `expected-error|warning|note|remark` comments
//! of a buffer against the diagnostics a run reported, checked and reported
//! the way mlir-opt does: each diagnostic must match an expectation on its
//! line (substring, or regex pieces in `{{...}}` for the `-re` forms), and
//! each expectation must be matched.

use crate::diagnostics::{Diagnostic, Severity, SourceLoc};
use regex::Regex;
use std::sync::OnceLock;

#[derive(Debug, Clone)]
pub struct Expectation {
    pub severity: Severity,
    /// The line the diagnostic is expected on (1-based).
    pub line: u32,
    /// Where the `expected-...` text starts, for "was not produced".
    pub comment_line: u32,
    pub comment_col: u32,
    pub text: String,
    matcher: Matcher,
    matched: bool,
}

#[derive(Debug, Clone)]
enum Matcher {
    Substring(String),
    Regex(Regex),
}

/// A bad expected-* comment (e.g. `@-5` above the first line, a bad regex).
#[derive(Debug, Clone)]
pub struct BadExpectation {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

fn directive() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below))? *\{\{(.*)\}\}")
            .expect("valid regex")
    })
}

/// Turns `-re` text into a regex: `{{...}}` pieces are regexes, the rest is
/// literal.
fn regex_of(text: &str) -> Result<Regex, String> {
    let mut pattern = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        pattern.push_str(&regex::escape(&rest[..start]));
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| "found start of regex with no end '}}'".to_string())?;
        pattern.push('(');
        pattern.push_str(&after[..end]);
        pattern.push(')');
        rest = &after[end + 2..];
    }
    pattern.push_str(&regex::escape(rest));
    Regex::new(&pattern).map_err(|e| format!("invalid regex: {e}"))
}

/// Collects the expectations of `text`.
pub fn parse(text: &str) -> Result<Vec<Expectation>, BadExpectation> {
    let lines: Vec<&str> = text.split('\n').collect();
    let designator: Vec<bool> = lines.iter().map(|line| directive().is_match(line)).collect();
    let mut expectations = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let comment_line = index as u32 + 1;
        let Some(captures) = directive().captures(line) else { continue };
        let whole = captures.get(0).expect("match");
        let comment_col = line[..whole.start()].chars().count() as u32 + 1;
        let severity = match &captures[1] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "note" => Severity::Note,
            _ => Severity::Remark,
        };
        // `@above` and `@below` skip lines that are themselves expected-*
        // lines, so several expectations can stack above or below one op.
        let target = match captures.get(4).map(|m| m.as_str()) {
            None => Some(index),
            Some("above") => (0..index).rev().find(|&i| !designator[i]),
            // A dangling `@below` applies to the last line, as in MLIR.
            Some("below") => (index + 1..lines.len()).find(|&i| !designator[i]).or(Some(lines.len() - 1)),
            Some(offset) => {
                let target = index as i64 + offset.parse::<i64>().unwrap_or(0);
                (0..lines.len() as i64).contains(&target).then_some(target as usize)
            }
        };
        let Some(target) = target else {
            return Err(BadExpectation {
                line: comment_line,
                col: comment_col,
                message: "expected diagnostic line is out of range of the file".to_string(),
            });
        };
        let text = captures[5].to_string();
        let matcher = if captures.get(2).is_some() {
            Matcher::Regex(regex_of(&text).map_err(|message| BadExpectation {
                line: comment_line,
                col: comment_col,
                message,
            })?)
        } else {
            Matcher::Substring(text.clone())
        };
        expectations.push(Expectation {
            severity,
            line: target as u32 + 1,
            comment_line,
            comment_col,
            text,
            matcher,
            matched: false,
        });
    }
    Ok(expectations)
}

/// What a check found: diagnostics no comment expected, and expectations no
/// diagnostic met, both as errors to print.
#[derive(Debug, Default)]
pub struct Verdict {
    pub problems: Vec<(Diagnostic, Option<usize>)>,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Whether `expectation` is on the diagnostic's line with matching text;
/// the severity is compared by the caller (a wrong one is a near miss).
fn matches_text(expectation: &Expectation, diagnostic: &Diagnostic, buffer: &str) -> bool {
    if expectation.matched {
        return false;
    }
    let SourceLoc::File { file, line, .. } = &diagnostic.loc else { return false };
    if file != buffer || *line != expectation.line {
        return false;
    }
    match &expectation.matcher {
        Matcher::Substring(text) => diagnostic.message.contains(text.as_str()),
        Matcher::Regex(regex) => regex.is_match(&diagnostic.message),
    }
}

/// The note MLIR attaches to verifier errors for the terminal; mlir-opt
/// turns it off under --verify-diagnostics, and the C API cannot.
fn is_current_operation_note(diagnostic: &Diagnostic) -> bool {
    diagnostic.severity == Severity::Note && diagnostic.message.starts_with("see current operation: ")
}

/// Checks `diagnostics` (notes included, each on its own) against
/// `expectations`. Problems carry an optional caret-range length.
pub fn check(
    mut expectations: Vec<Expectation>,
    diagnostics: &[Diagnostic],
    buffer: &str,
    only_expected: bool,
) -> Verdict {
    let mut verdict = Verdict::default();
    let flat = diagnostics
        .iter()
        .flat_map(|d| std::iter::once(d).chain(d.notes.iter()))
        .filter(|d| !is_current_operation_note(d));
    for diagnostic in flat {
        let mut near_miss = None;
        let mut matched = false;
        for (index, expectation) in expectations.iter_mut().enumerate() {
            if matches_text(expectation, diagnostic, buffer) {
                if expectation.severity == diagnostic.severity {
                    expectation.matched = true;
                    matched = true;
                    break;
                }
                near_miss = Some(index);
            }
        }
        if matched || (only_expected && near_miss.is_none()) {
            continue;
        }
        let problem = match near_miss {
            Some(index) => {
                let expectation = &expectations[index];
                Diagnostic::error(
                    SourceLoc::File {
                        file: buffer.to_string(),
                        line: expectation.comment_line,
                        col: expectation.comment_col,
                    },
                    format!(
                        "'{}' diagnostic emitted when expecting a '{}'",
                        diagnostic.severity, expectation.severity
                    ),
                )
            }
            None => Diagnostic::error(
                diagnostic.loc.clone(),
                format!("unexpected {}: {}", diagnostic.severity, diagnostic.message),
            ),
        };
        verdict.problems.push((problem, None));
    }
    for expectation in expectations.iter().filter(|e| !e.matched) {
        let loc = SourceLoc::File {
            file: buffer.to_string(),
            line: expectation.comment_line,
            col: expectation.comment_col,
        };
        let message = format!("expected {} \"{}\" was not produced", expectation.severity, expectation.text);
        verdict.problems.push((Diagnostic::error(loc, message), Some(expectation.text.chars().count())));
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, severity: Severity, message: &str) -> Diagnostic {
        Diagnostic::new(severity, SourceLoc::File { file: "f".into(), line, col: 3 }, message)
    }

    #[test]
    fn designators_point_at_lines() {
        let text = "a\n// expected-error @+1 {{one}}\nb\n// expected-warning @-3 {{two}}\nc // expected-note {{three}}\n// expected-remark@above {{four}}\n// expected-error @below {{five}}\nx";
        let e = parse(text).unwrap();
        let lines: Vec<u32> = e.iter().map(|e| e.line).collect();
        // @above skips the expected-* lines 4 to 6 and lands on `b`.
        assert_eq!(lines, vec![3, 1, 5, 3, 8]);
        assert_eq!(e[0].comment_col, 4);
    }

    #[test]
    fn regex_pieces_and_unmatched_reports() {
        let text = "x\n// expected-error-re @-1 {{value {{[0-9]+}} is bad}}\n// expected-error @+1 {{missing}}\ny";
        let expectations = parse(text).unwrap();
        let verdict = check(expectations, &[at(1, Severity::Error, "value 42 is bad"), at(4, Severity::Warning, "w")], "f", false);
        let messages: Vec<String> = verdict.problems.iter().map(|(d, _)| d.message.clone()).collect();
        assert_eq!(messages, vec!["unexpected warning: w".to_string(), "expected error \"missing\" was not produced".to_string()]);
    }

    #[test]
    fn out_of_range_designator_is_an_error() {
        assert!(parse("// expected-error @-1 {{x}}").is_err());
    }
}
