//! Ops handed to the tasks of a parallel loop. melior's references are
//! neither `Send` nor `Sync`, because MLIR lets only one thread change an
//! op at a time; its pass manager still runs a function pass on many
//! functions at once, since an op isolated from above (a function) is one
//! thread's to read and change while its siblings are other threads'.
//! [`Exclusive`] gives the passes the same: every op it holds goes to one
//! task only.

use melior::ir::OperationRef;
use std::sync::atomic::{AtomicBool, Ordering};

/// Distinct ops, each of which one task may take (and only one).
pub struct Exclusive<'c, 'a> {
    ops: Vec<OperationRef<'c, 'a>>,
    taken: Vec<AtomicBool>,
}

// SAFETY: the ops are distinct (checked in `new`) and `take` hands each to
// one caller at most, so no two threads reach the same op through this
// value; the ops are isolated from above (the caller's promise, which every
// use keeps: functions), so a task that changes its op touches nothing
// another task holds. What the ops share, the context, is thread-safe.
unsafe impl Sync for Exclusive<'_, '_> {}

impl<'c, 'a> Exclusive<'c, 'a> {
    /// `ops` for the tasks of one loop. Panics if an op occurs twice.
    pub fn new(ops: Vec<OperationRef<'c, 'a>>) -> Self {
        let mut seen: Vec<usize> = ops.iter().map(|op| op.to_raw().ptr as usize).collect();
        seen.sort_unstable();
        assert!(seen.windows(2).all(|pair| pair[0] != pair[1]), "an op handed to two tasks");
        let taken = ops.iter().map(|_| AtomicBool::new(false)).collect();
        Self { ops, taken }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Op `index`, the first time it is asked for; `None` after that.
    pub fn take(&self, index: usize) -> Option<OperationRef<'c, 'a>> {
        let first = !self.taken[index].swap(true, Ordering::AcqRel);
        first.then_some(self.ops[index])
    }
}
