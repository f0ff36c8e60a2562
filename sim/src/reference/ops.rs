//! The `ccl` ops, one step each, as SEMANTICS.md's execution model says
//! ("Values", "Remote ops", "Signals", "Markers").

use super::*;
use crate::program::Reg;
use crate::value::{self, lanes_of};

impl Reference {
    /// Runs the ccl op `t` rests at (enabled).
    pub(super) fn ccl(&self, state: &mut State, t: ThreadId, site: SiteId, op: &CclOp) -> Result<(), Finding> {
        let frame = state.threads[t as usize].frames.last_mut().expect("a running thread has a frame");
        frame.pc += 1;
        let regs = frame.regs.clone();
        let rank = self.rank_of(t);
        let fail = |message: String| error(Some(site), message);
        let view = |r: &Reg| match &regs[*r as usize] {
            Val::MemRef(view) => Ok(view.clone()),
            _ => Err(fail("an operand that is not a memref value".into())),
        };
        let int = |r: &Reg| regs[*r as usize].as_int().ok_or_else(|| fail("an unset integer operand".into()));
        let peer = |r: &Reg| {
            let p = int(r)?;
            if p < 0 || p >= self.ranks as i64 {
                return Err(fail(format!("peer {p} is not a rank (0..{})", self.ranks)));
            }
            Ok(p as u16)
        };
        let indices = |list: &[Reg]| list.iter().map(int).collect::<Result<Vec<i64>, Finding>>();
        // The position of `indices` in `v`, with `len` elements from there
        // inside it.
        let start = |v: &View, idx: &[i64], len: i64| {
            v.position(idx)
                .filter(|s| s.checked_add(len).is_some_and(|end| end <= v.len()))
                .ok_or_else(|| fail(format!("indices {idx:?} out of bounds of {:?}", v.sizes)))
        };
        let at = |v: &View, rank: u16, n: i64| Loc { rank, buffer: v.buffer, index: v.nth(n) as u32 };
        let mut loaded: Option<(Reg, Val)> = None;
        match op {
            // "`tile_load`/`tile_store` move as many contiguous elements as
            // the tile (vector) holds, from the indices."
            CclOp::TileStore { tile, dst, indices: idx } => {
                let dst = view(dst)?;
                let lanes = lanes_of(&regs[*tile as usize]);
                let s = start(&dst, &indices(idx)?, lanes.len() as i64)?;
                for (n, bits) in lanes.iter().enumerate() {
                    self.write_cached(state, t, at(&dst, rank, s + n as i64), *bits, site)?;
                }
            }
            // "`read`/`tensor_write` move one element at the indices."
            CclOp::TensorWrite { dst, value, indices: idx } => {
                let dst = view(dst)?;
                let s = start(&dst, &indices(idx)?, 1)?;
                let bits = regs[*value as usize].bits().ok_or_else(|| fail("an unset value".into()))?;
                self.write_cached(state, t, at(&dst, rank, s), bits, site)?;
            }
            // "`put`/`get` copy a whole (view) memref between this rank and
            // the peer's copy": `get` reads the peer's copy (a GM read) and
            // writes this rank's (a write into the cache).
            CclOp::Get { dst, src, peer: p } => {
                let (dst, src, p) = (view(dst)?, view(src)?, peer(p)?);
                if dst.len() != src.len() {
                    return Err(fail(format!("get of {} elements into {}", src.len(), dst.len())));
                }
                for n in 0..src.len() {
                    let bits = self.read(state, t, at(&src, p, n), site)?;
                    self.write_cached(state, t, at(&dst, rank, n), bits, site)?;
                }
            }
            // "`put`/`remote_store` enter the in-flight queue toward the
            // peer's memory."
            CclOp::RemoteStore { tile, dst, peer: p } => {
                let (dst, p) = (view(dst)?, peer(p)?);
                let lanes = lanes_of(&regs[*tile as usize]);
                if lanes.len() as i64 > dst.len() {
                    return Err(fail(format!("a tile of {} into {} elements", lanes.len(), dst.len())));
                }
                for (n, bits) in lanes.iter().enumerate() {
                    self.write_queued(state, t, at(&dst, p, n as i64), *bits, site)?;
                }
            }
            CclOp::Put { dst, src, peer: p } => {
                let (dst, src, p) = (view(dst)?, view(src)?, peer(p)?);
                if dst.len() != src.len() {
                    return Err(fail(format!("put of {} elements into {}", src.len(), dst.len())));
                }
                for n in 0..src.len() {
                    let bits = self.read(state, t, at(&src, rank, n), site)?;
                    self.write_queued(state, t, at(&dst, p, n), bits, site)?;
                }
            }
            // "`remote_load` returns the peer's memref contents (a scalar
            // result for a one-element memref)"; it is a GM read.
            CclOp::RemoteLoad { result, src, peer: p, ty } => {
                let (src, p) = (view(src)?, peer(p)?);
                let mut lanes = Vec::new();
                for n in 0..src.len() {
                    lanes.push(self.read(state, t, at(&src, p, n), site)?);
                }
                let value = match ty {
                    Ty::Vector { len, .. } => {
                        lanes.resize(*len, 0);
                        Val::Vector(Arc::from(lanes))
                    }
                    _ => Val::from_bits(src.element, lanes.first().copied().unwrap_or(0)),
                };
                loaded = Some((*result, value));
            }
            CclOp::TileLoad { result, src, indices: idx, len } => {
                let src = view(src)?;
                let s = start(&src, &indices(idx)?, *len as i64)?;
                let mut lanes = Vec::new();
                for n in 0..*len as i64 {
                    lanes.push(self.read(state, t, at(&src, rank, s + n), site)?);
                }
                loaded = Some((*result, Val::Vector(Arc::from(lanes))));
            }
            CclOp::Read { result, src, indices: idx } => {
                let src = view(src)?;
                let s = start(&src, &indices(idx)?, 1)?;
                let bits = self.read(state, t, at(&src, rank, s), site)?;
                loaded = Some((*result, Val::from_bits(src.element, bits)));
            }
            // "`notify` and `wait` act on element 0 of their signal memref
            // ..., directly in memory and atomically (never cached)." A
            // notify releases the notifier's clock into the cell: an add
            // joins it with what the cell holds (a read-modify-write
            // continues the cell's release sequence), a set replaces it.
            CclOp::Notify { signal, peer: p, value: v, add } => {
                let (signal, p, v) = (view(signal)?, peer(p)?, int(v)?);
                if signal.is_empty() {
                    return Err(fail(format!("a signal view of no element ({:?})", signal.sizes)));
                }
                let loc = at(&signal, p, 0);
                let old = self.memory(state, loc, site)?.bits as i64;
                let new = if *add { old.wrapping_add(v) } else { v };
                let new = match signal.element {
                    crate::program::Scalar::Int(bits) => value::wrap(new, bits),
                    crate::program::Scalar::Float(_) => new,
                };
                tick(state, t);
                let clock = state.threads[t as usize].clock.clone();
                if let Copy::Live(values) = &mut state.buffers[loc.buffer as usize].copies[loc.rank as usize] {
                    values[loc.index as usize] =
                        Value { bits: new as u64, origin: Origin::Notify { thread: t, clock: clock.clone() } };
                }
                match state.signal_clocks.get_mut(&loc) {
                    Some(released) if *add => join_clock(released, &clock),
                    _ => {
                        state.signal_clocks.insert(loc, clock);
                    }
                }
            }
            // The wait's condition held (it is enabled only then): "A notify
            // that a wait observes creates a happens-before edge".
            CclOp::Wait { signal, expected, .. } => {
                let signal = view(signal)?;
                int(expected)?;
                if signal.is_empty() {
                    return Err(fail(format!("a signal view of no element ({:?})", signal.sizes)));
                }
                let loc = at(&signal, rank, 0);
                self.memory(state, loc, site)?;
                tick(state, t);
                if let Some(released) = state.signal_clocks.get(&loc).cloned() {
                    join_clock(&mut state.threads[t as usize].clock, &released);
                }
            }
            // Its queue is empty (it is enabled only then).
            CclOp::Fence => {}
            CclOp::CacheInvalid { target } => {
                let target = target.as_ref().map(view).transpose()?;
                self.invalidate(state, t, target.as_deref(), site);
            }
            CclOp::AllToAllV { .. } | CclOp::AllReduce { .. } | CclOp::Barrier => {
                return Err(fail("a collective inside a kernel: collectives run from host code only".into()));
            }
        }
        if let Some((reg, value)) = loaded {
            state.threads[t as usize].frames.last_mut().unwrap().regs[reg as usize] = value;
        }
        Ok(())
    }

    /// Whether the wait `t` rests at holds on its cell's value in memory
    /// (`None`: its operands are bad, and its step reports that).
    pub(super) fn wait_holds(&self, state: &State, t: ThreadId) -> Option<bool> {
        let Some(Instr::Ccl { op: CclOp::Wait { signal, expected, equal }, .. }) = self.instr(state, t) else {
            return None;
        };
        let frame = state.threads[t as usize].frames.last()?;
        let (Val::MemRef(view), Some(expected)) =
            (&frame.regs[*signal as usize], frame.regs[*expected as usize].as_int())
        else {
            return None;
        };
        let loc = Loc { rank: self.rank_of(t), buffer: view.buffer, index: view.first()? as u32 };
        let Copy::Live(values) = &state.buffers[loc.buffer as usize].copies[loc.rank as usize] else { return None };
        // Integers are held sign-extended from their width.
        let current = values.get(loc.index as usize)?.bits as i64;
        Some(if *equal { current == expected } else { current >= expected })
    }
}
