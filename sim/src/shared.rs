//! Parts of a machine state shared between the states that have them, and
//! copied only when a step writes them (copy on write), each remembering its
//! own hash.
//!
//! A step changes a few threads, cache lines and elements; the exhaustive
//! search copies a state for every successor and fingerprints each. With
//! the parts behind [`Shared`], a copy is a reference count per part, and a
//! fingerprint hashes each part's remembered 128-bit digest instead of its
//! contents: only the parts a step wrote are hashed again.

use siphasher::sip128::{Hasher128, SipHasher13};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

/// Fixed keys: the same state has the same digests and fingerprint in every
/// run, so a search is reproducible.
const KEYS: (u64, u64) = (0x6363_6c2d_7369_6d00, 0x0066_696e_6765_7270);

/// 128 bits of SipHash-1-3 over `value`'s `Hash`.
pub fn digest<T: Hash + ?Sized>(value: &T) -> u128 {
    let mut hasher = SipHasher13::new_with_keys(KEYS.0, KEYS.1);
    value.hash(&mut hasher);
    hasher.finish128().as_u128()
}

/// A value shared by reference count until written ([`Shared::make_mut`]
/// copies it if another state holds it too), whose `Hash` is its digest,
/// computed once per version of the value.
pub struct Shared<T>(Arc<Versioned<T>>);

struct Versioned<T> {
    value: T,
    /// The digest of `value`, once asked for; cleared when it is written.
    digest: OnceLock<u128>,
}

impl<T: Clone> Clone for Versioned<T> {
    fn clone(&self) -> Self {
        // The copy is about to be written: its digest would be stale.
        Versioned { value: self.value.clone(), digest: OnceLock::new() }
    }
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(Versioned { value, digest: OnceLock::new() }))
    }
}

impl<T: Clone> Shared<T> {
    /// The value, to write: copied first if another state shares it.
    pub fn make_mut(this: &mut Shared<T>) -> &mut T {
        let versioned = Arc::make_mut(&mut this.0);
        versioned.digest.take();
        &mut versioned.value
    }
}

impl<T: Hash> Shared<T> {
    /// The digest of the value (`digest`), computed on first use.
    pub fn digest(&self) -> u128 {
        *self.0.digest.get_or_init(|| digest(&self.0.value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

/// Writing through `*shared` or a field (`state.threads[t].status = ..`) is
/// [`Shared::make_mut`].
impl<T: Clone> std::ops::DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Shared::make_mut(self)
    }
}

impl<T: Hash> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.digest());
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.value == other.0.value
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.value.fmt(f)
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Self {
        Shared::new(T::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_copies_a_shared_value_and_forgets_its_digest() {
        let mut a = Shared::new(vec![1u32, 2, 3]);
        let b = a.clone();
        let before = a.digest();
        Shared::make_mut(&mut a)[0] = 7;
        assert_eq!(*b, vec![1, 2, 3], "the other holder keeps the old value");
        assert_eq!(b.digest(), before);
        assert_ne!(a.digest(), before);
        assert_eq!(a.digest(), digest(&vec![7u32, 2, 3]));
        // Written back to the old value, it hashes as before again.
        a[0] = 1;
        assert_eq!(a.digest(), before);
        assert_eq!(a, b);
    }
}
