//! `ccl-sim` as the library sees it: the simulator's core (`cclir-sim`, the
//! `sim/` crate, which needs no MLIR) re-exported, its MLIR front end
//! ([`compile`], `cclir-sim-compile`), and [`simulate`], which compiles and
//! explores.

pub use cclir_sim::*;
pub use cclir_sim_compile::compile;

/// Compiles `module` and explores it.
pub fn simulate(module: melior::ir::OperationRef<'_, '_>, options: &Options) -> Result<(Machine, Outcome), InputError> {
    let program = compile(module, options.entry.as_deref(), options.source.as_deref())?;
    cclir_sim::run(program, options)
}
