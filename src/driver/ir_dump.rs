//! `--mlir-print-ir-before=` / `--mlir-print-ir-after=` for named passes.
//!
//! MLIR's C API can print the IR around every pass but takes no pass filter,
//! and writes the dumps to stderr itself. When names are given, the driver
//! asks MLIR for every dump, catches stderr in a temporary file for the run,
//! and passes on the dumps whose header names a selected pass: each dump
//! starts with `// -----// IR Dump Before Name (argument) //----- //`.

use std::io::{Read, Seek, SeekFrom, Write};

/// Which dumps to keep.
#[derive(Debug, Clone, Default)]
pub struct DumpFilter {
    pub before: Vec<String>,
    pub after: Vec<String>,
    pub before_all: bool,
    pub after_all: bool,
}

impl DumpFilter {
    fn keeps(&self, header: &str) -> bool {
        let argument = header
            .rsplit_once('(')
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(arg, _)| arg)
            .unwrap_or("");
        if header.contains("IR Dump Before ") {
            self.before_all || self.before.iter().any(|p| p == argument)
        } else {
            self.after_all || self.after.iter().any(|p| p == argument)
        }
    }

    /// Keeps the selected dumps of `text`; anything before the first dump
    /// (not IR printing) is kept as it is.
    pub fn filter(&self, text: &str) -> String {
        let mut out = String::new();
        let mut keeping = true;
        for line in text.split_inclusive('\n') {
            if line.starts_with("// -----// IR Dump ") {
                keeping = self.keeps(line);
            }
            if keeping {
                out.push_str(line);
            }
        }
        out
    }
}

/// stderr, redirected into a temporary file until `finish`.
pub struct CapturedStderr {
    saved: i32,
    file: std::fs::File,
}

impl CapturedStderr {
    pub fn start() -> Option<Self> {
        let file = tempfile::tempfile().ok()?;
        use std::os::unix::io::AsRawFd;
        let _ = std::io::stderr().flush();
        // SAFETY: plain descriptor calls on descriptors this process owns.
        unsafe {
            let saved = libc::dup(2);
            if saved < 0 {
                return None;
            }
            if libc::dup2(file.as_raw_fd(), 2) < 0 {
                libc::close(saved);
                return None;
            }
            Some(CapturedStderr { saved, file })
        }
    }

    /// Restores stderr and returns what was written to it meanwhile.
    pub fn finish(mut self) -> String {
        let _ = std::io::stderr().flush();
        // SAFETY: `saved` is the descriptor dup'd in `start`.
        unsafe {
            libc::dup2(self.saved, 2);
            libc::close(self.saved);
        }
        let mut text = String::new();
        let _ = self.file.seek(SeekFrom::Start(0));
        let _ = self.file.read_to_string(&mut text);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_selected_dumps_pass() {
        let text = "// -----// IR Dump Before CSE (cse) //----- //\nA\n// -----// IR Dump After CSE (cse) //----- //\nB\n// -----// IR Dump Before Canonicalizer (canonicalize) //----- //\nC\n";
        let filter = DumpFilter { before: vec!["canonicalize".into()], after: vec!["cse".into()], ..Default::default() };
        assert_eq!(
            filter.filter(text),
            "// -----// IR Dump After CSE (cse) //----- //\nB\n// -----// IR Dump Before Canonicalizer (canonicalize) //----- //\nC\n"
        );
    }
}
