//! From MLIR to the simulator's program: every function reachable from the
//! entry becomes flat code (`cclir_sim::program::Program`). Structured ops
//! (`scf.for`, `scf.while`, `scf.if`, `scf.index_switch`,
//! `scf.execute_region`, `scf.parallel`, `scf.forall`) become branches; `cf`
//! branches become moves into block-argument registers and jumps. An op the
//! simulator does not execute is a located error here, before anything
//! runs: nothing is skipped silently.
//!
//! - [`compile`] (here): the module's functions, the entry, the launch
//!   slots, the entry's argument names;
//! - `function`: one function's code, and the dispatch of each op to its
//!   family: `arith` (scalar and vector arithmetic), `control` (`func`,
//!   `cf`, calls), `scf` (structured control flow), `memref` (views,
//!   allocations), `ccl` (the ccl ops);
//! - `code`: the code being emitted (registers, labels, loops);
//! - [`types`]: the simulator's view of MLIR's types;
//! - `entry`: which function runs, and its argument names in the source.
#![forbid(unsafe_code)]

mod arith;
mod ccl;
mod code;
mod control;
mod entry;
mod function;
mod memref;
mod scf;
pub mod types;

use cclir_dialect::ffi::locations::source_loc_of;
use cclir_dialect::ir;
use cclir_sim::program::{Func, Instr, Kind, Program};
use cclir_sim::InputError;
use cclir_support::diagnostics::SourceLoc;
use melior::ir::{operation::OperationLike, OperationRef};
use rustc_hash::FxHashMap;

pub use types::{ty_of, MAX_VECTOR_LANES};

/// A located error at `op`.
fn error_at(op: OperationRef<'_, '_>, message: impl Into<String>) -> InputError {
    InputError { loc: source_loc_of(op.location()), message: message.into() }
}

/// Compiles the functions reachable from `entry` (or the default entry: a
/// function named `main`, else the one orchestration-like function nobody
/// calls) of `module`.
/// `source` is the text `module` was parsed from, if the caller has it: the
/// entry's argument names (`--arg rows=1024`) come from it, since MLIR keeps
/// no SSA names.
pub fn compile(module: OperationRef<'_, '_>, entry: Option<&str>, source: Option<&str>) -> Result<Program, InputError> {
    let mut functions: FxHashMap<String, OperationRef<'_, '_>> = FxHashMap::default();
    let mut order = Vec::new();
    let body = ir::regions(module).next().and_then(|r| ir::blocks(r).next());
    for op in body.into_iter().flat_map(ir::ops) {
        if ir::op_name(op) == "func.func" {
            let name = ir::symbol_name(op).unwrap_or_default().to_string();
            order.push(name.clone());
            functions.insert(name, op);
        }
    }
    let entry_name = match entry {
        Some(name) if !functions.contains_key(name) => {
            return Err(InputError {
                loc: source_loc_of(module.location()),
                message: format!("no function @{name} to run (--entry)"),
            })
        }
        Some(name) => name.to_string(),
        None => entry::default_entry(&order, &functions)
            .map_err(|message| InputError { loc: source_loc_of(module.location()), message })?,
    };
    let mut compiler = function::Compiler::new(&functions);
    let entry_id = compiler.function_id(&entry_name);
    let mut funcs: Vec<Func> = Vec::new();
    while let Some(name) = compiler.queued(funcs.len()) {
        let func = compiler.compile_function(functions[&name])?;
        funcs.push(func);
    }
    let (slots, widest) = launch_slots(&funcs, entry_id as usize);
    // The names are in `source` if the entry was parsed from it, else in the
    // file its location names (`--mlir-print-debuginfo` output keeps the
    // original file's locations).
    let entry_arg_names = match source_loc_of(functions[&entry_name].location()) {
        SourceLoc::File { file, line, col } => {
            let at = |text: &str| entry::argument_names(text, &entry_name, line as usize, col as usize);
            source.and_then(at).or_else(|| std::fs::read_to_string(&file).ok().as_deref().and_then(at))
        }
        SourceLoc::Unknown => None,
    }
    .unwrap_or_default();
    Ok(Program { funcs, sites: compiler.into_sites(), entry: entry_id, slots, widest, entry_arg_names })
}

/// The block slots every rank has, set by the widest launch (a kernel that
/// is the entry launches with its own width), and the site of that launch.
fn launch_slots(funcs: &[Func], entry: usize) -> (u64, Option<cclir_sim::program::SiteId>) {
    let mut slots = 1;
    let mut widest = None;
    if let Some(width) = funcs[entry].launch_width.filter(|_| funcs[entry].kind == Kind::InCore) {
        slots = width;
        widest = Some(funcs[entry].site);
    }
    for func in funcs {
        for instr in &func.code {
            if let Instr::Call { width: Some(width), site, .. } = instr {
                if *width > slots {
                    slots = *width;
                    widest = Some(*site);
                }
            }
        }
    }
    (slots, widest)
}
