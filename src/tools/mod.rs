//! The tools' side of `ccl-opt`, `ccl-lsp-server` and `ccl-reduce`: the
//! mains, and what `ccl-opt` does beyond mlir-opt, as safe Rust the dialect
//! crate's FFI layer calls back (`cclir_dialect::ffi::tools`):
//!
//! - [`input`]: the input checked before MLIR reads it (nesting depth,
//!   bytecode);
//! - [`output`]: `-o FILE`, written so that a failed run leaves no file;
//! - [`statistics`]: `--mlir-pass-statistics` for the Rust passes;
//! - [`opt_sarif`]: `--sarif=FILE`, the run's diagnostics as a SARIF log;
//! - [`suggest`]: "did you mean" for an unknown pass name.

pub mod input;
pub mod opt_sarif;
pub mod output;
pub mod statistics;
pub mod suggest;

use crate::diagnostics::{Diagnostic, Severity, SourceLoc};
use cclir_dialect::ffi::{
    bridge::Catalog,
    tools::{OptHooks, OutputSink, PipelinePass},
};
use statistics::{Display, PassStatistics};

/// The Rust passes and named pipelines every tool and session registers:
/// the ccl passes.
pub static CATALOG: Catalog = Catalog { passes: cclir_passes::all_passes, pipelines: cclir_passes::all_pipelines };

/// `ccl-opt`: mlir-opt with the ccl dialect and passes.
pub fn opt_main() -> i32 {
    cclir_dialect::ffi::tools::opt_main(&CATALOG, &OPT_HOOKS)
}

/// `ccl-lsp-server`: mlir-lsp-server with every upstream dialect and ccl.
pub fn lsp_server_main() -> i32 {
    cclir_dialect::ffi::tools::lsp_server_main()
}

/// `ccl-reduce`: mlir-reduce with the ccl dialect and passes.
pub fn reduce_main() -> i32 {
    cclir_dialect::ffi::tools::reduce_main(&CATALOG)
}

static OPT_HOOKS: OptHooks = OptHooks {
    check_input,
    open_output,
    suggest,
    print_statistics,
    record_diagnostic: opt_sarif::record,
    write_sarif: opt_sarif::write_sarif,
};

/// Each rejection is recorded for `--sarif` as it is printed.
fn check_input(text: &[u8], name: &str, max_nesting: usize) -> Result<(), String> {
    input::bytecode::check(text).map_err(|corrupt| {
        let diagnostic = corrupt.diagnostic(name);
        let text = diagnostic.to_string();
        opt_sarif::record(diagnostic);
        text
    })?;
    input::check_nesting(text, max_nesting).map_err(|deep| {
        let loc = SourceLoc::File { file: name.to_string(), line: deep.line as u32, col: deep.col as u32 };
        let message = format!("nesting deeper than {} levels: the parser's stack would overflow", deep.limit);
        let text = format!("{loc}: error: {message}");
        opt_sarif::record(Diagnostic { severity: Severity::Error, loc, message, notes: Vec::new() });
        text
    })
}

fn open_output(path: &str) -> Result<Box<dyn OutputSink>, String> {
    Ok(Box::new(output::OutputFile::open(path)?))
}

fn suggest(unknown: &str, names: &[String]) -> Option<String> {
    suggest::nearest(unknown, names.iter().map(String::as_str)).map(str::to_string)
}

fn print_statistics(pipeline: &str, passes: Vec<PipelinePass>, list: bool) {
    let arguments: Vec<&str> = passes.iter().map(|pass| pass.argument.as_str()).collect();
    let mut nesting = statistics::nesting_of(pipeline, &arguments).into_iter();
    let passes: Vec<PassStatistics> = passes
        .into_iter()
        .filter_map(|pass| {
            let nesting = nesting.next().unwrap_or_default();
            Some(PassStatistics { counters: pass.counters?, argument: pass.argument, name: pass.name, nesting })
        })
        .collect();
    let display = if list { Display::List } else { Display::Pipeline };
    eprint!("{}", statistics::report(&passes, display));
}
