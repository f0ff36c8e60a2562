//! Diagnostics as values, for the library API: what MLIR's diagnostic
//! engine reported (parser, verifier, upstream and Rust passes), with its
//! notes, and rendering as mlir-opt's source manager prints them (location,
//! severity and message, then the source line and a caret under the column;
//! a note repeats the line only when its location differs).

pub use cclir_dialect::diagnostics::{Diagnostic, DiagnosticSink, Severity, SourceLoc};
use std::{collections::HashMap, sync::Arc};

/// The text of every buffer diagnostics may point into, by buffer name.
/// Line starts are indexed on first use, so rendering many diagnostics costs
/// one pass over the buffer, not one per diagnostic.
#[derive(Default, Debug, Clone)]
pub struct SourceMap {
    buffers: HashMap<String, Source>,
}

#[derive(Debug, Clone)]
struct Source {
    text: Arc<str>,
    line_starts: std::cell::OnceCell<Vec<usize>>,
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<String>, text: Arc<str>) {
        self.buffers.insert(name.into(), Source { text, line_starts: Default::default() });
    }

    fn line(&self, file: &str, line: u32) -> Option<&str> {
        let source = self.buffers.get(file)?;
        let text = &source.text;
        let starts = source
            .line_starts
            .get_or_init(|| std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect());
        let start = *starts.get(line.checked_sub(1)? as usize)?;
        let text = text[start..].split('\n').next().unwrap_or("");
        Some(text.strip_suffix('\r').unwrap_or(text))
    }

    /// Renders one diagnostic and its notes.
    pub fn render(&self, diagnostic: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(&mut out, diagnostic, true);
        let mut last = &diagnostic.loc;
        for note in &diagnostic.notes {
            self.render_one(&mut out, note, &note.loc != last);
            last = &note.loc;
        }
        out
    }

    /// Renders every diagnostic in order.
    pub fn render_all(&self, diagnostics: &[Diagnostic]) -> String {
        diagnostics.iter().map(|d| self.render(d)).collect()
    }

    fn render_one(&self, out: &mut String, diagnostic: &Diagnostic, show_source: bool) {
        out.push_str(&format!("{}: {}: {}\n", diagnostic.loc, diagnostic.severity, diagnostic.message));
        if !show_source {
            return;
        }
        if let SourceLoc::File { file, line, col } = &diagnostic.loc {
            if let Some(text) = self.line(file, *line) {
                out.push_str(text);
                out.push('\n');
                let indent: String = text
                    .chars()
                    .take(col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                out.push_str(&indent);
                out.push_str("^\n");
            }
        }
    }
}
