//! The collectives (`all_to_all_v`, `all_reduce`, `barrier`), run once
//! every rank's host has reached the same one.

use super::races::{join_with, tick};
use super::*;
use crate::value;

impl Machine {
    /// Runs the collective every host is at, atomically, behind every cache.
    pub(super) fn collective(&self, state: &mut State) -> Result<Vec<ThreadId>, Fail> {
        let hosts: Vec<ThreadId> = (0..self.ranks).map(|r| self.host_of(r)).collect();
        let at: Vec<(SiteId, CclOp, Frame)> = hosts
            .iter()
            .map(|h| match self.instr(state, *h) {
                Some(Instr::Ccl { site, op }) => {
                    (*site, op.clone(), state.threads[*h as usize].frames.last().unwrap().clone())
                }
                _ => unreachable!("collective_ready"),
            })
            .collect();
        let (site, op, _) = &at[0];
        self.note(state, hosts[0], Some(*site), || EventKind::Collective {
            hosts: hosts.iter().map(|h| (*h, state.threads[*h as usize].clock[*h as usize])).collect(),
        });
        if let Some((other, _, _)) = at.iter().find(|(s, o, _)| {
            std::mem::discriminant(o) != std::mem::discriminant(op)
                || self.program.site(*s).op != self.program.site(*site).op
        }) {
            let a = self.program.site(*site);
            let b = self.program.site(*other);
            return Err(fail(
                Some(*other),
                format!("ranks reached different collectives: {} at {} and {} at {}", a.op, a.loc, b.op, b.loc),
            ));
        }
        let mut clock = vec![0; self.thread_count()];
        for h in &hosts {
            join_with(&mut clock, &state.threads[*h as usize].clock);
        }
        let clock = Shared::new(clock);
        for h in &hosts {
            state.threads[*h as usize].clock = clock.clone();
        }
        let views = |reg: Reg| -> Result<Vec<Arc<View>>, Fail> {
            at.iter()
                .map(|(s, _, frame)| match &frame.regs[reg as usize] {
                    Val::MemRef(v) => Ok(v.clone()),
                    _ => Err(fail(Some(*s), "an operand that is not a memref value")),
                })
                .collect()
        };
        let ranks = self.ranks as usize;
        match op {
            CclOp::Barrier => {}
            CclOp::AllReduce { src, dst, reduce } => {
                let (src, dst) = (views(*src)?, views(*dst)?);
                let len = src[0].len();
                if src.iter().chain(&dst).any(|v| v.len() != len) {
                    return Err(fail(Some(*site), "all_reduce over views of different sizes"));
                }
                let element = dst[0].element;
                self.reserve((len.max(0) as u64).saturating_mul(BYTES_PER_ELEMENT * ranks as u64), || {
                    format!("'ccl.all_reduce' of {len} elements")
                })?;
                let mut sums = Vec::new();
                for n in 0..len {
                    let mut acc: Option<u64> = None;
                    for r in 0..ranks {
                        let loc = Loc { rank: r as u16, buffer: src[r].buffer, index: src[r].nth(n) as u32 };
                        let bits = self.read_direct(state, hosts[r], loc, at[r].0)?;
                        acc = Some(match acc {
                            None => bits,
                            Some(a) => value::reduce(*reduce, a, bits, element),
                        });
                    }
                    sums.push(acc.unwrap_or(0));
                }
                for r in 0..ranks {
                    for (n, bits) in sums.iter().enumerate() {
                        let loc = Loc { rank: r as u16, buffer: dst[r].buffer, index: dst[r].nth(n as i64) as u32 };
                        self.write_direct(state, hosts[r], loc, *bits, at[r].0)?;
                    }
                }
            }
            CclOp::AllToAllV { send, send_counts, recv, recv_counts } => {
                let (send, counts, recv, recv_counts) =
                    (views(*send)?, views(*send_counts)?, views(*recv)?, views(*recv_counts)?);
                let rows = recv[0].sizes.first().copied().unwrap_or(0);
                // Every rank's views alike (a rank-dependent view would
                // index past another's).
                let alike = |views: &[Arc<View>]| views.iter().all(|v| v.sizes == views[0].sizes);
                if !(alike(&send) && alike(&recv) && alike(&counts) && alike(&recv_counts)) {
                    return Err(fail(Some(*site), "all_to_all_v over views of different shapes on different ranks"));
                }
                if rows % ranks as i64 != 0 || counts[0].len() < ranks as i64 || recv_counts[0].len() < ranks as i64 {
                    return Err(fail(
                        Some(*site),
                        format!("all_to_all_v over {ranks} ranks needs recv rows divisible by {ranks} and counts of at least {ranks}"),
                    ));
                }
                let per_peer = rows / ranks as i64;
                let row_size: i64 = recv[0].sizes.iter().skip(1).product();
                let total = recv.iter().map(|v| v.len() as u64).fold(0u64, u64::saturating_add);
                self.reserve(total.saturating_mul(BYTES_PER_ELEMENT), || {
                    format!("'ccl.all_to_all_v' of {total} elements")
                })?;
                let mut moves = Vec::new();
                for r in 0..ranks {
                    for q in 0..ranks {
                        let loc =
                            Loc { rank: r as u16, buffer: counts[r].buffer, index: counts[r].nth(q as i64) as u32 };
                        let n = (self.read_direct(state, hosts[r], loc, at[r].0)? as i64).clamp(0, per_peer);
                        // Within the recv view's elements (rows x row size),
                        // which fit: so do these positions.
                        for e in 0..n * row_size {
                            if q as i64 * per_peer * row_size + e >= send[r].len() {
                                return Err(fail(Some(*site), "all_to_all_v send rows out of bounds"));
                            }
                            let from = Loc {
                                rank: r as u16,
                                buffer: send[r].buffer,
                                index: send[r].nth(q as i64 * per_peer * row_size + e) as u32,
                            };
                            let bits = self.read_direct(state, hosts[r], from, at[r].0)?;
                            let to = Loc {
                                rank: q as u16,
                                buffer: recv[q].buffer,
                                index: recv[q].nth(r as i64 * per_peer * row_size + e) as u32,
                            };
                            moves.push((hosts[r], to, bits));
                        }
                        let count_loc = Loc {
                            rank: q as u16,
                            buffer: recv_counts[q].buffer,
                            index: recv_counts[q].nth(r as i64) as u32,
                        };
                        moves.push((hosts[q], count_loc, n as u64));
                    }
                }
                for (h, loc, bits) in moves {
                    self.write_direct(state, h, loc, bits, at[self.rank_of(h) as usize].0)?;
                }
            }
            _ => unreachable!("a collective"),
        }
        Self::forget_rests(state);
        let mut ready = Vec::new();
        for h in &hosts {
            let thread = &mut state.threads[*h as usize];
            tick(&mut thread.clock, *h);
            thread.frames.last_mut().unwrap().pc += 1;
            ready.push(*h);
        }
        Ok(ready)
    }
}
