//! The one model of a program that `ccl-insert-comm-fence` and
//! `ccl-verify-comm-order` both read (docs/semantics.md):
//!
//! - [`model`]: the module lowered to a tree of the ops that matter, with
//!   function kinds and the successor edges of multi-block regions;
//! - [`call_graph`]: the call graph (petgraph), its components and wrapper
//!   resolution, all walks iterative;
//! - [`scan`]: the Phase B scan, with per-function publish summaries;
//! - [`trip_guard`]: the `scf.if` that runs exactly when an `scf.for` ran,
//!   which the model reads together with its loop;
//! - `oracle`: a slow reference of Phase B, for tests only (`cfg(test)`,
//!   or the `test-oracles` feature the property tests turn on).
//!
//! The insert pass scans to decide which kernels get a prologue; the
//! checker scans the same way to decide which kernels must have one, and
//! checks the kernels themselves along real successor edges. The slow
//! oracles of the property tests (`oracle` here, `verify_comm_order::oracle`
//! for the kernel rules) share only the tree with them.

pub mod buffers;
pub mod call_graph;
pub mod memory;
pub mod model;
/// Only for tests (the unit tests, and the property tests through the
/// `test-oracles` feature): not in the shipped library.
#[cfg(any(test, feature = "test-oracles"))]
pub mod oracle;
pub mod scan;
pub mod trip_guard;

#[cfg(test)]
mod tests;
