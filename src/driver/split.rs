//! `--split-input-file`: one buffer becomes several chunks at marker lines.
//! Each chunk keeps the file's line numbers: it is padded with the newlines
//! of the lines before it, so MLIR's locations (and so every diagnostic and
//! every expected-* comment) count lines of the whole file.

/// A chunk of the input, ready to parse as if it were the whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk's text, preceded by one newline per earlier line.
    pub text: String,
}

/// Splits `text` at every occurrence of `marker`, as mlir-opt does (the
/// marker need not start a line: text before it on its line stays with the
/// chunk above).
pub fn split(text: &str, marker: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut newlines_before = 0usize;
    for piece in text.split(marker) {
        let mut chunk = String::with_capacity(newlines_before + piece.len());
        chunk.extend(std::iter::repeat_n('\n', newlines_before));
        chunk.push_str(piece);
        newlines_before += piece.matches('\n').count();
        chunks.push(Chunk { text: chunk });
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_whole_file_line_numbers() {
        let chunks = split("a\n// -----\nb\nc\n  // -----\nd", "// -----");
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0].text, "a\n");
        assert_eq!(chunks[1].text, "\n\nb\nc\n  ");
        assert_eq!(chunks[2].text, "\n\n\n\n\nd");
        assert_eq!(chunks[2].text.lines().nth(5), Some("d"));
    }

    #[test]
    fn no_marker_is_one_chunk() {
        assert_eq!(split("x\ny\n", "// -----"), vec![Chunk { text: "x\ny\n".into() }]);
    }
}
