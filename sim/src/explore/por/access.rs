//! What a step touches: the parts of the machine state a step reads or
//! writes, and when two sets of them conflict.
//!
//! The state splits into parts no two threads share except through these:
//! - the elements of every buffer on every rank (`Mem`): the value in
//!   memory, the race shadow of the element (its last write and the reads
//!   since), the writes in flight toward it and the dirty lines of it in any
//!   cache (what decides whether a read of it is quiet), and for a signal
//!   cell its clock and whether a `set` touched it;
//! - a thread's own state (`Thread`): its status, frames, clock, write count
//!   and the clean lines of its cache;
//! - a thread's in-flight queue (`Queue`);
//! - the dirty lines of a thread's cache (`DirtyOf`), which its invalidate
//!   writes back;
//! - `Everything`, for what the analysis does not follow (allocations).
//!
//! Two accesses conflict when they may touch one part and one of them
//! writes it. Reads of one element by two threads do not conflict: each
//! adds itself to the element's shadow, which keeps the reads as a set, and
//! checks only the last write.

use super::absval::{AVal, BufSet};
use super::iset::ISet;
use crate::machine::{Line, Loc, Machine, ThreadId};
use crate::program::{CclOp, Instr, Reg};
use crate::shared::Shared;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Elements `index` of `buffers` on the ranks of the bit set `ranks`.
    Mem {
        buffers: BufSet,
        ranks: u64,
        index: ISet,
    },
    Thread(ThreadId),
    Queue(ThreadId),
    DirtyOf(ThreadId),
    Everything,
}

/// How an access touches its part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Read,
    /// A `ccl.notify atomic_add`: two of them commute (the cell's value is
    /// a wrapping sum, its clock a join; neither reads what it adds to
    /// except to add), but one conflicts with a read or a write.
    Add,
    Write,
}

impl Mode {
    fn conflicts(self, other: Mode) -> bool {
        !matches!((self, other), (Mode::Read, Mode::Read) | (Mode::Add, Mode::Add))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub space: Space,
    pub mode: Mode,
}

/// A set of accesses, with element accesses of one buffer set, rank set and
/// mode merged into one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Accesses {
    list: Vec<Access>,
}

/// Every rank of `ranks` ranks as a bit set.
pub fn all_ranks(ranks: u16) -> u64 {
    if ranks >= 64 {
        u64::MAX
    } else {
        (1u64 << ranks) - 1
    }
}

/// The ranks a peer operand may name, as a bit set (values that are no rank
/// stop the op with an error: they touch nothing).
pub fn peer_ranks(peer: &ISet, ranks: u16) -> u64 {
    match peer.values() {
        Some(values) => values.iter().filter(|v| (0..ranks as i64).contains(*v)).fold(0, |set, v| set | 1 << v),
        None => all_ranks(ranks),
    }
}

impl Accesses {
    pub fn new() -> Accesses {
        Accesses::default()
    }

    pub fn add(&mut self, space: Space, write: bool) {
        self.add_as(space, if write { Mode::Write } else { Mode::Read });
    }

    pub fn add_as(&mut self, space: Space, mode: Mode) {
        if let Space::Mem { buffers, ranks, index } = &space {
            if *ranks == 0 || index.is_empty() {
                return;
            }
            for access in &mut self.list {
                if let Space::Mem { buffers: b, ranks: r, index: i } = &mut access.space {
                    if access.mode == mode && b == buffers && r == ranks {
                        *i = i.union(index);
                        return;
                    }
                }
            }
        } else if self.list.iter().any(|a| a.space == space && a.mode == mode) {
            return;
        }
        self.list.push(Access { space, mode });
    }

    pub fn mem(&mut self, buffers: &BufSet, ranks: u64, index: ISet, write: bool) {
        self.add(Space::Mem { buffers: buffers.clone(), ranks, index }, write);
    }

    pub fn loc(&mut self, loc: Loc, write: bool) {
        self.mem(&BufSet::one(loc.buffer), 1 << loc.rank, ISet::one(loc.index as i64), write);
    }

    pub fn extend(&mut self, other: &Accesses) {
        for access in &other.list {
            self.add_as(access.space.clone(), access.mode);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Access> {
        self.list.iter()
    }

    /// Whether some access of `self` and some of `other` touch one part in
    /// modes that do not commute: one writes, or one adds and the other
    /// does not (`caches`, the state's, hold the dirty lines `DirtyOf`
    /// means).
    /// Whether one of these accesses writes `loc` other than by an add (a
    /// store, a `set`, a write-back of a dirty line of it).
    pub fn overwrites(&self, loc: Loc, caches: &[Shared<BTreeMap<Loc, Line>>]) -> bool {
        let mut probe = Accesses::new();
        probe.loc(loc, false);
        let cell = &probe.list[0].space;
        self.list.iter().any(|a| a.mode == Mode::Write && overlap(&a.space, cell, caches))
    }

    /// The first pair of conflicting accesses, one of each (for the
    /// reduction's debug trace).
    pub fn first_conflict(&self, other: &Accesses, caches: &[Shared<BTreeMap<Loc, Line>>]) -> Option<(Access, Access)> {
        self.list.iter().find_map(|a| {
            let b = other.list.iter().find(|b| a.mode.conflicts(b.mode) && overlap(&a.space, &b.space, caches))?;
            Some((a.clone(), b.clone()))
        })
    }

    pub fn conflicts(&self, other: &Accesses, caches: &[Shared<BTreeMap<Loc, Line>>]) -> bool {
        self.list
            .iter()
            .any(|a| other.list.iter().any(|b| a.mode.conflicts(b.mode) && overlap(&a.space, &b.space, caches)))
    }
}

fn overlap(a: &Space, b: &Space, caches: &[Shared<BTreeMap<Loc, Line>>]) -> bool {
    match (a, b) {
        (Space::Everything, _) | (_, Space::Everything) => true,
        (Space::Mem { buffers: b1, ranks: r1, index: i1 }, Space::Mem { buffers: b2, ranks: r2, index: i2 }) => {
            r1 & r2 != 0 && b1.meets(b2) && i1.meets(i2)
        }
        (Space::Thread(x), Space::Thread(y)) | (Space::Queue(x), Space::Queue(y)) => x == y,
        (Space::DirtyOf(x), Space::DirtyOf(y)) => x == y,
        (Space::DirtyOf(t), Space::Mem { buffers, ranks, index })
        | (Space::Mem { buffers, ranks, index }, Space::DirtyOf(t)) => {
            let Some(cache) = caches.get(*t as usize) else { return false };
            cache.iter().any(|(loc, line)| {
                line.dirty
                    && ranks & (1 << loc.rank) != 0
                    && buffers.contains(loc.buffer)
                    && index.contains(loc.index as i64)
            })
        }
        _ => false,
    }
}

/// Which thread an instruction runs in: its rank, its slot and its id.
#[derive(Clone, Copy, Debug)]
pub struct Runner {
    pub thread: ThreadId,
    pub rank: u16,
    pub slot: u16,
}

/// What the instruction `instr` touches when `runner` runs it and its
/// registers may hold `reg(r)`: the instruction alone (a call's callee, a
/// launch's blocks are the summaries' concern).
pub fn of_instr(machine: &Machine, instr: &Instr, runner: Runner, reg: &dyn Fn(Reg) -> AVal) -> Accesses {
    let mut out = Accesses::new();
    let own = 1u64 << runner.rank;
    let everywhere = all_ranks(machine.ranks);
    let peers = |r: Reg| peer_ranks(&reg(r).ints(), machine.ranks);
    let view = |r: Reg| reg(r).view().cloned();
    // The buffers and elements a view operand names (any, if not a view).
    let whole = |r: Reg| match view(r) {
        Some(v) => (v.buffers.clone(), v.elements()),
        None => (BufSet::any(), ISet::Any),
    };
    let at = |r: Reg, indices: &[Reg], len: i64| match view(r) {
        Some(v) => {
            let idx: Vec<ISet> = indices.iter().map(|i| reg(*i).ints()).collect();
            (v.buffers.clone(), v.elements_at(&idx, len))
        }
        None => (BufSet::any(), ISet::Any),
    };
    let first = |r: Reg| match view(r) {
        Some(v) => (v.buffers.clone(), v.offset.clone()),
        None => (BufSet::any(), ISet::Any),
    };
    match instr {
        Instr::Ccl { op, .. } => match op {
            CclOp::TileStore { dst, .. } => {
                let (b, i) = whole(*dst);
                out.mem(&b, own, i, true);
            }
            CclOp::TensorWrite { dst, indices, .. } => {
                let (b, i) = at(*dst, indices, 1);
                out.mem(&b, own, i, true);
            }
            CclOp::Get { dst, src, peer } => {
                let (b, i) = whole(*src);
                out.mem(&b, peers(*peer), i, false);
                let (b, i) = whole(*dst);
                out.mem(&b, own, i, true);
            }
            CclOp::RemoteStore { dst, peer, .. } => {
                let (b, i) = whole(*dst);
                out.mem(&b, peers(*peer), i, true);
                out.add(Space::Queue(runner.thread), true);
            }
            CclOp::Put { dst, src, peer } => {
                let (b, i) = whole(*src);
                out.mem(&b, own, i, false);
                let (b, i) = whole(*dst);
                out.mem(&b, peers(*peer), i, true);
                out.add(Space::Queue(runner.thread), true);
            }
            CclOp::RemoteLoad { src, peer, .. } => {
                let (b, i) = whole(*src);
                out.mem(&b, peers(*peer), i, false);
            }
            CclOp::TileLoad { src, indices, len, .. } => {
                let (b, i) = at(*src, indices, *len as i64);
                out.mem(&b, own, i, false);
            }
            CclOp::Read { src, indices, .. } => {
                let (b, i) = at(*src, indices, 1);
                out.mem(&b, own, i, false);
            }
            CclOp::Notify { signal, peer, add, .. } => {
                let (b, i) = first(*signal);
                let mode = if *add { Mode::Add } else { Mode::Write };
                out.add_as(Space::Mem { buffers: b, ranks: peers(*peer), index: i }, mode);
            }
            CclOp::Wait { signal, .. } => {
                let (b, i) = first(*signal);
                out.mem(&b, own, i, false);
            }
            CclOp::Fence => out.add(Space::Queue(runner.thread), true),
            CclOp::CacheInvalid { .. } => {
                out.add(Space::DirtyOf(runner.thread), true);
                out.add(Space::Queue(runner.thread), true);
            }
            // Every host's part of a collective: its views on every rank
            // (the union over the hosts covers what the collective moves).
            CclOp::AllReduce { src, dst, .. } if runner.slot == 0 => {
                for (r, write) in [(src, false), (dst, true)] {
                    let (b, i) = whole(*r);
                    out.mem(&b, everywhere, i, write);
                }
                hosts(machine, &mut out);
            }
            CclOp::AllToAllV { send, send_counts, recv, recv_counts } if runner.slot == 0 => {
                for (r, write) in [(send, false), (send_counts, false), (recv, true), (recv_counts, true)] {
                    let (b, i) = whole(*r);
                    out.mem(&b, everywhere, i, write);
                }
                hosts(machine, &mut out);
            }
            CclOp::Barrier if runner.slot == 0 => hosts(machine, &mut out),
            _ => {}
        },
        // Allocations number buffers in the order ranks run them: the
        // analysis does not follow them.
        Instr::Alloc { .. } | Instr::Dealloc { .. } => out.add(Space::Everything, true),
        Instr::Call { callee, width, submit, .. } => {
            let launches = runner.slot == 0
                && (*submit || machine.program.funcs[*callee as usize].kind == crate::program::Kind::InCore);
            if launches {
                for slot in 1..=width.unwrap_or(1).min(machine.per_rank as u64 - 1) as u16 {
                    out.add(Space::Thread(runner.thread + slot), true);
                }
            }
        }
        _ => {}
    }
    out
}

/// A collective's hold on every host.
fn hosts(machine: &Machine, out: &mut Accesses) {
    for rank in 0..machine.ranks {
        out.add(Space::Thread(rank * machine.per_rank), true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_accesses_merge_and_conflict_only_on_shared_elements_with_a_write() {
        let mut a = Accesses::new();
        a.mem(&BufSet::one(1), 0b01, ISet::one(3), false);
        a.mem(&BufSet::one(1), 0b01, ISet::one(5), false);
        assert_eq!(a.iter().count(), 1);
        let mut b = Accesses::new();
        b.mem(&BufSet::one(1), 0b01, ISet::one(4), true);
        let mut c = Accesses::new();
        c.mem(&BufSet::one(1), 0b11, ISet::one(5), true);
        let mut d = Accesses::new();
        d.mem(&BufSet::one(1), 0b01, ISet::one(5), false);
        assert!(!a.conflicts(&b, &[]));
        assert!(a.conflicts(&c, &[]));
        assert!(!a.conflicts(&d, &[]), "two reads do not conflict");
        // Two atomic adds to a cell commute; an add and a read of it do not.
        let cell = || Space::Mem { buffers: BufSet::one(2), ranks: 0b10, index: ISet::one(0) };
        let (mut add, mut other_add, mut wait) = (Accesses::new(), Accesses::new(), Accesses::new());
        add.add_as(cell(), Mode::Add);
        other_add.add_as(cell(), Mode::Add);
        wait.add(cell(), false);
        assert!(!add.conflicts(&other_add, &[]));
        assert!(add.conflicts(&wait, &[]));
    }
}
