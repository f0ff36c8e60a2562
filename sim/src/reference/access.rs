//! Memory through a thread's private non-coherent cache and its in-flight
//! queue, and the race checks of every access against the location's whole
//! history.

use super::*;

impl Reference {
    /// The copy `loc` is in: it must exist ("an access to a buffer before
    /// this rank allocated it", "after it deallocated it" are errors).
    pub(super) fn memory<'s>(&self, state: &'s State, loc: Loc, site: SiteId) -> Result<&'s Value, Finding> {
        let buffer = &state.buffers[loc.buffer as usize];
        match &buffer.copies[loc.rank as usize] {
            Copy::Live(values) => {
                values.get(loc.index as usize).ok_or_else(|| error(Some(site), "an access out of its buffer"))
            }
            Copy::Freed => Err(error(Some(site), format!("an access to a buffer rank {} deallocated", loc.rank))),
            Copy::Absent => Err(error(
                Some(site),
                format!("an access to rank {}'s copy of a buffer before rank {} allocated it", loc.rank, loc.rank),
            )),
        }
    }

    /// A GM read of `loc` by `t` through its cache.
    ///
    /// "Own accesses are coherent: a block's read of an element returns the
    /// block's own newest write of that element when it has one that has
    /// not yet landed ..., whether it sits in the block's cache or in its
    /// in-flight queue." Otherwise: "A GM read ... hits the cache if the
    /// line is there, else fetches from memory and keeps the line."
    pub(super) fn read(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<u64, Finding> {
        self.memory(state, loc, site)?;
        let own = self.own_unlanded(state, t, loc);
        let value = match own {
            Some(value) => value,
            None => match state.caches[t as usize].get(&loc) {
                Some(line) => line.value.clone(),
                None => {
                    let value = self.memory(state, loc, site)?.clone();
                    state.caches[t as usize].insert(loc, Line { value: value.clone(), dirty: false });
                    value
                }
            },
        };
        tick(state, t);
        self.check_read(state, t, loc, &value.origin, site)?;
        Ok(value.bits)
    }

    /// `t`'s newest data write of `loc`, if it has not landed: a dirty line
    /// of `t`'s cache or a write in `t`'s queue.
    fn own_unlanded(&self, state: &State, t: ThreadId, loc: Loc) -> Option<Value> {
        let newest =
            state.history.get(&loc)?.iter().filter(|a| a.write && a.thread == t).filter_map(|a| a.seq).max()?;
        let is_newest =
            |value: &Value| matches!(value.origin, Origin::Write { thread, seq, .. } if thread == t && seq == newest);
        if let Some(line) = state.caches[t as usize].get(&loc).filter(|line| line.dirty && is_newest(&line.value)) {
            return Some(line.value.clone());
        }
        state.queues[t as usize].iter().find(|p| p.loc == loc && is_newest(&p.value)).map(|p| p.value.clone())
    }

    /// A read straight from memory, behind every cache (a collective's).
    pub(super) fn read_direct(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<u64, Finding> {
        let value = self.memory(state, loc, site)?.clone();
        tick(state, t);
        self.check_read(state, t, loc, &value.origin, site)?;
        Ok(value.bits)
    }

    /// A data write of `loc` by `t`: "A write (`tile_store`,
    /// `tensor_write`, the `dst` of `get`) goes into the cache as a dirty
    /// line, visible to nobody else."
    pub(super) fn write_cached(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(), Finding> {
        let value = self.write(state, t, loc, bits, site)?;
        state.caches[t as usize].insert(loc, Line { value, dirty: true });
        Ok(())
    }

    /// A data write of `loc` by `t` sent toward memory: "`put`/
    /// `remote_store` enter the in-flight queue toward the peer's memory".
    /// The sender's cache is not touched.
    pub(super) fn write_queued(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(), Finding> {
        let value = self.write(state, t, loc, bits, site)?;
        enqueue(state, t, Pending { loc, value, site });
        Ok(())
    }

    /// A data write straight into memory (a collective's).
    pub(super) fn write_direct(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(), Finding> {
        let value = self.write(state, t, loc, bits, site)?;
        if let Copy::Live(values) = &mut state.buffers[loc.buffer as usize].copies[loc.rank as usize] {
            values[loc.index as usize] = value;
        }
        Ok(())
    }

    /// The write event itself: checked against the location's history, and
    /// the value it makes.
    fn write(&self, state: &mut State, t: ThreadId, loc: Loc, bits: u64, site: SiteId) -> Result<Value, Finding> {
        self.memory(state, loc, site)?;
        tick(state, t);
        let thread = &mut state.threads[t as usize];
        thread.writes += 1;
        let (seq, clock) = (thread.writes, thread.clock.clone());
        let me = Access { thread: t, clock: clock.clone(), write: true, seq: Some(seq), site };
        // (b): every earlier access of another thread must happen before it.
        let history = state.history.entry(loc).or_default();
        if let Some(earlier) = history.iter().find(|a| a.thread != t && !a.happens_before(&clock)) {
            return Err(Finding::Race { kind: RaceKind::Unordered, loc, first: earlier.clone(), second: me });
        }
        insert_sorted(history, me);
        Ok(Value { bits, origin: Origin::Write { thread: t, seq, clock } })
    }

    /// A read of `loc` by `t` that returned the value `origin` wrote,
    /// checked against the location's history.
    fn check_read(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        origin: &Origin,
        site: SiteId,
    ) -> Result<(), Finding> {
        let clock = state.threads[t as usize].clock.clone();
        let me = Access { thread: t, clock: clock.clone(), write: false, seq: None, site };
        let history = state.history.entry(loc).or_default();
        // (b): every earlier write of another thread must happen before it.
        if let Some(write) = history.iter().find(|a| a.write && a.thread != t && !a.happens_before(&clock)) {
            return Err(Finding::Race { kind: RaceKind::Unordered, loc, first: write.clone(), second: me });
        }
        // (a): "a read returning a value older than a write that
        // happens-before it": a write that happens before the read, other
        // than the one read, that the one read happens before.
        if let Some(newer) = history
            .iter()
            .find(|w| w.write && w.happens_before(&clock) && !w.wrote(origin) && origin.happens_before(&w.clock))
        {
            return Err(Finding::Race { kind: RaceKind::StaleRead, loc, first: newer.clone(), second: me });
        }
        insert_sorted(history, me);
        Ok(())
    }

    /// `ccl.cacheinvalid`: "writes back the dirty lines of W (into an
    /// in-flight queue) and drops its clean lines; whole-GM `cacheinvalid`
    /// does it for every line." A line of W is one of any rank's copy of
    /// W's elements.
    pub(super) fn invalidate(&self, state: &mut State, t: ThreadId, target: Option<&View>, site: SiteId) {
        let elements: Option<std::collections::BTreeSet<u32>> =
            target.map(|view| view.elements().into_iter().map(|e| e as u32).collect());
        let covered = |loc: &Loc| match (&elements, target) {
            (Some(elements), Some(view)) => loc.buffer == view.buffer && elements.contains(&loc.index),
            _ => true,
        };
        let dropped: Vec<Loc> = state.caches[t as usize].keys().filter(|loc| covered(loc)).copied().collect();
        for loc in dropped {
            let line = state.caches[t as usize].remove(&loc).expect("a listed line");
            if line.dirty {
                enqueue(state, t, Pending { loc, value: line.value, site });
            }
        }
    }
}

/// Adds `pending` to `t`'s queue (kept sorted: it is a multiset).
fn enqueue(state: &mut State, t: ThreadId, pending: Pending) {
    let queue = &mut state.queues[t as usize];
    let at = queue.partition_point(|p| *p <= pending);
    queue.insert(at, pending);
}

/// Adds `access` to a history (kept sorted: it is a set).
fn insert_sorted(history: &mut Vec<Access>, access: Access) {
    if let Err(at) = history.binary_search(&access) {
        history.insert(at, access);
    }
}
