//! Small random programs that reach every rule of SEMANTICS.md's execution
//! model: the input of the differential tests that hold ccl-sim's reduced
//! searches (`--por on`, `--por dpor`, the local-step, quiet-read,
//! eager-wait and own-pending rules) against the unreduced reference.
//!
//! `exchange` writes message passing that is synchronized by construction,
//! with one notifier per cell, positive adds only and no two writes of one
//! element in flight: the patterns where a reduction breaks never occur in
//! it. Here a program is a handful of *episodes*, each a message from a
//! producer block to a consumer block (on another rank or on the same rank):
//! the producer publishes one or two elements (`tensor_write`, `tile_store`
//! of `vector<1xi32>` or `vector<2xi32>`, a `get` into a window, a
//! `remote_store`, a `put`, or a plain-buffer write nobody writes back) and
//! signals a cell of the consumer's rank; the consumer waits and reads the
//! data (`read`, `tile_load`, `remote_load`, `get`). What varies per
//! episode: the signal protocol (`atomic_add` of +1 or +2, a notify loop, two
//! notifiers of one cell, `set`, an `add` then a `set`, an add of +2 then -1,
//! waits `ge` or `eq`, a pure wait loop, the consumer resetting the cell with
//! a negative add or a `set 0`), a handshake (the consumer reads the data
//! early, keeping the line in its cache, and acknowledges before the producer
//! writes), two writes of one element in flight together (two remote writes,
//! or two write-backs started by `cacheinvalid`) read back by the writer
//! while they are in flight, an ordinary `ccl.read` of the signal cell,
//! views chosen by `arith.select`, a store through a helper function, and
//! the consumer's rest made conditional on the value it read (a stale value
//! steers control flow). Around the episodes: one or two launches of the
//! kernel (caches survive from one to the next), collectives (`barrier`,
//! `all_reduce`, an unlowered `all_to_all_v`, sometimes in a wrapper) whose
//! output the next launch reads, a second kernel that reads the first's data,
//! launches from a host loop or by `ccl.submit`, and sometimes markers placed
//! at random.
//!
//! Episodes are laid out in one global order and every block runs its part of
//! them in that order, so the raw programs are deadlock-free by construction
//! unless a hazard was chosen on purpose (a cell shared by two episodes, a
//! `wait eq` on a value that may be missed, a `set` that can erase an add, a
//! fast path that skips a wait, two launches with no collective between
//! them). Raw programs race (no markers); most are race-free once
//! `ccl-insert-comm-fence` has placed the rules' markers, the rest race or
//! deadlock. Every write writes its own constant (plus 1000 per round), so a
//! stale value is a visible one.
//!
//! Each program reports the [`Feature`]s it contains; [`Coverage`]
//! accumulates them over many programs and prints the table
//! `ccl-gen --litmus-coverage N` shows.
//!
//! The generator is one `Gen` whose methods are spread over the
//! submodules by job: `shape` holds the program's shape (its blocks,
//! buffers, cells, launch plan) and the generator's state, `operands` the
//! names, constants, types and views a statement uses, `signals` the
//! notifies and waits on signal cells, `publish` and `fetch` the producer's
//! writes and the consumer's reads, `episode` one message from a producer
//! to a consumer, `kernel` a kernel's episodes and the code around them,
//! `render` the kernel bodies as text, and `host` the orchestration
//! function and the whole program.

mod coverage;
mod episode;
mod feature;
mod fetch;
mod host;
mod kernel;
mod operands;
mod publish;
mod render;
mod shape;
mod signals;
#[cfg(test)]
mod tests;

pub use coverage::{coverage, Coverage};
pub use feature::{all_features, Feature};

use shape::Gen;
use std::collections::BTreeSet;

/// A generated litmus program, the rank count to run it with, and what it
/// contains.
#[derive(Clone, Debug)]
pub struct Litmus {
    pub ranks: u16,
    pub text: String,
    pub features: BTreeSet<Feature>,
}

/// The litmus program of `seed`.
pub fn litmus_program(seed: u64) -> Litmus {
    Gen::new(seed).program(seed)
}
