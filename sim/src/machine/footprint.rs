//! What an action touched, recorded while it runs, for dynamic partial-order
//! reduction (`explore::dpor`): the parts of the state it read, added to or
//! wrote. Off (no recorder) except in that search.
//!
//! The parts are exact, not abstract: one element of one rank's copy of a
//! buffer, one thread. Two actions whose records do not conflict (no part
//! that one writes and the other touches, or that one adds to and the other
//! reads or writes) commute from any state where both are enabled: each
//! reads only parts the other leaves alone, so it runs the same either way
//! (the same local steps, the same race checks) and writes the same.

use super::{Loc, ThreadId};
use std::sync::Mutex;

/// A part of the machine state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// An element in memory: its value, its race shadow (last write and the
    /// reads since), and for a signal cell its clock and whether a `set`
    /// wrote it.
    Elem(Loc),
    /// Whether an element is quiet: the writes in flight toward it and the
    /// dirty lines of it in caches (what a read being local depends on), and
    /// the writes to it in a queue (what an own read returns). Counts: a
    /// write joining or leaving them is an `Add`.
    Meta(Loc),
    /// A thread's frames, clock, write count, launch, cache and what it
    /// rests at.
    Thread(ThreadId),
    /// Whether a thread is running, done or idle (what its sibling blocks
    /// read when they finish, to know which of them joins the host).
    Status(ThreadId),
    /// Whether a thread's in-flight queue is empty (what its fence reads).
    Queue(ThreadId),
    /// An in-flight unit, by its key (`record::unit_key`): issued, then
    /// landed (its landing is enabled by its issue).
    Unit(u64),
    /// Everything (an allocation renumbers buffers and changes what exists).
    Everything,
}

/// How an action touched a part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Touch {
    Read,
    /// Commutes with another `Add` (an `atomic_add` notify of a cell: a
    /// wrapping sum and a clock join; a write joining or leaving the writes
    /// in flight or the dirty lines of an element, or a unit a queue: what
    /// is read of them is whether they are empty), not with a read or a
    /// write.
    Add,
    Write,
}

impl Touch {
    pub fn conflicts(self, other: Touch) -> bool {
        !matches!((self, other), (Touch::Read, Touch::Read) | (Touch::Add, Touch::Add))
    }
}

/// The touches of one action, sorted by part, one per part (the strongest:
/// a read and an add of one part are a write, as they do not commute with
/// an add).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub touches: Vec<(Part, Touch)>,
}

impl Footprint {
    pub fn from_raw(mut raw: Vec<(Part, Touch)>) -> Footprint {
        raw.sort_unstable();
        let mut touches: Vec<(Part, Touch)> = Vec::with_capacity(raw.len());
        for (part, touch) in raw {
            match touches.last_mut() {
                Some((last, was)) if *last == part => {
                    *was = if *was == touch { touch } else { Touch::Write };
                }
                _ => touches.push((part, touch)),
            }
        }
        Footprint { touches }
    }

    /// Whether the action touched `part` (or everything).
    pub fn touches(&self, part: Part) -> bool {
        self.touches.iter().any(|(p, _)| *p == part || *p == Part::Everything)
    }

    pub fn everything(&self) -> bool {
        self.touches.iter().any(|(part, _)| *part == Part::Everything)
    }

    /// Whether the two actions may not commute.
    pub fn conflicts(&self, other: &Footprint) -> bool {
        if self.everything() || other.everything() {
            return true;
        }
        let (mut a, mut b) = (self.touches.iter().peekable(), other.touches.iter().peekable());
        while let (Some((pa, ta)), Some((pb, tb))) = (a.peek(), b.peek()) {
            match pa.cmp(pb) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    if ta.conflicts(*tb) {
                        return true;
                    }
                    a.next();
                    b.next();
                }
            }
        }
        false
    }
}

/// Collects the touches of the action being taken.
#[derive(Debug, Default)]
pub struct Recorder {
    touches: Mutex<Vec<(Part, Touch)>>,
}

impl Recorder {
    pub fn touch(&self, part: Part, touch: Touch) {
        self.touches.lock().unwrap_or_else(|e| e.into_inner()).push((part, touch));
    }

    /// The footprint recorded since the last call, and a fresh start.
    pub fn take(&self) -> Footprint {
        Footprint::from_raw(std::mem::take(&mut *self.touches.lock().unwrap_or_else(|e| e.into_inner())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_commute_reads_commute_and_everything_else_conflicts() {
        let cell = Loc { rank: 1, buffer: 2, index: 0 };
        let print = |touches: &[(Part, Touch)]| Footprint::from_raw(touches.to_vec());
        let add = print(&[(Part::Elem(cell), Touch::Add), (Part::Thread(1), Touch::Write)]);
        let other_add = print(&[(Part::Elem(cell), Touch::Add), (Part::Thread(2), Touch::Write)]);
        let read = print(&[(Part::Elem(cell), Touch::Read), (Part::Thread(3), Touch::Write)]);
        let elsewhere = print(&[(Part::Meta(cell), Touch::Write), (Part::Thread(4), Touch::Write)]);
        assert!(!add.conflicts(&other_add));
        assert!(add.conflicts(&read) && read.conflicts(&add));
        assert!(!read.conflicts(&elsewhere));
        assert!(print(&[(Part::Everything, Touch::Write)]).conflicts(&elsewhere));
        // A read and an add of one part by one action: a write.
        let both = print(&[(Part::Elem(cell), Touch::Add), (Part::Elem(cell), Touch::Read)]);
        assert_eq!(both.touches, vec![(Part::Elem(cell), Touch::Write)]);
        assert!(both.conflicts(&add));
    }
}
