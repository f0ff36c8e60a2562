//! `cclir._cclir`: the extension module behind the Python package `cclir`
//! (python/cclir/), a thin layer over the root crate's library API. Every
//! call that runs MLIR or the simulator releases the GIL while it runs; each
//! makes its own `cclir::Session` (an MLIR context is not shared between
//! threads), and only owned values cross back.
#![forbid(unsafe_code)]

mod formula;
mod objects;
mod pipeline;
mod simulate;

use pyo3::prelude::*;

#[pymodule]
fn _cclir(module: &Bound<'_, PyModule>) -> PyResult<()> {
    formula::register(module)?;
    objects::register(module)?;
    pipeline::register(module)?;
    simulate::register(module)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
