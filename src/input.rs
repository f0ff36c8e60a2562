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

/// Checks that no `{`, `(` or `[` of `text` (outside strings and comments)
/// opens past `limit` levels.
pub fn check_nesting(text: &[u8], limit: usize) -> Result<(), TooDeep> {
    if text.starts_with(BYTECODE_MAGIC) {
        return Ok(());
    }
    let mut depth = 0usize;
    let (mut line, mut line_start) = (1usize, 0usize);
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' && text[i] != b'\n' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Err(TooDeep { line, col: i - line_start + 1, limit });
                }
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
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
