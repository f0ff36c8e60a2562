//! The process's standard streams, as the tools must see them: Rust's
//! standard output reports a write to a closed descriptor as done, and a
//! tool whose verdict is its output must not lose it without an error.

/// Whether file descriptor 1 (standard output) is open.
pub fn stdout_is_open() -> bool {
    // SAFETY: F_GETFD on a descriptor number only reads its flags; no
    // memory is passed.
    unsafe { libc::fcntl(1, libc::F_GETFD) != -1 }
}
