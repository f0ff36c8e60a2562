//! `-o FILE`, written atomically: the output streams into a temporary file
//! in the same directory, renamed over FILE only when the whole run
//! succeeded, so a failing run leaves an existing FILE as it was. (mlir-opt
//! deletes it.) Standard output streams as mlir-opt's does: the chunks that
//! succeeded are printed even when another fails.

use std::io::{BufWriter, Write};
use std::path::Path;

pub struct Output {
    sink: Sink,
    /// The first write error, reported at `finish`.
    error: Option<std::io::Error>,
}

enum Sink {
    Stdout(BufWriter<std::io::Stdout>),
    File { temp: BufWriter<tempfile::NamedTempFile>, path: String },
}

impl Output {
    /// Opens the output before any work, so an unwritable place fails early
    /// with mlir-opt's message.
    pub fn open(path: &str) -> Result<Self, String> {
        let sink = if path == "-" {
            Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout()))
        } else {
            let target = Path::new(path);
            let dir = match target.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if target.is_dir() {
                return Err(format!("cannot open output file '{path}': Is a directory"));
            }
            let temp = tempfile::Builder::new()
                .prefix(".ccl-opt-")
                .tempfile_in(dir)
                .map_err(|error| format!("cannot open output file '{path}': {}", super::io_message(&error)))?;
            Sink::File { temp: BufWriter::with_capacity(1 << 16, temp), path: path.to_string() }
        };
        Ok(Output { sink, error: None })
    }

    /// Where the printer writes.
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Stdout(out) => out,
            Sink::File { temp, .. } => temp,
        }
    }

    /// Ends the run: on success a file output is renamed into place; on
    /// failure it is discarded (the temporary file is removed).
    pub fn finish(mut self, success: bool) -> Result<(), String> {
        if let Some(error) = self.error.take() {
            return Err(format!("error writing output: {error}"));
        }
        match self.sink {
            Sink::Stdout(mut out) => out.flush().map_err(|e| format!("error writing output: {e}")),
            Sink::File { temp, path } => {
                if !success {
                    return Ok(());
                }
                let temp = temp.into_inner().map_err(|e| format!("cannot write output file '{path}': {}", e.error()))?;
                let _ = temp.as_file().sync_all();
                // Keep the permissions an existing file had; a new file gets
                // the usual 0644 rather than the temporary file's 0600.
                let permissions = std::fs::metadata(&path).map(|meta| meta.permissions()).unwrap_or_else(|_| {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::Permissions::from_mode(0o644)
                });
                let _ = std::fs::set_permissions(temp.path(), permissions);
                temp.persist(&path)
                    .map(|_| ())
                    .map_err(|e| format!("cannot open output file '{path}': {}", super::io_message(&e.error)))
            }
        }
    }
}
