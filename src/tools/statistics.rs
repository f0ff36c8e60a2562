//! The `--mlir-pass-statistics` report of the Rust passes, in the layout of
//! MLIR's own (`mlir/lib/Pass/PassStatistics.cpp`): Debian's LLVM compiles
//! `llvm::Statistic` out, so MLIR's report would have its header only. The
//! passes' counters are Rust-side ([`Counters`]); the nesting comes from the
//! pipeline as MLIR prints it. Upstream passes have no statistics in this
//! build and are not listed.

use cclir_passes::framework::Counters;

/// One Rust pass of a pipeline, with its counters.
#[derive(Clone, Debug)]
pub struct PassStatistics {
    /// The pipeline name (`ccl-admit-launch-width`).
    pub argument: String,
    /// The name the report shows (`CclAdmitLaunchWidth`).
    pub name: String,
    /// The anchors of the pass managers it is nested in, outermost first,
    /// the root included (`["builtin.module", "func.func"]`).
    pub nesting: Vec<String>,
    pub counters: Counters,
}

/// How the report is laid out (`--mlir-pass-statistics-display`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// The structure of the pass manager.
    Pipeline,
    /// One entry per pass name, counts merged, sorted by name.
    List,
}

/// The nesting of each Rust pass of `pipeline` (as MLIR prints it:
/// `builtin.module(a{x=1},func.func(b))`): `passes` are the Rust passes in
/// pipeline order, each given by its argument. A pass not found keeps the
/// root nesting.
pub fn nesting_of(pipeline: &str, arguments: &[&str]) -> Vec<Vec<String>> {
    let mut found = Vec::with_capacity(arguments.len());
    let mut stack: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut chars = pipeline.chars().peekable();
    let flush = |word: &mut String, stack: &Vec<String>, found: &mut Vec<Vec<String>>| {
        let name = std::mem::take(word);
        let name = name.trim();
        if found.len() < arguments.len() && name == arguments[found.len()] {
            found.push(stack.clone());
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '(' => stack.push(std::mem::take(&mut word).trim().to_string()),
            ')' => {
                flush(&mut word, &stack, &mut found);
                stack.pop();
            }
            ',' => flush(&mut word, &stack, &mut found),
            '{' => {
                // Options: skip to the matching brace (quotes and nested
                // braces included), then the element ends.
                let mut depth = 1;
                let mut quote = None;
                for c in chars.by_ref() {
                    match (quote, c) {
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), _) => {}
                        (None, '"' | '\'') => quote = Some(c),
                        (None, '{') => depth += 1,
                        (None, '}') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            c => word.push(c),
        }
    }
    let root = vec![stack.first().cloned().unwrap_or_else(|| "builtin.module".to_string())];
    while found.len() < arguments.len() {
        found.push(root.clone());
    }
    found
}

const RULE: &str = "===-------------------------------------------------------------------------===";

/// The report, header included.
pub fn report(passes: &[PassStatistics], display: Display) -> String {
    const TITLE: &str = "... Pass statistics report ...";
    let mut out = format!("{RULE}\n{}{TITLE}\n{RULE}\n", " ".repeat((80 - TITLE.len()) / 2));
    match display {
        Display::Pipeline => {
            // Headers of the pass managers the previous pass was nested in.
            let mut open: Vec<String> = Vec::new();
            for pass in passes {
                let inner = pass.nesting.get(1..).unwrap_or_default();
                let common = open.iter().zip(inner).take_while(|(a, b)| a == b).count();
                open.truncate(common);
                for anchor in &inner[common..] {
                    out.push_str(&format!("{}'{anchor}' Pipeline\n", "  ".repeat(open.len())));
                    open.push(anchor.clone());
                }
                entry(
                    &mut out,
                    2 * open.len(),
                    &pass.name,
                    pass.counters.snapshot().into_iter().map(|(s, v)| (s.name, s.description, v)).collect(),
                );
            }
        }
        Display::List => {
            let mut merged: std::collections::BTreeMap<&str, Vec<(&str, &str, u64)>> = Default::default();
            for pass in passes {
                let stats = pass.counters.snapshot();
                let slot = merged.entry(&pass.name).or_default();
                if slot.is_empty() {
                    slot.extend(stats.iter().map(|(s, v)| (s.name, s.description, *v)));
                } else {
                    for (total, (_, value)) in slot.iter_mut().zip(stats) {
                        total.2 += value;
                    }
                }
            }
            for (name, stats) in merged {
                entry(&mut out, 2, name, stats);
            }
        }
    }
    out.push('\n');
    out
}

/// One pass: its name, then `(S) value name - description` per statistic,
/// sorted by name, values right-aligned and names padded as MLIR does.
fn entry(out: &mut String, indent: usize, name: &str, mut stats: Vec<(&str, &str, u64)>) {
    out.push_str(&format!("{}{name}\n", " ".repeat(indent)));
    stats.sort_by(|a, b| a.0.cmp(b.0));
    let name_width = stats.iter().map(|s| s.0.len()).max().unwrap_or(0);
    let value_width = stats.iter().map(|s| s.2.to_string().len()).max().unwrap_or(0);
    for (stat, description, value) in stats {
        out.push_str(&format!(
            "{}(S) {value:>value_width$} {stat:<name_width$} - {description}\n",
            " ".repeat(indent + 2)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclir_passes::framework::StatisticSpec;

    #[test]
    fn passes_are_found_at_their_nesting_past_options() {
        let pipeline = "builtin.module(a{x={1} y=\"(,)\"},func.func(cse,b),c)";
        assert_eq!(
            nesting_of(pipeline, &["a", "b", "c"]),
            vec![
                vec!["builtin.module".to_string()],
                vec!["builtin.module".to_string(), "func.func".to_string()],
                vec!["builtin.module".to_string()],
            ]
        );
    }

    #[test]
    fn the_report_has_mlir_s_layout() {
        static SPECS: [StatisticSpec; 2] =
            [StatisticSpec { name: "zeta", description: "Z" }, StatisticSpec { name: "alpha", description: "A" }];
        let counters = Counters::new(&SPECS);
        counters.counter(0).add(12);
        let pass = |nesting: &[&str]| PassStatistics {
            argument: "p".into(),
            name: "P".into(),
            nesting: nesting.iter().map(|s| s.to_string()).collect(),
            counters: counters.clone(),
        };
        let report = report(&[pass(&["builtin.module", "func.func"]), pass(&["builtin.module"])], Display::Pipeline);
        let body: Vec<&str> = report.lines().skip(3).collect();
        assert_eq!(
            body,
            [
                "'func.func' Pipeline",
                "  P",
                "    (S)  0 alpha - A",
                "    (S) 12 zeta  - Z",
                "P",
                "  (S)  0 alpha - A",
                "  (S) 12 zeta  - Z",
                ""
            ]
        );
        assert!(report.starts_with(&format!("{RULE}\n                         ... Pass statistics report ...\n")));
    }
}
