//! The process a cclir tool runs in, beyond MLIR: its C entry point
//! ([`c_main!`]), the large stack MLIR's recursion needs ([`stack`]), a
//! crash that ends it promptly ([`crash`]), a global allocator that counts
//! what it holds ([`allocator`], `ccl-sim --max-memory`), and whether
//! standard output is open ([`streams`], `ccl-sim`'s verdict).
//!
//! Each needs `unsafe` (system calls, a global allocator, switching stacks,
//! an exported symbol); each `unsafe` block says why it is sound, each
//! `unsafe fn` has a `# Safety` section. Nothing here knows about MLIR:
//! `cclir-dialect`'s tool mains run on [`stack`] and hand [`crash`] the
//! glue's LLVM handlers.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod allocator;
pub mod crash;
pub mod stack;
pub mod streams;

/// Defines the C `main` of a tool binary (which declares `#![no_main]`) as
/// a call of `$body`, a `fn() -> i32`: Rust's runtime would ignore SIGPIPE
/// and reopen closed standard streams on /dev/null, and mlir-opt does
/// neither (`ccl-opt x.mlir >&-` fails, `ccl-opt --list-passes | head` ends
/// quietly). The process's arguments are read through `std::env`.
///
/// The exported symbol is what makes this `unsafe_code`: a `#[no_mangle]`
/// item could clash with another symbol of the same name. It is sound in a
/// binary with `#![no_main]`, where Rust defines no `main` of its own and
/// the C runtime calls this one.
#[macro_export]
macro_rules! c_main {
    ($body:path) => {
        #[no_mangle]
        pub extern "C" fn main(_argc: ::std::ffi::c_int, _argv: *const *const ::std::ffi::c_char) -> ::std::ffi::c_int {
            $body()
        }
    };
}
