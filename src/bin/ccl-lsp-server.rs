//! `ccl-lsp-server`: MLIR's language server with every upstream dialect and
//! ccl (diagnostics, hover, go-to-definition in any LSP editor; docs/ccl-lsp-server.md).
//!
//! Its entry point is C's `main` (`cclir_process::c_main!`, which says why).
#![no_main]
#![forbid(unsafe_code)]

cclir::process::c_main!(cclir::tools::lsp_server_main);
