//! A state's fingerprint: 128 bits of SipHash-1-3 over everything that makes
//! up the state's identity (its `Hash`, which skips what is derived from the
//! rest and the cost counts), so the visited set can keep 16 or 8 bytes a
//! state instead of the state (hash compaction). The parts of a state behind
//! `Shared` enter it as their own remembered digests (`crate::shared`).

use crate::machine::State;
use crate::shared::digest;

/// The 128-bit fingerprint of `state`.
pub fn fingerprint(state: &State) -> u128 {
    digest(state)
}
