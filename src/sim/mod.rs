//! `ccl-sim`'s MLIR front end, and the simulator's core re-exported: the
//! core (`cclir-sim`, the `sim/` crate) needs no MLIR; [`compile`] turns a
//! parsed module into its program, and [`simulate`] compiles and explores.

pub mod compile;

pub use cclir_sim::*;
pub use compile::compile;

/// Compiles `module` and explores it.
pub fn simulate(module: melior::ir::OperationRef<'_, '_>, options: &Options) -> Result<(Machine, Outcome), InputError> {
    let program = compile(module, options.entry.as_deref(), options.source.as_deref())?;
    cclir_sim::run(program, options)
}
