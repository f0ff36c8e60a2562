//! The set of states a search has visited, shared by its worker threads:
//! sharded hash tables behind locks (two threads rarely meet on one shard).
//!
//! With fingerprints (hash compaction) a state costs its 8 or 16 bytes and
//! the table's slack; two states with one fingerprint count as one, so the
//! second is not explored (`SearchStats::omission_probability` bounds the
//! chance). The exact store keeps every state and compares them whole.

use super::Store;
use crate::machine::State;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Fingerprints are uniformly distributed already: the table uses their low
/// bits as they are.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn write(&mut self, bytes: &[u8]) {
        // Only integers are hashed here; fold anything else in all the same.
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ *byte as u64;
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    fn write_u128(&mut self, value: u128) {
        self.0 = value as u64;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Build = BuildHasherDefault<Identity>;

/// The exact store's table: the states of each fingerprint.
type WholeStates = HashMap<u128, Vec<Arc<State>>, Build>;

/// Shards: a power of two, many more than threads.
const SHARDS: usize = 256;

enum Tables {
    Fingerprint64(Box<[Mutex<HashSet<u64, Build>>]>),
    Fingerprint128(Box<[Mutex<HashSet<u128, Build>>]>),
    /// Per fingerprint, the different states that have it.
    Exact(Box<[Mutex<WholeStates>]>),
}

pub struct Visited {
    tables: Tables,
    len: AtomicUsize,
}

fn shards<T: Default>() -> Box<[Mutex<T>]> {
    (0..SHARDS).map(|_| Mutex::new(T::default())).collect()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shard of a fingerprint: its top bits (the table uses the low ones).
fn shard(fingerprint: u128) -> usize {
    (fingerprint >> 120) as usize % SHARDS
}

impl Visited {
    pub fn new(store: Store) -> Visited {
        let tables = match store {
            Store::Fingerprint { bits: 64 } => Tables::Fingerprint64(shards()),
            Store::Fingerprint { .. } => Tables::Fingerprint128(shards()),
            Store::Exact => Tables::Exact(shards()),
        };
        Visited { tables, len: AtomicUsize::new(0) }
    }

    /// Adds `state` (whose fingerprint is `fingerprint`); `true` if it was
    /// not there yet.
    pub fn insert(&self, fingerprint: u128, state: &State) -> bool {
        let shard = shard(fingerprint);
        let new = match &self.tables {
            Tables::Fingerprint64(tables) => {
                lock(&tables[shard]).insert(fingerprint as u64 ^ (fingerprint >> 64) as u64)
            }
            Tables::Fingerprint128(tables) => lock(&tables[shard]).insert(fingerprint),
            Tables::Exact(tables) => {
                let mut table = lock(&tables[shard]);
                let same = table.entry(fingerprint).or_default();
                if same.iter().any(|kept| **kept == *state) {
                    false
                } else {
                    same.push(Arc::new(state.clone()));
                    true
                }
            }
        };
        if new {
            self.len.fetch_add(1, Ordering::Relaxed);
        }
        new
    }

    /// Whether `state` was visited.
    pub fn contains(&self, fingerprint: u128, state: &State) -> bool {
        let shard = shard(fingerprint);
        match &self.tables {
            Tables::Fingerprint64(tables) => {
                lock(&tables[shard]).contains(&(fingerprint as u64 ^ (fingerprint >> 64) as u64))
            }
            Tables::Fingerprint128(tables) => lock(&tables[shard]).contains(&fingerprint),
            Tables::Exact(tables) => {
                lock(&tables[shard]).get(&fingerprint).is_some_and(|same| same.iter().any(|kept| **kept == *state))
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the tables hold (a slot is its key and a control byte; the
    /// exact store's states are counted apart, by `memory::in_use`).
    pub fn table_bytes(&self) -> u64 {
        fn bytes<T>(capacity: usize) -> u64 {
            // hashbrown keeps a load factor of 7/8 at most.
            (capacity as u64 * 8 / 7) * (std::mem::size_of::<T>() as u64 + 1)
        }
        match &self.tables {
            Tables::Fingerprint64(tables) => tables.iter().map(|t| bytes::<u64>(lock(t).capacity())).sum(),
            Tables::Fingerprint128(tables) => tables.iter().map(|t| bytes::<u128>(lock(t).capacity())).sum(),
            Tables::Exact(tables) => tables.iter().map(|t| bytes::<(u128, Vec<Arc<State>>)>(lock(t).capacity())).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_hashing_keeps_the_low_bits() {
        let mut hasher = Identity::default();
        hasher.write_u128((7u128 << 64) | 42);
        assert_eq!(hasher.finish(), 42);
    }
}
