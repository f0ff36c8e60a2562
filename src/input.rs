//! A look at the input before MLIR parses it. MLIR's parser, verifier and
//! printer recurse once per nesting level of the IR, so a deep enough nest
//! exhausts any stack and crashes the process. Nesting is bounded by
//! brackets in the text, so one linear scan finds the deepest point; past
//! the limit the input is rejected with a located error instead.

/// Where the input first nests deeper than the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub line: usize,
    pub col: usize,
    pub limit: usize,
}

/// MLIR bytecode starts with this; it has no brackets to count.
const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

/// What `check_nesting` does at a byte: most bytes of a program are none of
/// these, and the scan skips them through this table without branching on
/// each kind (the check runs on every input before MLIR parses it, so it is
/// kept to a fraction of the parser's time).
const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const QUOTE: u8 = 3;
const SLASH: u8 = 4;

static CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    class[b'{' as usize] = OPEN;
    class[b'(' as usize] = OPEN;
    class[b'[' as usize] = OPEN;
    class[b'}' as usize] = CLOSE;
    class[b')' as usize] = CLOSE;
    class[b']' as usize] = CLOSE;
    class[b'"' as usize] = QUOTE;
    class[b'/' as usize] = SLASH;
    class
};

/// Checks that no `{`, `(` or `[` of `text` (outside strings and comments)
/// opens past `limit` levels.
pub fn check_nesting(text: &[u8], limit: usize) -> Result<(), TooDeep> {
    if text.starts_with(BYTECODE_MAGIC) {
        return Ok(());
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(skip) = text[i..].iter().position(|&b| CLASS[b as usize] != OTHER) {
        i += skip;
        match CLASS[text[i] as usize] {
            OPEN => {
                depth += 1;
                if depth > limit {
                    return Err(TooDeep::at(text, i, limit));
                }
            }
            CLOSE => depth = depth.saturating_sub(1),
            // A string ends at its closing quote or, unterminated, at the
            // end of its line (where MLIR's lexer reports it).
            QUOTE => {
                i += 1;
                while i < text.len() && text[i] != b'"' && text[i] != b'\n' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ if text.get(i + 1) == Some(&b'/') => {
                i = text[i..].iter().position(|&b| b == b'\n').map_or(text.len(), |end| i + end);
                continue;
            }
            _ => {}
        }
        i += 1;
        if i >= text.len() {
            break;
        }
    }
    Ok(())
}

impl TooDeep {
    /// The error for the bracket at byte `offset` (lines and columns are
    /// counted only here, off the hot loop).
    fn at(text: &[u8], offset: usize, limit: usize) -> TooDeep {
        let before = &text[..offset];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |newline| newline + 1);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        TooDeep { line, col: offset - line_start + 1, limit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = b"// {{{{\n\"{{{{\" {(\n[x]\n)}";
        assert_eq!(check_nesting(text, 3), Ok(()));
        assert_eq!(check_nesting(text, 1), Err(TooDeep { line: 2, col: 9, limit: 1 }));
    }

    #[test]
    fn a_deep_nest_is_found_at_its_deepest_line() {
        let text: String = (0..10).map(|i| format!("{}{{\n", " ".repeat(i))).collect();
        assert_eq!(check_nesting(text.as_bytes(), 10), Ok(()));
        assert_eq!(check_nesting(text.as_bytes(), 9), Err(TooDeep { line: 10, col: 10, limit: 9 }));
        assert_eq!(check_nesting(b"ML\xefR{{{{", 1), Ok(()));
    }
}
