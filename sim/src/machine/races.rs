//! Vector clocks and the race checks: each access against the shadow
//! state of its location (a stale read, two unordered accesses).

use super::footprint::{Part, Touch};
use super::*;

impl Machine {
    pub(super) fn access(&self, state: &State, t: ThreadId, site: SiteId, write: bool) -> Access {
        let thread = &state.threads[t as usize];
        Access {
            thread: t,
            epoch: thread.clock[t as usize],
            seq: thread.writes,
            site,
            launch: thread.launch,
            kernel: if self.slot_of(t) == 0 { None } else { thread.kernel },
            write,
        }
    }

    /// Race checks and shadow update for a read of `loc` by `t` that
    /// returned `cell`.
    pub(super) fn check_read(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        cell: Cell,
        site: SiteId,
    ) -> Result<(), Fail> {
        self.touch(Part::Elem(loc), Touch::Read);
        let me = self.access(state, t, site, false);
        let clock = state.threads[t as usize].clock.clone();
        let shadow = shadow_of(state, loc);
        if let Some(write) = shadow.write {
            unordered_with(&write, &me, loc, &clock)?;
            // The read must return the last write when that write happens
            // before it (or is this thread's own).
            if cell.writer != Some(WriteId { thread: write.thread, seq: write.seq }) {
                return Err(Finding::Race(Race { kind: RaceKind::StaleRead, loc, first: write, second: me }));
            }
        }
        shadow.reads.retain(|r| r.thread != t);
        shadow.reads.push(me);
        shadow.reads.sort();
        Ok(())
    }

    /// Race checks and shadow update for a write of `loc` by `t`; returns the
    /// write's identity.
    pub(super) fn check_write(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<WriteId, Fail> {
        self.touch(Part::Elem(loc), Touch::Write);
        let writes = &mut state.threads[t as usize].writes;
        *writes = writes
            .checked_add(1)
            .ok_or_else(|| limit(Some(site), "a thread made 2^32 writes: they cannot be told apart: no conclusion"))?;
        let me = self.access(state, t, site, true);
        let clock = state.threads[t as usize].clock.clone();
        let shadow = shadow_of(state, loc);
        for earlier in shadow.write.iter().chain(&shadow.reads) {
            unordered_with(earlier, &me, loc, &clock)?;
        }
        shadow.reads.clear();
        shadow.write = Some(me);
        match shadow.newest.binary_search_by_key(&t, |(thread, _)| *thread) {
            Ok(at) => shadow.newest[at].1 = me.seq,
            Err(at) => shadow.newest.insert(at, (t, me.seq)),
        }
        Ok(WriteId { thread: t, seq: me.seq })
    }
}

/// The shadow of `loc`, to update (an element accessed for the first time
/// has none yet); `loc`'s buffer exists.
fn shadow_of(state: &mut State, loc: Loc) -> &mut Shadow {
    let copy = &mut state.buffers[loc.buffer as usize].shadow[loc.rank as usize];
    Shared::make_mut(copy).entry(loc.index).or_default()
}

/// Race (b): `earlier`, by another thread, does not happen before `me`
/// (whose thread's clock is `clock`).
pub(super) fn unordered_with(earlier: &Access, me: &Access, loc: Loc, clock: &[u32]) -> Result<(), Fail> {
    if earlier.thread != me.thread && !happens_before(earlier, clock) {
        return Err(Finding::Race(Race { kind: RaceKind::Unordered, loc, first: *earlier, second: *me }));
    }
    Ok(())
}

/// Whether access `a` happens before a thread whose clock is `clock`.
pub(super) fn happens_before(a: &Access, clock: &[u32]) -> bool {
    a.epoch <= clock[a.thread as usize]
}

/// `clock` joined with `other`, in place.
pub(super) fn join_with(clock: &mut [u32], other: &[u32]) {
    for (x, y) in clock.iter_mut().zip(other) {
        *x = (*x).max(*y);
    }
}

/// `clock` joined with `other`: written (copied first if shared) only where
/// `other` is ahead, so a clock that covers it already stays shared and
/// keeps its digest.
pub(super) fn join_into(clock: &mut Shared<Vec<u32>>, other: &[u32]) {
    if clock.iter().zip(other).any(|(x, y)| y > x) {
        join_with(Shared::<Vec<u32>>::make_mut(clock), other);
    }
}

pub(super) fn tick(clock: &mut Shared<Vec<u32>>, t: ThreadId) {
    Shared::make_mut(clock)[t as usize] += 1;
}
