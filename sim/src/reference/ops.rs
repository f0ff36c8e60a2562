//! The `ccl` ops, one step each, as SEMANTICS.md's execution model says
//! ("Values", "Remote ops", "Signals", "Markers").

use super::*;
use crate::program::Reg;
use crate::value::{self, lanes_of};

/// The operands of the op being run: the registers of its frame, read as
/// the op needs them, with its errors located at the op.
struct Operands {
    regs: Vec<Val>,
    site: SiteId,
    ranks: u16,
    /// The rank of the thread running the op.
    rank: u16,
}

impl Operands {
    fn fail(&self, message: String) -> Finding {
        error(Some(self.site), message)
    }

    fn view(&self, r: Reg) -> Result<Arc<View>, Finding> {
        match &self.regs[r as usize] {
            Val::MemRef(view) => Ok(view.clone()),
            _ => Err(self.fail("an operand that is not a memref value".into())),
        }
    }

    fn int(&self, r: Reg) -> Result<i64, Finding> {
        self.regs[r as usize].as_int().ok_or_else(|| self.fail("an unset integer operand".into()))
    }

    fn peer(&self, r: Reg) -> Result<u16, Finding> {
        let p = self.int(r)?;
        if p < 0 || p >= self.ranks as i64 {
            return Err(self.fail(format!("peer {p} is not a rank (0..{})", self.ranks)));
        }
        Ok(p as u16)
    }

    fn indices(&self, list: &[Reg]) -> Result<Vec<i64>, Finding> {
        list.iter().map(|r| self.int(*r)).collect()
    }

    /// The position of `indices` in `v`, with `len` elements from there
    /// inside it.
    fn start(&self, v: &View, indices: &[i64], len: i64) -> Result<i64, Finding> {
        v.position(indices)
            .filter(|s| s.checked_add(len).is_some_and(|end| end <= v.len()))
            .ok_or_else(|| self.fail(format!("indices {indices:?} out of bounds of {:?}", v.sizes)))
    }

    /// "`notify` and `wait` act on element 0 of their signal memref": a view
    /// of no element has none.
    fn signal(&self, r: Reg) -> Result<Arc<View>, Finding> {
        let signal = self.view(r)?;
        if signal.is_empty() {
            return Err(self.fail(format!("a signal view of no element ({:?})", signal.sizes)));
        }
        Ok(signal)
    }
}

/// Element `n` of view `v` on `rank`.
fn at(v: &View, rank: u16, n: i64) -> Loc {
    Loc { rank, buffer: v.buffer, index: v.nth(n) as u32 }
}

impl Reference {
    /// Runs the ccl op `t` rests at (enabled).
    pub(super) fn ccl(&self, state: &mut State, t: ThreadId, site: SiteId, op: &CclOp) -> Result<(), Finding> {
        let frame = state.threads[t as usize].frames.last_mut().expect("a running thread has a frame");
        frame.pc += 1;
        let o = Operands { regs: frame.regs.clone(), site, ranks: self.ranks, rank: self.rank_of(t) };
        let loaded = match op {
            CclOp::Notify { signal, peer, value, add } => {
                self.notify(state, t, &o, (o.signal(*signal)?, o.peer(*peer)?, o.int(*value)?), *add)?;
                None
            }
            // The wait's condition held (it is enabled only then): "A notify
            // that a wait observes creates a happens-before edge".
            CclOp::Wait { signal, expected, .. } => {
                let signal = o.signal(*signal)?;
                o.int(*expected)?;
                let loc = at(&signal, o.rank, 0);
                self.memory(state, loc, site)?;
                tick(state, t);
                if let Some(released) = state.signal_clocks.get(&loc).cloned() {
                    join_clock(&mut state.threads[t as usize].clock, &released);
                }
                None
            }
            // Its queue is empty (it is enabled only then).
            CclOp::Fence => None,
            CclOp::CacheInvalid { target } => {
                let target = target.map(|r| o.view(r)).transpose()?;
                self.invalidate(state, t, target.as_deref(), site);
                None
            }
            CclOp::AllToAllV { .. } | CclOp::AllReduce { .. } | CclOp::Barrier => {
                return Err(o.fail("a collective inside a kernel: collectives run from host code only".into()));
            }
            CclOp::TileStore { .. }
            | CclOp::TensorWrite { .. }
            | CclOp::Get { .. }
            | CclOp::RemoteStore { .. }
            | CclOp::Put { .. } => {
                self.write_op(state, t, &o, op)?;
                None
            }
            CclOp::RemoteLoad { .. } | CclOp::TileLoad { .. } | CclOp::Read { .. } => {
                Some(self.read_op(state, t, &o, op)?)
            }
        };
        if let Some((reg, value)) = loaded {
            state.threads[t as usize].frames.last_mut().unwrap().regs[reg as usize] = value;
        }
        Ok(())
    }

    /// The ops that write data: into the cache ("A write (`tile_store`,
    /// `tensor_write`, the `dst` of `get`) goes into the cache as a dirty
    /// line") or toward memory ("`put`/`remote_store` enter the in-flight
    /// queue toward the peer's memory").
    fn write_op(&self, state: &mut State, t: ThreadId, o: &Operands, op: &CclOp) -> Result<(), Finding> {
        let (rank, site) = (o.rank, o.site);
        match op {
            // "`tile_load`/`tile_store` move as many contiguous elements as
            // the tile (vector) holds, from the indices."
            CclOp::TileStore { tile, dst, indices } => {
                let dst = o.view(*dst)?;
                let lanes = lanes_of(&o.regs[*tile as usize]);
                let s = o.start(&dst, &o.indices(indices)?, lanes.len() as i64)?;
                for (n, bits) in lanes.iter().enumerate() {
                    self.write_cached(state, t, at(&dst, rank, s + n as i64), *bits, site)?;
                }
            }
            // "`read`/`tensor_write` move one element at the indices."
            CclOp::TensorWrite { dst, value, indices } => {
                let dst = o.view(*dst)?;
                let s = o.start(&dst, &o.indices(indices)?, 1)?;
                let bits = o.regs[*value as usize].bits().ok_or_else(|| o.fail("an unset value".into()))?;
                self.write_cached(state, t, at(&dst, rank, s), bits, site)?;
            }
            // "`put`/`get` copy a whole (view) memref between this rank and
            // the peer's copy": `get` reads the peer's copy (a GM read) and
            // writes this rank's (a write into the cache).
            CclOp::Get { dst, src, peer } => {
                let (dst, src, p) = (o.view(*dst)?, o.view(*src)?, o.peer(*peer)?);
                if dst.len() != src.len() {
                    return Err(o.fail(format!("get of {} elements into {}", src.len(), dst.len())));
                }
                for n in 0..src.len() {
                    let bits = self.read(state, t, at(&src, p, n), site)?;
                    self.write_cached(state, t, at(&dst, rank, n), bits, site)?;
                }
            }
            CclOp::RemoteStore { tile, dst, peer } => {
                let (dst, p) = (o.view(*dst)?, o.peer(*peer)?);
                let lanes = lanes_of(&o.regs[*tile as usize]);
                if lanes.len() as i64 > dst.len() {
                    return Err(o.fail(format!("a tile of {} into {} elements", lanes.len(), dst.len())));
                }
                for (n, bits) in lanes.iter().enumerate() {
                    self.write_queued(state, t, at(&dst, p, n as i64), *bits, site)?;
                }
            }
            CclOp::Put { dst, src, peer } => {
                let (dst, src, p) = (o.view(*dst)?, o.view(*src)?, o.peer(*peer)?);
                if dst.len() != src.len() {
                    return Err(o.fail(format!("put of {} elements into {}", src.len(), dst.len())));
                }
                for n in 0..src.len() {
                    let bits = self.read(state, t, at(&src, rank, n), site)?;
                    self.write_queued(state, t, at(&dst, p, n), bits, site)?;
                }
            }
            _ => unreachable!("an op that writes data"),
        }
        Ok(())
    }

    /// The ops that read data (GM reads through the cache): the register
    /// they load and its value.
    fn read_op(&self, state: &mut State, t: ThreadId, o: &Operands, op: &CclOp) -> Result<(Reg, Val), Finding> {
        let (rank, site) = (o.rank, o.site);
        match op {
            // "`remote_load` returns the peer's memref contents (a scalar
            // result for a one-element memref)".
            CclOp::RemoteLoad { result, src, peer, ty } => {
                let (src, p) = (o.view(*src)?, o.peer(*peer)?);
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
                Ok((*result, value))
            }
            CclOp::TileLoad { result, src, indices, len } => {
                let src = o.view(*src)?;
                let s = o.start(&src, &o.indices(indices)?, *len as i64)?;
                let mut lanes = Vec::new();
                for n in 0..*len as i64 {
                    lanes.push(self.read(state, t, at(&src, rank, s + n), site)?);
                }
                Ok((*result, Val::Vector(Arc::from(lanes))))
            }
            CclOp::Read { result, src, indices } => {
                let src = o.view(*src)?;
                let s = o.start(&src, &o.indices(indices)?, 1)?;
                let bits = self.read(state, t, at(&src, rank, s), site)?;
                Ok((*result, Val::from_bits(src.element, bits)))
            }
            _ => unreachable!("an op that reads data"),
        }
    }

    /// `ccl.notify` of `value` into element 0 of `signal` on rank `peer`:
    /// "directly in memory and atomically (never cached)". It releases the
    /// notifier's clock into the cell: an add joins it with what the cell
    /// holds (a read-modify-write continues the cell's release sequence), a
    /// set replaces it.
    fn notify(
        &self,
        state: &mut State,
        t: ThreadId,
        o: &Operands,
        (signal, peer, value): (Arc<View>, u16, i64),
        add: bool,
    ) -> Result<(), Finding> {
        let loc = at(&signal, peer, 0);
        let old = self.memory(state, loc, o.site)?.bits as i64;
        let new = if add { old.wrapping_add(value) } else { value };
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
            Some(released) if add => join_clock(released, &clock),
            _ => {
                state.signal_clocks.insert(loc, clock);
            }
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
