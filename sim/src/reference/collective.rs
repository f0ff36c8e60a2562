//! "Collectives not lowered (`barrier`, `all_reduce`, unlowered
//! `all_to_all_v`) run atomically across all ranks, writing memory directly
//! (behind every cache)." They run when every rank's host has reached one;
//! each host's accesses are its own (rank `r`'s host reads rank `r`'s
//! buffers; the rows rank `r` sends are written by rank `r`'s host), and
//! every host acquires every other's clock before and after.

use super::*;

impl Reference {
    pub(super) fn collective(&self, state: &mut State) -> Result<(), Finding> {
        let hosts: Vec<ThreadId> = (0..self.ranks).map(|rank| self.host_of(rank)).collect();
        let at: Vec<(SiteId, &CclOp, Vec<Val>)> = hosts
            .iter()
            .map(|h| match self.instr(state, *h) {
                Some(Instr::Ccl { site, op }) => {
                    (*site, op, state.threads[*h as usize].frames.last().unwrap().regs.clone())
                }
                _ => unreachable!("every host is at a collective"),
            })
            .collect();
        let (site, op, _) = &at[0];
        let site = *site;
        if let Some((other, _, _)) = at.iter().find(|(s, o, _)| {
            std::mem::discriminant(*o) != std::mem::discriminant(*op)
                || self.program.site(*s).op != self.program.site(site).op
        }) {
            let (a, b) = (self.program.site(site), self.program.site(*other));
            return Err(error(
                Some(*other),
                format!("ranks reached different collectives: {} at {} and {} at {}", a.op, a.loc, b.op, b.loc),
            ));
        }
        self.synchronize(state, &hosts);
        let views = |reg: &crate::program::Reg| -> Result<Vec<Arc<View>>, Finding> {
            at.iter()
                .map(|(s, _, regs)| match &regs[*reg as usize] {
                    Val::MemRef(view) => Ok(view.clone()),
                    _ => Err(error(Some(*s), "an operand that is not a memref value")),
                })
                .collect()
        };
        let loc = |view: &View, rank: usize, n: i64| Loc {
            rank: rank as u16,
            buffer: view.buffer,
            index: view.nth(n) as u32,
        };
        let ranks = self.ranks as usize;
        match op {
            CclOp::Barrier => {}
            // Every rank's `dst` gets the reduction over the ranks of `src`,
            // element by element.
            CclOp::AllReduce { src, dst, reduce } => {
                let (src, dst) = (views(src)?, views(dst)?);
                let len = src[0].len();
                if src.iter().chain(&dst).any(|v| v.len() != len) {
                    return Err(error(Some(site), "all_reduce over views of different sizes"));
                }
                for n in 0..len {
                    let mut combined: Option<u64> = None;
                    for r in 0..ranks {
                        let bits = self.read_direct(state, hosts[r], loc(&src[r], r, n), at[r].0)?;
                        combined = Some(match combined {
                            None => bits,
                            Some(acc) => crate::value::reduce(*reduce, acc, bits, dst[0].element),
                        });
                    }
                    for r in 0..ranks {
                        self.write_direct(state, hosts[r], loc(&dst[r], r, n), combined.unwrap_or(0), at[r].0)?;
                    }
                }
            }
            // Rank r sends its rows for peer q (`send_counts[q]` of them,
            // clamped to the rows per peer) into rows r of q's `recv`, and q's
            // `recv_counts[r]` says how many came.
            CclOp::AllToAllV { send, send_counts, recv, recv_counts } => {
                let (send, counts, recv, recv_counts) =
                    (views(send)?, views(send_counts)?, views(recv)?, views(recv_counts)?);
                let alike = |views: &[Arc<View>]| views.iter().all(|v| v.sizes == views[0].sizes);
                if !(alike(&send) && alike(&recv) && alike(&counts) && alike(&recv_counts)) {
                    return Err(error(Some(site), "all_to_all_v over views of different shapes on different ranks"));
                }
                let rows = recv[0].sizes.first().copied().unwrap_or(0);
                if rows % ranks as i64 != 0 || counts[0].len() < ranks as i64 || recv_counts[0].len() < ranks as i64 {
                    return Err(error(
                        Some(site),
                        format!("all_to_all_v over {ranks} ranks needs recv rows divisible by {ranks} and counts of at least {ranks}"),
                    ));
                }
                let per_peer = rows / ranks as i64;
                let row_size: i64 = recv[0].sizes.iter().skip(1).product();
                for r in 0..ranks {
                    for q in 0..ranks {
                        let count = self.read_direct(state, hosts[r], loc(&counts[r], r, q as i64), at[r].0)? as i64;
                        let count = count.clamp(0, per_peer);
                        for e in 0..count * row_size {
                            let from = q as i64 * per_peer * row_size + e;
                            if from >= send[r].len() {
                                return Err(error(Some(site), "all_to_all_v send rows out of bounds"));
                            }
                            let bits = self.read_direct(state, hosts[r], loc(&send[r], r, from), at[r].0)?;
                            let to = loc(&recv[q], q, r as i64 * per_peer * row_size + e);
                            self.write_direct(state, hosts[r], to, bits, at[r].0)?;
                        }
                        let received = loc(&recv_counts[q], q, r as i64);
                        self.write_direct(state, hosts[q], received, count as u64, at[q].0)?;
                    }
                }
            }
            _ => unreachable!("a collective"),
        }
        self.synchronize(state, &hosts);
        for h in &hosts {
            state.threads[*h as usize].frames.last_mut().unwrap().pc += 1;
        }
        Ok(())
    }

    /// Every host acquires every other's clock.
    fn synchronize(&self, state: &mut State, hosts: &[ThreadId]) {
        let mut clock = vec![0; self.thread_count()];
        for h in hosts {
            tick(state, *h);
            join_clock(&mut clock, &state.threads[*h as usize].clock);
        }
        for h in hosts {
            state.threads[*h as usize].clock = clock.clone();
        }
    }
}
