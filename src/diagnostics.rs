//! Rendering diagnostics as mlir-opt's source manager does: the location, the
//! severity and message, then the source line and a caret under the column.
//! Notes follow their diagnostic; a note repeats the source line only when its
//! location differs from the one printed before it.

pub use cclir_passes::framework::{Diagnostic, DiagnosticSink, Severity, SourceLoc};
use std::collections::HashMap;

/// The text of every buffer diagnostics may point into, by buffer name.
/// Line starts are indexed on first use, so rendering many diagnostics costs
/// one pass over the buffer, not one per diagnostic.
#[derive(Default, Debug, Clone)]
pub struct SourceMap {
    buffers: HashMap<String, Source>,
}

#[derive(Debug, Clone)]
struct Source {
    text: SourceText,
    line_starts: std::cell::OnceCell<Vec<usize>>,
}

/// A buffer's text followed by one NUL byte: MLIR's lexer reads up to a NUL
/// terminator, so the parser gets the very bytes kept for diagnostics (one
/// copy of the input, shared; an owned `String` becomes one without a copy).
#[derive(Debug, Clone)]
pub struct SourceText(std::sync::Arc<String>);

impl SourceText {
    pub fn new(text: &str) -> Self {
        let mut terminated = String::with_capacity(text.len() + 1);
        terminated.push_str(text);
        Self::from(terminated)
    }

    /// The text without its terminator.
    pub fn text(&self) -> &str {
        &self.0[..self.0.len() - 1]
    }
}

impl From<String> for SourceText {
    fn from(mut text: String) -> Self {
        text.push('\0');
        SourceText(std::sync::Arc::new(text))
    }
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<String>, text: &str) {
        self.add_shared(name, SourceText::new(text));
    }

    pub fn add_shared(&mut self, name: impl Into<String>, text: SourceText) {
        self.buffers.insert(name.into(), Source { text, line_starts: Default::default() });
    }

    fn line(&self, file: &str, line: u32) -> Option<&str> {
        let source = self.buffers.get(file)?;
        let text = source.text.text();
        let starts = source
            .line_starts
            .get_or_init(|| std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect());
        let start = *starts.get(line.checked_sub(1)? as usize)?;
        let rest = &text[start..];
        let text = rest.split('\n').next().unwrap_or("");
        Some(text.strip_suffix('\r').unwrap_or(text))
    }
}

/// Renders one diagnostic and its notes.
pub fn render(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    render_with_range(diagnostic, sources, None)
}

/// Renders a diagnostic whose caret underlines `range` characters
/// (`^~~~`), as MLIR does for a located range.
pub fn render_with_range(diagnostic: &Diagnostic, sources: &SourceMap, range: Option<usize>) -> String {
    let mut out = String::new();
    render_one(&mut out, diagnostic, sources, true, range);
    let mut last = &diagnostic.loc;
    for note in &diagnostic.notes {
        render_one(&mut out, note, sources, &note.loc != last, None);
        last = &note.loc;
    }
    out
}

fn render_one(out: &mut String, diagnostic: &Diagnostic, sources: &SourceMap, show_source: bool, range: Option<usize>) {
    out.push_str(&format!("{}: {}: {}\n", diagnostic.loc, diagnostic.severity, diagnostic.message));
    if !show_source {
        return;
    }
    if let SourceLoc::File { file, line, col } = &diagnostic.loc {
        if let Some(text) = sources.line(file, *line) {
            out.push_str(text);
            out.push('\n');
            let indent: String = text
                .chars()
                .take(col.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&indent);
            out.push('^');
            out.push_str(&"~".repeat(range.unwrap_or(1).saturating_sub(1)));
            out.push('\n');
        }
    }
}

/// Renders every diagnostic in order.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics.iter().map(|d| render(d, sources)).collect()
}
