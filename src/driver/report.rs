//! Reports printed after a run: the pass pipeline (`--dump-pass-pipeline`,
//! laid out as mlir-opt lays it out) and the Rust passes' statistics
//! (`--mlir-pass-statistics`, in MLIR's report format).

use crate::pipeline::PassRecord;

/// Lays out MLIR's one-line pipeline text the way `PassManager::dump` does:
/// one element per line, nested pass managers indented by two spaces.
pub fn pretty_pipeline(text: &str) -> (usize, String) {
    let mut layout = Layout::default();
    let mut depth = 0usize;
    let mut brace = 0usize;
    let mut top_level = 0usize;
    let mut element_started = false;
    for c in text.chars() {
        if brace > 0 {
            layout.push(c);
            match c {
                '{' => brace += 1,
                '}' => brace -= 1,
                _ => {}
            }
            continue;
        }
        match c {
            '{' => {
                brace = 1;
                layout.push(c);
            }
            '(' => {
                layout.push('(');
                depth += 1;
                layout.newline(depth);
                element_started = false;
            }
            ')' => {
                depth -= 1;
                layout.newline(depth);
                layout.push(')');
            }
            ',' => {
                layout.push(',');
                layout.newline(depth);
                element_started = false;
            }
            c => {
                if depth == 1 && !element_started {
                    top_level += 1;
                }
                element_started = true;
                layout.push(c);
            }
        }
    }
    (top_level, layout.out)
}

/// Text with indentation written lazily, at the first character of a line,
/// so an empty line has no trailing blanks (as llvm's indented stream).
#[derive(Default)]
struct Layout {
    out: String,
    pending_indent: Option<usize>,
}

impl Layout {
    fn push(&mut self, c: char) {
        if let Some(depth) = self.pending_indent.take() {
            self.out.push_str(&"  ".repeat(depth));
        }
        self.out.push(c);
    }

    fn newline(&mut self, depth: usize) {
        self.pending_indent = None;
        self.out.push('\n');
        self.pending_indent = Some(depth);
    }
}

pub fn pipeline_dump(text: &str) -> String {
    let (count, pretty) = pretty_pipeline(text);
    format!("Pass Manager with {count} passes:\n{pretty}\n\n")
}

const RULE: &str = "===-------------------------------------------------------------------------===";

/// The statistics report for the Rust passes of one run.
pub fn statistics(records: &[PassRecord]) -> String {
    let mut out = format!("{RULE}\n                         ... Pass statistics report ...\n{RULE}\n");
    for record in records {
        let mut indent = 0;
        for anchor in record.nesting.iter().skip(1) {
            out.push_str(&format!("{}'{anchor}' Pipeline\n", "  ".repeat(indent)));
            indent += 1;
        }
        out.push_str(&format!("{}{}\n", "  ".repeat(indent), record.info.argument));
        let stats = record.stats.snapshot();
        let width = stats.iter().map(|(_, v)| v.to_string().len()).max().unwrap_or(1);
        for (spec, value) in stats {
            out.push_str(&format!(
                "{}  (S) {value:>width$} {} - {}\n",
                "  ".repeat(indent),
                spec.name,
                spec.description
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_is_laid_out_like_mlir_opt() {
        assert_eq!(
            pipeline_dump("builtin.module(func.func(cse,canonicalize{  max-iterations=10 top-down=true}),cse)"),
            "Pass Manager with 2 passes:\nbuiltin.module(\n  func.func(\n    cse,\n    canonicalize{  max-iterations=10 top-down=true}\n  ),\n  cse\n)\n\n"
        );
    }
}
