//! A state's fingerprint: 128 bits of SipHash-1-3 over everything that makes
//! up the state's identity (its `Hash`, which skips what is derived from the
//! rest and the cost counts), so the visited set can keep 16 or 8 bytes a
//! state instead of the state (hash compaction).

use crate::machine::State;
use siphasher::sip128::{Hasher128, SipHasher13};
use std::hash::Hash;

/// Fixed keys: the same state has the same fingerprint in every run, so a
/// search is reproducible.
const KEYS: (u64, u64) = (0x6363_6c2d_7369_6d00, 0x0066_696e_6765_7270);

/// The 128-bit fingerprint of `state`.
pub fn fingerprint(state: &State) -> u128 {
    let mut hasher = SipHasher13::new_with_keys(KEYS.0, KEYS.1);
    state.hash(&mut hasher);
    hasher.finish128().as_u128()
}
