//! Reading a buffer into one top-level `builtin.module`, as mlir-opt does:
//! a buffer that is not a single module is wrapped in an implicit one.
//!
//! MLIR's C API parses exactly one top-level operation. To wrap without
//! moving any line, `module{` is put in front of the first line and `}` after
//! the last; diagnostics on line 1 are then shifted back by the prefix width.

use cclir_passes::framework::{Diagnostic, SourceLoc};

pub const WRAP_PREFIX: &str = "module{";

/// Whether the first token of `text` (past comments and blank space) starts
/// an explicit module, so the buffer is parsed as it is.
pub fn starts_with_module(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//") {
            rest = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
            continue;
        }
        break;
    }
    rest.starts_with("module") || rest.starts_with("\"builtin.module\"") || rest.starts_with("builtin.module")
}

/// The buffer with the implicit module around it.
pub fn wrap(text: &str) -> String {
    let mut wrapped = String::with_capacity(text.len() + WRAP_PREFIX.len() + 2);
    wrapped.push_str(WRAP_PREFIX);
    wrapped.push_str(text);
    wrapped.push_str("\n}");
    wrapped
}

/// Moves diagnostics on line 1 of `buffer` back by the prefix width.
pub fn unshift(diagnostic: &mut Diagnostic, buffer: &str) {
    if let SourceLoc::File { file, line: 1, col } = &mut diagnostic.loc {
        if file == buffer {
            *col = col.saturating_sub(WRAP_PREFIX.len() as u32).max(1);
        }
    }
    for note in &mut diagnostic.notes {
        unshift(note, buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_module_is_seen_past_comments() {
        assert!(starts_with_module("// RUN: x\n\nmodule {\n}"));
        assert!(!starts_with_module("// RUN: x\nfunc.func @f() {\n}"));
        assert_eq!(wrap("a\nb"), "module{a\nb\n}");
    }
}
