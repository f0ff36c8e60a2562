//! Memory through a block's private non-coherent cache and its in-flight
//! queue: cached and direct reads and writes, and the counted indexes of
//! in-flight writes and dirty lines.

use super::footprint::{Part, Touch};
use super::*;

impl Machine {
    pub(super) fn cell(&self, state: &State, loc: Loc, site: SiteId) -> Result<Cell, Fail> {
        let buffer = state.buffers.get(loc.buffer as usize);
        match buffer.map(|b| b.copies[loc.rank as usize]) {
            Some(Presence::Freed) => {
                return Err(fail(Some(site), format!("an access to a buffer rank {} deallocated", loc.rank)))
            }
            Some(Presence::Absent) => {
                return Err(fail(
                    Some(site),
                    format!("an access to rank {}'s copy of a buffer before rank {} allocated it", loc.rank, loc.rank),
                ))
            }
            _ => {}
        }
        buffer
            .and_then(|b| b.ranks[loc.rank as usize].get(loc.index as usize))
            .copied()
            .ok_or_else(|| fail(Some(site), "an access out of its buffer"))
    }

    /// `t`'s newest write of `loc`, if it has not landed: a dirty line of
    /// `t`'s cache (`false`) or a write in `t`'s queue (`true`). "Own
    /// accesses are coherent": a read by `t` returns it.
    pub(super) fn own_unlanded(&self, state: &State, t: ThreadId, loc: Loc) -> Option<(Cell, bool)> {
        self.touch(Part::Meta(loc), Touch::Read);
        self.touch(Part::Elem(loc), Touch::Read);
        let shadow = state.buffers[loc.buffer as usize].shadow[loc.rank as usize].get(&loc.index)?;
        let newest =
            shadow.newest.binary_search_by_key(&t, |(thread, _)| *thread).ok().map(|at| shadow.newest[at].1)?;
        let is_newest = |cell: &Cell| cell.writer == Some(WriteId { thread: t, seq: newest });
        if let Some(line) = state.caches[t as usize].get(&loc).filter(|line| line.dirty && is_newest(&line.cell)) {
            return Some((line.cell, false));
        }
        state.inflight[t as usize]
            .iter()
            .flat_map(|unit| &unit.writes)
            .find(|(l, cell)| *l == loc && is_newest(cell))
            .map(|(_, cell)| (*cell, true))
    }

    /// A GM read through `t`'s cache. Own accesses are coherent: the read
    /// returns `t`'s newest write of `loc` while it has not landed, wherever
    /// it sits (and keeps no line of it). Else: a hit returns the line (a
    /// clean line may be older than a write `t` sent that has landed since:
    /// the read is stale then); a miss fetches from memory and keeps the
    /// value as a clean line.
    pub(super) fn read_cached(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<u64, Fail> {
        // The buffer exists and is not freed, even if the line is cached.
        self.cell(state, loc, site)?;
        let cell = match self.own_unlanded(state, t, loc) {
            Some((cell, _)) => cell,
            None => match state.caches[t as usize].get(&loc) {
                Some(line) => line.cell,
                None => {
                    let cell = self.cell(state, loc, site)?;
                    Shared::make_mut(&mut state.caches[t as usize]).insert(loc, Line { cell, dirty: false });
                    cell
                }
            },
        };
        self.check_read(state, t, loc, cell, site)?;
        Ok(cell.bits)
    }

    /// A write of `loc` by `t` that goes to its queue (a put, a remote
    /// store). `t`'s cache is not touched: a line of `loc` it holds stays
    /// (a dirty one is written back when an invalidate covers it, and may
    /// land after this write).
    pub(super) fn queue_write(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(Loc, Cell), Fail> {
        self.cell(state, loc, site)?;
        let writer = self.check_write(state, t, loc, site)?;
        Ok((loc, Cell { bits, writer: Some(writer) }))
    }

    /// A GM write into `t`'s cache (a dirty line).
    pub(super) fn write_cached(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(), Fail> {
        self.cell(state, loc, site)?;
        let writer = self.check_write(state, t, loc, site)?;
        let before = Shared::make_mut(&mut state.caches[t as usize])
            .insert(loc, Line { cell: Cell { bits, writer: Some(writer) }, dirty: true });
        if !before.is_some_and(|line| line.dirty) {
            self.touch(Part::Meta(loc), Touch::Add);
            *state.dirty_index.0.entry(loc).or_insert(0) += 1;
        }
        Ok(())
    }

    /// A read straight from memory (a collective).
    pub(super) fn read_direct(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<u64, Fail> {
        let cell = self.cell(state, loc, site)?;
        self.check_read(state, t, loc, cell, site)?;
        Ok(cell.bits)
    }

    pub(super) fn write_direct(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(), Fail> {
        self.cell(state, loc, site)?;
        self.lowered(state, loc, None, site)?;
        self.touch(Part::Attempt(loc), Touch::Write);
        let writer = self.check_write(state, t, loc, site)?;
        Shared::make_mut(&mut state.buffers[loc.buffer as usize].ranks[loc.rank as usize])[loc.index as usize] =
            Cell { bits, writer: Some(writer) };
        Ok(())
    }

    pub(super) fn enqueue(&self, state: &mut State, t: ThreadId, unit: Unit) {
        if unit.writes.is_empty() {
            return;
        }
        self.note(state, t, Some(unit.site), || EventKind::Issue {
            unit: trace::unit_key(&unit),
            writes: unit.writes.len(),
        });
        self.touch(Part::Queue(t), Touch::Add);
        if self.footprint.is_some() {
            self.touch(Part::Unit(trace::unit_key(&unit)), Touch::Write);
        }
        for (loc, _) in &unit.writes {
            self.touch(Part::Meta(*loc), Touch::Add);
            *state.inflight_index.0.entry(*loc).or_insert(0) += 1;
        }
        let queue = &mut state.inflight[t as usize];
        queue.push(unit);
        queue.sort();
    }
}

/// One fewer of `loc` in a count index (the entry goes at zero).
pub(super) fn count_down(index: &mut BTreeMap<Loc, u32>, loc: Loc) {
    match index.get_mut(&loc) {
        Some(count) if *count > 1 => *count -= 1,
        _ => {
            index.remove(&loc);
        }
    }
}
