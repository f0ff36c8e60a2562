//! Typed views of the ccl ops, generated from `src/dialect/Ccl.td` by
//! `passes/build.rs`: one `Copy` view per op over a borrowed
//! `OperationRef`, with the operands, results and attributes named as in
//! the .td, and a builder taking them in the same order.
//!
//! ```ignore
//! if let Some(store) = TileStore::of(op) {
//!     let window = store.dst();
//! }
//! let fence = Fence::build(location);
//! ```

use melior::ir::{Location, Operation, OperationRef, Type, Value};

include!(concat!(env!("OUT_DIR"), "/ccl_ops.rs"));
