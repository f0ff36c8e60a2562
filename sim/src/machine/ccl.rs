//! The `ccl` ops other threads can observe, one step each: tile and remote
//! loads and stores, puts and gets, notify and wait, fences and cache
//! invalidation.

use super::cache::count_down;
use super::footprint::{Part, Touch};
use super::races::{join_into, tick};
use super::*;
use crate::value::lanes_of;

impl Machine {
    /// Executes the ccl op `t` is at. The op reads its operands from `t`'s
    /// registers while it changes the rest of the state: the registers are
    /// lent out of the frame for the op (not copied) and given back however
    /// it ends, with the value it loaded, if any.
    pub(super) fn ccl(&self, state: &mut State, t: ThreadId, site: SiteId, op: &CclOp) -> Result<Vec<ThreadId>, Fail> {
        let regs = std::mem::take(&mut self.frame_mut(state, t).regs);
        let mut loaded = None;
        let result = self.ccl_op(state, t, site, op, &regs, &mut loaded);
        let frame = self.frame_mut(state, t);
        frame.regs = regs;
        if let Some((reg, value)) = loaded {
            frame.regs[reg as usize] = value;
        }
        result
    }

    fn ccl_op(
        &self,
        state: &mut State,
        t: ThreadId,
        site: SiteId,
        op: &CclOp,
        regs: &[Val],
        loaded: &mut Option<(Reg, Val)>,
    ) -> Result<Vec<ThreadId>, Fail> {
        let rank = self.rank_of(t);
        let view = |r: Reg| match &regs[r as usize] {
            Val::MemRef(v) => Ok(v.clone()),
            _ => Err(fail(Some(site), "an operand that is not a memref value")),
        };
        let int = |r: Reg| regs[r as usize].as_int().ok_or_else(|| fail(Some(site), "an unset integer operand"));
        let peer = |r: Reg| {
            let p = int(r)?;
            if p < 0 || p >= self.ranks as i64 {
                return Err(fail(Some(site), format!("peer {p} is not a rank (0..{})", self.ranks)));
            }
            Ok(p as u16)
        };
        let indices = |list: &[Reg]| list.iter().map(|r| int(*r)).collect::<Result<Vec<i64>, Fail>>();
        let at = |v: &View, rank: u16, n: i64| Loc { rank, buffer: v.buffer, index: v.nth(n) as u32 };
        // A signal is element 0 of its view: a view of no element has none.
        let signal_cell = |r: Reg| {
            let signal = view(r)?;
            match signal.first() {
                Some(_) => Ok(signal),
                None => Err(fail(Some(site), format!("a signal view of no element ({:?})", signal.sizes))),
            }
        };
        // What an op moving `n` elements may add to the state.
        let room = |n: i64| {
            self.reserve((n.max(0) as u64).saturating_mul(BYTES_PER_ELEMENT), || {
                format!("'{}' of {n} elements", self.program.site(site).op)
            })
            .map_err(|f| f.located(site))
        };
        let counted = self.counted_as(state, t);
        // Signal ops are recorded with their cell, below.
        if !matches!(op, CclOp::Notify { .. } | CclOp::Wait { .. }) {
            self.note(state, t, Some(site), || EventKind::Op);
        }
        let start = |v: &View, idx: &[i64], len: i64| {
            v.position(idx)
                .filter(|s| s.checked_add(len).is_some_and(|end| end <= v.len()))
                .ok_or_else(|| fail(Some(site), format!("indices {idx:?} out of bounds of {:?}", v.sizes)))
        };
        match op {
            CclOp::TileStore { tile, dst, indices: idx } => {
                let dst = view(*dst)?;
                let lanes = lanes_of(&regs[*tile as usize]);
                let s = start(&dst, &indices(idx)?, lanes.len() as i64)?;
                for (i, bits) in lanes.iter().enumerate() {
                    self.write_cached(state, t, at(&dst, rank, s + i as i64), *bits, site)?;
                }
            }
            CclOp::TensorWrite { dst, value, indices: idx } => {
                let dst = view(*dst)?;
                let s = start(&dst, &indices(idx)?, 1)?;
                let bits = regs[*value as usize].bits().ok_or_else(|| fail(Some(site), "an unset value"))?;
                self.write_cached(state, t, at(&dst, rank, s), bits, site)?;
            }
            CclOp::Get { dst, src, peer: p } => {
                let (dst, src, p) = (view(*dst)?, view(*src)?, peer(*p)?);
                if dst.len() != src.len() {
                    return Err(fail(Some(site), format!("get of {} elements into {}", src.len(), dst.len())));
                }
                room(src.len())?;
                for n in 0..src.len() {
                    let bits = self.read_cached(state, t, at(&src, p, n), site)?;
                    self.write_cached(state, t, at(&dst, rank, n), bits, site)?;
                }
            }
            CclOp::RemoteStore { tile, dst, peer: p } => {
                let (dst, p) = (view(*dst)?, peer(*p)?);
                let lanes = lanes_of(&regs[*tile as usize]);
                if lanes.len() as i64 > dst.len() {
                    return Err(fail(Some(site), format!("a tile of {} into {} elements", lanes.len(), dst.len())));
                }
                room(lanes.len() as i64)?;
                let mut writes = Vec::new();
                for (n, bits) in lanes.iter().enumerate() {
                    writes.push(self.queue_write(state, t, at(&dst, p, n as i64), *bits, site)?);
                }
                self.enqueue(state, t, Unit { site, writes });
            }
            CclOp::Put { dst, src, peer: p } => {
                let (dst, src, p) = (view(*dst)?, view(*src)?, peer(*p)?);
                if dst.len() != src.len() {
                    return Err(fail(Some(site), format!("put of {} elements into {}", src.len(), dst.len())));
                }
                room(src.len())?;
                let mut writes = Vec::new();
                for n in 0..src.len() {
                    let bits = self.read_cached(state, t, at(&src, rank, n), site)?;
                    writes.push(self.queue_write(state, t, at(&dst, p, n), bits, site)?);
                }
                self.enqueue(state, t, Unit { site, writes });
            }
            CclOp::RemoteLoad { result, src, peer: p, ty } => {
                let (src, p) = (view(*src)?, peer(*p)?);
                room(src.len())?;
                let mut lanes = Vec::new();
                for n in 0..src.len() {
                    lanes.push(self.read_cached(state, t, at(&src, p, n), site)?);
                }
                let value = match ty {
                    Ty::Vector { len, .. } => {
                        lanes.resize(*len, 0);
                        Val::Vector(Arc::from(lanes))
                    }
                    _ => Val::from_bits(src.element, lanes.first().copied().unwrap_or(0)),
                };
                *loaded = Some((*result, value));
            }
            CclOp::TileLoad { result, src, indices: idx, len } => {
                let src = view(*src)?;
                let s = start(&src, &indices(idx)?, *len as i64)?;
                let mut lanes = Vec::new();
                for n in 0..*len as i64 {
                    lanes.push(self.read_cached(state, t, at(&src, rank, s + n), site)?);
                }
                *loaded = Some((*result, Val::Vector(Arc::from(lanes))));
            }
            CclOp::Read { result, src, indices: idx } => {
                let src = view(*src)?;
                let s = start(&src, &indices(idx)?, 1)?;
                let bits = self.read_cached(state, t, at(&src, rank, s), site)?;
                *loaded = Some((*result, Val::from_bits(src.element, bits)));
            }
            CclOp::Notify { signal, peer: p, value, add } => {
                let (signal, p, v) = (signal_cell(*signal)?, peer(*p)?, int(*value)?);
                let loc = at(&signal, p, 0);
                let old = self.cell(state, loc, site)?;
                // Adds to one cell commute (a wrapping sum, a clock join);
                // a wait reads the cell, so it is ordered with each.
                let change = if *add { Touch::Add } else { Touch::Write };
                self.touch(Part::Elem(loc), change);
                self.touch(Part::Attempt(loc), change);
                self.note(state, t, Some(site), || EventKind::Notify { cell: loc });
                let bits = if *add { (old.bits as i64).wrapping_add(v) } else { v };
                let wrapped = match signal.element {
                    Scalar::Int(b) => value::wrap(bits, b),
                    Scalar::Float(_) => bits,
                };
                // A set, a negative add or one that wraps round may lower the
                // cell: the early-wait rule's condition (`Machine::lowered`).
                if !*add || v < 0 || wrapped != bits {
                    self.touch(Part::Lowers(loc), Touch::Add);
                    self.lowered(state, loc, Some(t), site)?;
                }
                let bits = wrapped;
                Shared::make_mut(&mut state.buffers[loc.buffer as usize].ranks[loc.rank as usize])
                    [loc.index as usize] = Cell { bits: bits as u64, writer: None };
                state.signalled.0.push(loc);
                let mine = state.threads[t as usize].clock.clone();
                match state.signal_clocks.get_mut(&loc) {
                    Some(previous) if *add => join_into(previous, &mine),
                    _ => {
                        state.signal_clocks.insert(loc, mine);
                    }
                }
                tick(&mut state.threads[t as usize].clock, t);
            }
            CclOp::Wait { signal, equal, .. } => {
                let signal = signal_cell(*signal)?;
                let loc = at(&signal, rank, 0);
                self.touch(Part::Elem(loc), Touch::Read);
                if !*equal && self.eager_waits() {
                    state.passed_early.insert((loc, t));
                }
                self.note(state, t, Some(site), || EventKind::Wait { cell: loc });
                if let Some(clock) = state.signal_clocks.get(&loc).cloned() {
                    join_into(&mut state.threads[t as usize].clock, &clock);
                }
            }
            CclOp::Fence => {
                // It passes on an empty queue (`enabled`).
                self.touch(Part::Queue(t), Touch::Read);
                state.cost.of(counted).fences += 1
            }
            CclOp::CacheInvalid { target } => {
                let target = target.map(view).transpose()?;
                if let Some(target) = target.as_ref().filter(|target| !target.is_nested()) {
                    room(target.len())?;
                }
                let cache = Shared::make_mut(&mut state.caches[t as usize]);
                let selected: Vec<Loc> = match &target {
                    None => cache.keys().copied().collect(),
                    // A view whose positions decompose is tested line by
                    // line, over the lines between its first and last
                    // element on each rank; another is listed (its size was
                    // checked when it was made).
                    Some(target) if target.is_nested() => {
                        let (low, high) = target.bounds();
                        (0..self.ranks)
                            .flat_map(|rank| {
                                let at = |index: i64| Loc { rank, buffer: target.buffer, index: index as u32 };
                                cache.range(at(low)..=at(high)).map(|(l, _)| *l)
                            })
                            .filter(|l| target.contains(l.index as i64))
                            .collect()
                    }
                    Some(target) => {
                        let elements: std::collections::BTreeSet<u32> =
                            target.elements().into_iter().map(|e| e as u32).collect();
                        cache
                            .keys()
                            .filter(|l| l.buffer == target.buffer && elements.contains(&l.index))
                            .copied()
                            .collect()
                    }
                };
                let mut writes = Vec::new();
                for loc in selected {
                    if let Some(line) = cache.remove(&loc) {
                        if line.dirty {
                            writes.push((loc, line.cell));
                        }
                    }
                }
                for (loc, _) in &writes {
                    self.touch(Part::Meta(*loc), Touch::Add);
                    count_down(&mut state.dirty_index.0, *loc);
                }
                let cost = state.cost.of(counted);
                match target {
                    Some(_) => cost.region_invalidates += 1,
                    None => cost.whole_invalidates += 1,
                }
                cost.lines_written_back += writes.len() as u64;
                self.enqueue(state, t, Unit { site, writes });
            }
            CclOp::AllToAllV { .. } | CclOp::AllReduce { .. } | CclOp::Barrier => {
                return Err(fail(
                    Some(site),
                    "a collective inside a kernel: ccl-sim runs collectives from host code only",
                ));
            }
        }
        Ok(Vec::new())
    }
}
