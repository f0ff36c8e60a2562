//! The ccl dialect: its one definition in ODS (`Ccl.td`), which the build
//! script turns into C++ (compiled by the `cclir-dialect-glue` crate with
//! the glue that puts Rust passes and MLIR's tool mains around it, and into
//! the mlir-opt plugin) and into the Rust op views; the contexts
//! that hold it ([`context`]); typed views of its ops ([`ods`]); the names
//! and function kinds of its contract ([`names`], [`functions`]);
//! diagnostics as values ([`diagnostics`]); panics caught at the boundary
//! ([`panic`]). The pass bridge (`ffi::bridge`) registers the passes of
//! `cclir-pass-framework` with MLIR.
//!
//! [`ffi`] is the one FFI layer of cclir over MLIR: every `unsafe` of this
//! crate is in that module, each block with its reason, and everything
//! else, in this crate and the ones over it, is safe Rust over what it
//! returns. (The process around a tool, `cclir-process`, has the other
//! `unsafe` of the project: system calls, the allocator, the stack.)
#![deny(unsafe_code)]

pub mod context;
pub mod ffi;
pub mod functions;
pub mod ir;
pub mod names;
pub mod ods;
pub mod panic;

/// Diagnostics as values live in `cclir-support`, where the simulator
/// reaches them without MLIR.
pub use cclir_support::diagnostics;

pub use context::create_context;
pub use diagnostics::{Diagnostic, Severity, SourceLoc};
