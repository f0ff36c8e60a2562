//! The FFI layer: every `unsafe` of cclir. What melior wraps is used
//! through melior; what it does not (or wraps at a cost the passes cannot
//! pay per op) is here, each `unsafe` block with the reason it is sound,
//! behind functions that are safe to call.
//!
//! Reading and changing IR:
//! - [`walk`]: ops, blocks and regions, and a pre-order walk;
//! - [`operations`]: names, operands, results, definitions, successors;
//! - [`attributes`], [`types`], [`locations`]: what melior does not read;
//! - [`rewrite`]: moving, erasing and rewiring through shared references;
//! - [`identifiers`]: op names as uniqued identifiers;
//! - [`keys`]: identities of IR objects (which never turn back into
//!   references);
//! - [`threads`]: ops handed to the tasks of a parallel loop, one each;
//! - [`context`]: the context of an object, and the dialect's handle.
//!
//! Running MLIR:
//! - [`bridge`]: the Rust half of the C++ pass class (registration of a
//!   [`bridge::Catalog`] of passes, callbacks, diagnostics, MLIR's thread
//!   pool);
//! - [`driver`]: parsing as mlir-opt does, pass managers from MLIR's
//!   pipeline parser, streaming print, diagnostics as values;
//! - [`tools`]: the `ccl-opt`, `ccl-lsp-server` and `ccl-reduce` mains,
//!   with the tool's hooks ([`tools::OptHooks`]) as safe Rust, on the
//!   stack and behind the crash watchdog of `cclir-process`;
//! - [`jit`]: MLIR's JIT, for functions over integers, called with their
//!   types checked (the tests run lowered code through it);
//! - [`strings`]: strings across the boundary.
//!
//! The C++ glue (`dialect-glue/cpp/`, built by the `cclir-dialect-glue`
//! crate): [`sys`] declares it, item for item.
#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod attributes;
pub mod bridge;
pub mod context;
pub mod driver;
pub mod identifiers;
pub mod jit;
pub mod keys;
pub mod locations;
pub mod operations;
pub mod rewrite;
pub mod strings;
pub mod sys;
pub mod threads;
pub mod tools;
pub mod types;
pub mod walk;
