//! `-o FILE`, written atomically: the output goes to a temporary file in the
//! same directory, renamed over FILE only when the whole run succeeded, so a
//! failing run leaves an existing FILE as it was. (mlir-opt deletes it.)

use std::io::Write;
use std::path::Path;

pub enum Output {
    Stdout,
    File { temp: tempfile::NamedTempFile, path: String },
}

impl Output {
    /// Opens the output before any work, so an unwritable place fails early
    /// with mlir-opt's message.
    pub fn open(path: &str) -> Result<Self, String> {
        if path == "-" {
            return Ok(Output::Stdout);
        }
        let target = Path::new(path);
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if target.is_dir() {
            return Err(format!("cannot open output file '{path}': Is a directory"));
        }
        tempfile::Builder::new()
            .prefix(".ccl-opt-")
            .tempfile_in(dir)
            .map(|temp| Output::File { temp, path: path.to_string() })
            .map_err(|error| format!("cannot open output file '{path}': {}", super::io_message(&error)))
    }

    /// Writes `bytes`; for a file, renames it into place.
    pub fn commit(self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Output::Stdout => {
                let mut stdout = std::io::stdout().lock();
                stdout.write_all(bytes).and_then(|_| stdout.flush()).map_err(|e| format!("error writing output: {e}"))
            }
            Output::File { mut temp, path } => {
                temp.write_all(bytes).map_err(|e| format!("cannot write output file '{path}': {e}"))?;
                temp.as_file().sync_all().ok();
                // Keep the permissions an existing file had.
                if let Ok(meta) = std::fs::metadata(&path) {
                    let _ = std::fs::set_permissions(temp.path(), meta.permissions());
                } else {
                    use std::os::unix::fs::PermissionsExt;
                    let _ = std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o644));
                }
                temp.persist(&path).map(|_| ()).map_err(|e| format!("cannot open output file '{path}': {}", super::io_message(&e.error)))
            }
        }
    }

    /// Whether the run's output is the terminal stream (then partial output
    /// of a failed split run is still printed, as mlir-opt prints it).
    pub fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout)
    }
}
