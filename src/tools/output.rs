//! `-o FILE` of `ccl-opt` (stdout stays LLVM's, as in mlir-opt).
//!
//! What FILE is decides how it is written:
//! - a symbolic link is followed (to its final target), never replaced;
//! - a device, FIFO or socket is opened and written in place, never removed
//!   (as root, renaming over `/dev/null` would replace the device);
//! - a regular file, or a new one, is written to a temporary file in the
//!   same directory and renamed over FILE only when the whole run succeeded:
//!   a failed run leaves an existing FILE as it was and creates none (mlir-opt
//!   truncates FILE at the start and deletes it on failure);
//! - when that directory takes no new file but FILE itself is writable, the
//!   output is kept in memory and written into FILE when the run succeeded.

use cclir_dialect::ffi::tools::remove_on_signal;
use std::{
    fs::{File, OpenOptions},
    io::{BufWriter, Write},
    os::unix::fs::{FileTypeExt, PermissionsExt},
    path::{Path, PathBuf},
};

pub struct OutputFile {
    /// What the path names after symlinks.
    target: PathBuf,
    /// The path as given, for messages.
    shown: String,
    sink: Sink,
}

enum Sink {
    InPlace(BufWriter<File>),
    Atomic(BufWriter<tempfile::NamedTempFile>),
    Buffered(Vec<u8>),
}

/// LLVM's words for an I/O error (mlir-opt's messages).
pub fn io_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "Is a directory".to_string(),
        _ => {
            let text = error.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_string()
        }
    }
}

/// `path` with every symbolic link along the final component followed (a
/// dangling link names the file it would create).
fn follow_links(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&current) {
            Ok(next) => {
                current = match current.parent() {
                    Some(parent) if next.is_relative() => parent.join(next),
                    _ => next,
                }
            }
            Err(_) => break,
        }
    }
    current
}

impl OutputFile {
    pub fn open(path: &str) -> Result<Self, String> {
        let fail = |error: &std::io::Error| format!("cannot open output file '{path}': {}", io_message(error));
        let target = follow_links(Path::new(path));
        let sink = match std::fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => return Err(format!("cannot open output file '{path}': Is a directory")),
            Ok(meta) if !meta.is_file() => {
                let kind = meta.file_type();
                debug_assert!(kind.is_char_device() || kind.is_block_device() || kind.is_fifo() || kind.is_socket());
                Sink::InPlace(BufWriter::with_capacity(
                    1 << 16,
                    OpenOptions::new().write(true).open(&target).map_err(|e| fail(&e))?,
                ))
            }
            existing => {
                let dir = match target.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                // Created as any new file is: 0666 less the umask.
                let created = tempfile::Builder::new()
                    .prefix(".ccl-opt-")
                    .permissions(std::fs::Permissions::from_mode(0o666))
                    .tempfile_in(&dir);
                match created {
                    Ok(temp) => {
                        // Killed by a signal, the process leaves nothing behind.
                        remove_on_signal(temp.path(), true);
                        Sink::Atomic(BufWriter::with_capacity(1 << 16, temp))
                    }
                    Err(_) if existing.is_ok() => {
                        // The directory refuses a new file; FILE may still
                        // take its new contents. Check now, write at the end.
                        OpenOptions::new().append(true).open(&target).map_err(|e| fail(&e))?;
                        Sink::Buffered(Vec::new())
                    }
                    Err(error) => return Err(fail(&error)),
                }
            }
        };
        Ok(Self { target, shown: path.to_string(), sink })
    }

    pub fn write(&mut self, data: &[u8]) -> Result<(), String> {
        let result = match &mut self.sink {
            Sink::InPlace(file) => file.write_all(data),
            Sink::Atomic(temp) => temp.write_all(data),
            Sink::Buffered(buffer) => {
                buffer.extend_from_slice(data);
                Ok(())
            }
        };
        result.map_err(|error| self.write_error(&error))
    }

    fn write_error(&self, error: &std::io::Error) -> String {
        format!("cannot write output file '{}': {}", self.shown, io_message(error))
    }

    /// Ends the output: kept (renamed into place, or written) when `keep`,
    /// else discarded without touching FILE.
    pub fn close(self, keep: bool) -> Result<(), String> {
        let shown = self.shown.clone();
        let write_error = |error: &std::io::Error| format!("cannot write output file '{shown}': {}", io_message(error));
        match self.sink {
            Sink::InPlace(mut file) => file.flush().map_err(|e| write_error(&e)),
            Sink::Atomic(temp) if keep => {
                let temp = temp.into_inner().map_err(|e| write_error(e.error()))?;
                // An existing file keeps its permissions.
                if let Ok(meta) = std::fs::metadata(&self.target) {
                    let _ = std::fs::set_permissions(temp.path(), meta.permissions());
                }
                let temp_path = temp.path().to_path_buf();
                let persisted = temp.persist(&self.target).map(|_| ()).map_err(|e| write_error(&e.error));
                remove_on_signal(&temp_path, false);
                persisted
            }
            Sink::Atomic(temp) => {
                // Dropping the temporary file removes it.
                remove_on_signal(temp.get_ref().path(), false);
                Ok(())
            }
            Sink::Buffered(buffer) if keep => std::fs::write(&self.target, buffer).map_err(|e| write_error(&e)),
            Sink::Buffered(_) => Ok(()),
        }
    }
}

impl cclir_dialect::ffi::tools::OutputSink for OutputFile {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        OutputFile::write(self, bytes)
    }

    fn close(self: Box<Self>, keep: bool) -> Result<(), String> {
        OutputFile::close(*self, keep)
    }
}

/// Writes `data` to `path` as `-o` does: a regular file through a
/// temporary file renamed over it (a failure leaves it as it was), a device
/// or FIFO in place, a symbolic link's target.
pub fn write_whole(path: &str, data: &[u8]) -> Result<(), String> {
    let mut file = OutputFile::open(path)?;
    match file.write(data) {
        Ok(()) => file.close(true),
        Err(message) => {
            let _ = file.close(false);
            Err(message)
        }
    }
}
