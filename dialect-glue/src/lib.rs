//! The ccl dialect's C++ glue, built by this crate's build script: the
//! dialect from what mlir-tblgen made of `Ccl.td` (`cclir-dialect`'s build
//! script), its C API handle, the one MLIR pass class every Rust pass is
//! registered as, and MLIR's tool mains (`cpp/`), compiled into the static
//! library `cclir_mlir_glue`; and the mlir-opt plugin,
//! `libccl_dialect_plugin.so`, which the root package puts beside the tools.
//!
//! There is no Rust here. `cclir-dialect`'s FFI layer declares the glue's
//! functions and links the library (`ffi::sys`, not bundled into its rlib);
//! this crate provides it. That split is what lets the Rust crates compile
//! while the C++ does: a crate waits for the build scripts of the crates it
//! depends on, and only the targets that link (the tools, the test targets,
//! the Python extension) depend on this one. Cargo gives each of them the
//! library's directory; rustc puts the library right after `cclir-dialect`
//! on the link line, before the MLIR archives it needs, as a linker that
//! reads archives in order (GNU ld) requires.
#![forbid(unsafe_code)]
#![no_std]
