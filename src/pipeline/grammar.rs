//! MLIR's textual pass-pipeline grammar:
//!
//! ```text
//! pipeline  ::= op-name `(` elements? `)`
//! elements  ::= element (`,` element)*
//! element   ::= op-name `(` elements? `)`        a nested pass manager
//!             | pass-name (`{` options `}`)?     a pass or named pipeline
//! ```
//!
//! The parser only builds the tree; which names are passes is the
//! registry's business.

use std::fmt;

/// One element of a pipeline, with the byte offset where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    Nested { anchor: String, elements: Vec<Element>, offset: usize },
    Pass { name: String, options: Option<String>, offset: usize },
}

/// An anchored pipeline: `anchor(elements)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineAst {
    pub anchor: String,
    pub elements: Vec<Element>,
}

/// A malformed pipeline, with the offset of the problem in `text`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct GrammarError {
    pub text: String,
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for GrammarError {
    /// The form mlir-opt prints: a position in the pipeline text, the text,
    /// and a caret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let col = self.text[..self.offset.min(self.text.len())].chars().count();
        write!(
            f,
            "MLIR Textual PassPipeline Parser:1:{}: error: {}\n{}\n{}^",
            col + 1,
            self.message,
            self.text,
            " ".repeat(col)
        )
    }
}

pub const MISSING_ANCHOR: &str =
    "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'";

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

impl<'t> Parser<'t> {
    fn error(&self, offset: usize, message: impl Into<String>) -> GrammarError {
        GrammarError { text: self.text.to_string(), offset, message: message.into() }
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn name(&mut self) -> &'t str {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '$') {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        &self.text[start..self.pos]
    }

    /// The raw text between `{` and its matching `}`, quotes respected.
    fn options(&mut self) -> Result<String, GrammarError> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut depth = 1usize;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek() {
            self.pos += c.len_utf8();
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '"' | '\'' => quote = Some(c),
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(self.text[start..self.pos - 1].to_string());
                        }
                    }
                    _ => {}
                },
            }
        }
        Err(self.error(open, "missing '}' to close the pass options"))
    }

    fn elements(&mut self) -> Result<Vec<Element>, GrammarError> {
        let mut elements = Vec::new();
        self.skip_ws();
        if self.peek() == Some(')') {
            return Ok(elements);
        }
        loop {
            self.skip_ws();
            let offset = self.pos;
            let name = self.name().to_string();
            self.skip_ws();
            let element = match self.peek() {
                Some('(') if !name.is_empty() => {
                    self.pos += 1;
                    let nested = self.elements()?;
                    self.expect_close()?;
                    Element::Nested { anchor: name, elements: nested, offset }
                }
                Some('{') if !name.is_empty() => {
                    let options = self.options()?;
                    Element::Pass { name, options: Some(options), offset }
                }
                _ => Element::Pass { name, options: None, offset },
            };
            elements.push(element);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                _ => return Ok(elements),
            }
        }
    }

    fn expect_close(&mut self) -> Result<(), GrammarError> {
        self.skip_ws();
        if self.peek() == Some(')') {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(self.pos, "expected ',' or ')' after a pipeline element"))
        }
    }
}

/// Parses an anchored pipeline (`builtin.module(...)`).
pub fn parse(text: &str) -> Result<PipelineAst, GrammarError> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_ws();
    let anchor = parser.name().to_string();
    parser.skip_ws();
    if anchor.is_empty() || parser.peek() != Some('(') {
        return Err(GrammarError { text: text.to_string(), offset: 0, message: MISSING_ANCHOR.to_string() });
    }
    parser.pos += 1;
    let elements = parser.elements()?;
    if parser.peek() != Some(')') {
        return Err(GrammarError { text: text.to_string(), offset: 0, message: MISSING_ANCHOR.to_string() });
    }
    parser.pos += 1;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(parser.error(parser.pos, "unexpected text after the pipeline"));
    }
    Ok(PipelineAst { anchor, elements })
}

impl Element {
    /// Writes the element back in textual form.
    pub fn to_text(&self) -> String {
        match self {
            Element::Nested { anchor, elements, .. } => {
                format!("{anchor}({})", elements.iter().map(Element::to_text).collect::<Vec<_>>().join(","))
            }
            Element::Pass { name, options: Some(options), .. } => format!("{name}{{{options}}}"),
            Element::Pass { name, options: None, .. } => name.clone(),
        }
    }
}

impl PipelineAst {
    pub fn to_text(&self) -> String {
        format!("{}({})", self.anchor, self.elements.iter().map(Element::to_text).collect::<Vec<_>>().join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_pipeline_with_options() {
        let ast = parse("builtin.module(func.func(cse, canonicalize{max-iterations=3 top-down=false}), ccl-x)")
            .unwrap();
        assert_eq!(ast.anchor, "builtin.module");
        assert_eq!(ast.elements.len(), 2);
        match &ast.elements[0] {
            Element::Nested { anchor, elements, .. } => {
                assert_eq!(anchor, "func.func");
                assert_eq!(
                    elements[1],
                    Element::Pass {
                        name: "canonicalize".into(),
                        options: Some("max-iterations=3 top-down=false".into()),
                        offset: 30
                    }
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(ast.to_text(), "builtin.module(func.func(cse,canonicalize{max-iterations=3 top-down=false}),ccl-x)");
    }

    #[test]
    fn missing_anchor_is_rejected() {
        assert_eq!(parse("cse").unwrap_err().message, MISSING_ANCHOR);
        assert_eq!(parse("builtin.module(cse").unwrap_err().message, MISSING_ANCHOR);
    }

    #[test]
    fn empty_element_and_unclosed_options() {
        let ast = parse("builtin.module(cse,)").unwrap();
        assert_eq!(ast.elements[1], Element::Pass { name: String::new(), options: None, offset: 19 });
        assert!(parse("builtin.module(cse{a=1)").is_err());
        assert_eq!(parse("builtin.module()").unwrap().elements, vec![]);
    }
}
