//! The FFI layer: the C++ glue (`cpp/`) and everything Rust does with raw
//! MLIR handles. Every `unsafe` block of the `cclir` crate is in here; the
//! rest of the crate is safe Rust over what these modules return.
//!
//! - [`sys`]: the C declarations of the glue;
//! - [`bridge`]: the Rust half of the C++ pass class (registration,
//!   callbacks, diagnostics, MLIR's thread pool);
//! - [`tools`]: `ccl-opt`, `ccl-lsp-server`, `ccl-reduce`;
//! - [`opt_sarif`]: `ccl-opt --sarif`'s diagnostics;
//! - [`stack`]: the stack they run on, sized under the address-space limit;
//! - [`crash`]: a crash ends them promptly;
//! - [`ir`]: what the library API does with MLIR (contexts, parsing, pass
//!   managers, printing, diagnostics as values);
//! - [`strings`]: strings across the boundary.

pub mod bridge;
pub mod crash;
pub mod ir;
pub mod opt_sarif;
pub mod stack;
pub mod strings;
pub mod sys;
pub mod tools;
