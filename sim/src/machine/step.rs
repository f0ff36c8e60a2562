//! The interpreter: one instruction of a thread's frame (arithmetic,
//! branches, calls and returns, views, launches), and a kernel's end.

use super::footprint::{Part, Touch};
use super::races::{join_into, join_with, tick};
use super::*;
use crate::value::{lanewise1, lanewise2};
use crate::views::make_view;

impl Machine {
    /// The function `t`'s markers count for: its kernel, or the entry for
    /// host code.
    pub(super) fn counted_as(&self, state: &State, t: ThreadId) -> FuncId {
        match state.threads[t as usize].kernel {
            Some(kernel) if self.slot_of(t) != 0 => kernel,
            _ => self.program.entry,
        }
    }

    pub(super) fn frame_mut<'s>(&self, state: &'s mut State, t: ThreadId) -> &'s mut Frame {
        state.threads[t as usize].frames.last_mut().expect("a running thread has a frame")
    }

    /// Executes the instruction `t` is at; returns threads made ready. An
    /// error is located at the op the instruction comes from.
    pub(super) fn step(&self, state: &mut State, t: ThreadId) -> Result<Vec<ThreadId>, Fail> {
        let frame = state.threads[t as usize].frames.last().expect("a running thread has a frame");
        let here = self.program.funcs[frame.func as usize].sites[frame.pc as usize];
        self.execute(state, t).map_err(|finding| finding.located(here))
    }

    pub(super) fn execute(&self, state: &mut State, t: ThreadId) -> Result<Vec<ThreadId>, Fail> {
        if let Some(rest) = state.rests.0.get_mut(t as usize) {
            *rest = None;
        }
        // The program's, not the state's: read in place while the state changes.
        let instr = self.instr(state, t).expect("a running thread is at an instruction");
        let frame = self.frame_mut(state, t);
        frame.pc += 1;
        let reg = |frame: &Frame, r: Reg| frame.regs[r as usize].clone();
        match *instr {
            Instr::Const { dst, ref value } => frame.regs[dst as usize] = value.clone(),
            Instr::Move { ref moves } => {
                let values: Vec<Val> = moves.iter().map(|(_, s)| reg(frame, *s)).collect();
                for ((d, _), v) in moves.iter().zip(values) {
                    frame.regs[*d as usize] = v;
                }
            }
            Instr::Binary { dst, op, lhs, rhs, ty, wrap } => {
                let result = lanewise2(&reg(frame, lhs), &reg(frame, rhs), |a, b| value::binary(op, a, b, ty, wrap))
                    .map_err(|m| fail(None, m))?;
                frame.regs[dst as usize] = result;
            }
            Instr::Cast { dst, src, op, from, to } => {
                let result = lanewise1(&reg(frame, src), |a| value::cast(op, a, from, to), to)
                    .ok_or_else(|| fail(None, "a cast of an unset value"))?
                    .map_err(|m| fail(None, m))?;
                frame.regs[dst as usize] = result;
            }
            Instr::CheckStep { step } => match reg(frame, step).as_int() {
                Some(step) if step > 0 => {}
                Some(step) => return Err(fail(None, format!("a loop step of {step}: MLIR needs a positive step"))),
                None => return Err(fail(None, "a loop step that is not set")),
            },
            Instr::Cmp { dst, pred, lhs, rhs, ty } => {
                let (Some(a), Some(b)) = (reg(frame, lhs).bits(), reg(frame, rhs).bits()) else {
                    return Err(fail(None, "a comparison of unset values"));
                };
                frame.regs[dst as usize] = Val::Int(-(value::compare(pred, a, b, ty) as i64));
            }
            Instr::Select { dst, cond, on_true, on_false } => {
                let c = reg(frame, cond).as_int().unwrap_or(0) != 0;
                frame.regs[dst as usize] = reg(frame, if c { on_true } else { on_false });
            }
            Instr::Jump { target } => frame.pc = target as u32,
            Instr::Branch { cond, on_true, on_false } => {
                let c = reg(frame, cond).as_int().unwrap_or(0) != 0;
                frame.pc = if c { on_true } else { on_false } as u32;
            }
            Instr::Switch { value, ref cases, default } => {
                let v = reg(frame, value).as_int().unwrap_or(0);
                frame.pc = cases.iter().find(|(c, _)| *c == v).map(|(_, l)| *l).unwrap_or(default) as u32;
            }
            Instr::Query { dst, what, ty } => {
                let v = match what {
                    Query::Rank => self.rank_of(t) as i64,
                    Query::BlockId => (self.slot_of(t) as i64 - 1).max(0),
                    Query::CommSize => self.ranks as i64,
                };
                let bits = match ty {
                    Scalar::Int(b) => b,
                    Scalar::Float(_) => 64,
                };
                frame.regs[dst as usize] = Val::Int(value::wrap(v, bits));
            }
            Instr::CalBlocks { site, dst, p, l, ty } => {
                let (Some(p), Some(l)) = (reg(frame, p).as_int(), reg(frame, l).as_int()) else {
                    return Err(fail(Some(site), "CalAllToAllVBlocks of unset values"));
                };
                let b = cclir_support::formula::blocks(p as i128, l as i128)
                    .map_err(|e| fail(Some(site), e.to_string()))?;
                let bits = match ty {
                    Scalar::Int(b) => b,
                    Scalar::Float(_) => 64,
                };
                frame.regs[dst as usize] = Val::Int(value::wrap(b as i64, bits));
            }
            Instr::View { dst, src, ref kind } => {
                let Val::MemRef(source) = reg(frame, src) else {
                    return Err(fail(None, "a view of a value that is not a memref"));
                };
                let view = make_view(&source, kind, &frame.regs).map_err(|m| fail(None, m))?;
                frame.regs[dst as usize] = Val::MemRef(Arc::new(view));
            }
            Instr::Alloc { dst, site, element, ref shape } => {
                self.touch(Part::Everything, Touch::Write);
                self.note(state, t, Some(site), || EventKind::Memory);
                // A copy made under a thread that waits on it: look again.
                Self::forget_rests(state);
                let slot = self.slot_of(t);
                let count = state.alloc_counts.entry((t, site)).or_insert(0);
                *count = count.checked_add(1).ok_or_else(|| limit(None, "2^32 executions of one allocation"))?;
                let key = (site, slot, *count);
                let rank = self.rank_of(t);
                let id = match state.allocations.get(&key) {
                    // Another rank ran this allocation first: the buffer is
                    // the same, this rank's copy is made now.
                    Some(id) => {
                        let buffer = &state.buffers[*id as usize];
                        let copy = self.new_copy(element, buffer.len, 1, "this allocation")?;
                        let buffer = &mut state.buffers[*id as usize];
                        buffer.ranks[rank as usize] = copy;
                        buffer.copies[rank as usize] = Presence::Live;
                        *id
                    }
                    None => {
                        let signal = self.facts.may_signal(crate::analysis::Root::Alloc(site));
                        let id = self.new_buffer(state, element, shape, Some(rank), signal, "this allocation")?;
                        state.allocations.insert(key, id);
                        id
                    }
                };
                self.frame_mut(state, t).regs[dst as usize] = Val::MemRef(Arc::new(View::whole(id, element, shape)));
            }
            Instr::Dealloc { src } => {
                self.touch(Part::Everything, Touch::Write);
                let here = self.program.funcs[frame.func as usize].sites[frame.pc as usize - 1];
                let freed = reg(frame, src);
                self.note(state, t, Some(here), || EventKind::Memory);
                let Val::MemRef(view) = freed else {
                    return Err(fail(None, "a dealloc of a value that is not a memref"));
                };
                // A copy freed under a thread that waits on it: look again.
                Self::forget_rests(state);
                let rank = self.rank_of(t) as usize;
                let buffer = &mut state.buffers[view.buffer as usize];
                match buffer.copies[rank] {
                    Presence::Live => {}
                    Presence::Freed => return Err(fail(None, "a buffer deallocated twice")),
                    Presence::Absent => return Err(fail(None, "a dealloc of a buffer this rank has not allocated")),
                }
                buffer.copies[rank] = Presence::Freed;
                buffer.ranks[rank] = Shared::new(Vec::new());
            }
            Instr::Call { site, callee, ref args, ref results, width, submit } => {
                let values: Vec<Val> = args.iter().map(|a| reg(frame, *a)).collect();
                let is_host = self.slot_of(t) == 0;
                let launches = is_host && (submit || self.program.funcs[callee as usize].kind == Kind::InCore);
                if launches {
                    if !results.is_empty() {
                        return Err(fail(Some(site), "a launched kernel returns values: ccl-sim cannot join them"));
                    }
                    let width = width.unwrap_or(1);
                    return self.launch(state, t, callee, &values, width, Some(site));
                }
                let thread = &mut state.threads[t as usize];
                if thread.frames.len() >= CALL_DEPTH_LIMIT {
                    return Err(limit(
                        Some(site),
                        format!("calls nested deeper than {CALL_DEPTH_LIMIT} (recursion?): no conclusion"),
                    ));
                }
                let frame = self.frame(callee, &values, results.clone());
                state.threads[t as usize].frames.push(frame);
            }
            Instr::Return { ref values } => {
                let values: Vec<Val> = values.iter().map(|v| reg(frame, *v)).collect();
                let thread = &mut state.threads[t as usize];
                let done = thread.frames.pop().expect("frame");
                if let Some(caller) = thread.frames.last_mut() {
                    for (r, v) in done.results.iter().zip(values) {
                        caller.regs[*r as usize] = v;
                    }
                } else {
                    return Ok(self.finish(state, t));
                }
            }
            Instr::Ccl { site, ref op } => return self.ccl(state, t, site, op),
        }
        Ok(Vec::new())
    }

    /// Forks `width` blocks running `callee` from host `t`.
    pub(super) fn launch(
        &self,
        state: &mut State,
        t: ThreadId,
        callee: FuncId,
        args: &[Val],
        width: u64,
        site: Option<SiteId>,
    ) -> Result<Vec<ThreadId>, Fail> {
        if width >= self.per_rank as u64 {
            return Err(fail(site, format!("a launch of {width} blocks, more than the {} slots", self.per_rank - 1)));
        }
        let rank = self.rank_of(t);
        let count = state.launch_counts.entry((rank, callee)).or_insert(0);
        *count = count.checked_add(1).ok_or_else(|| limit(site, "2^32 launches of one kernel: no conclusion"))?;
        let launch = *count;
        state.cost.of(callee).launches += 1;
        Self::forget_rests(state);
        let host_clock = state.threads[t as usize].clock.clone();
        let first = t + 1;
        for b in 0..width as u16 {
            let block = first + b;
            self.touch(Part::Thread(block), Touch::Write);
            self.touch(Part::Status(block), Touch::Write);
            let frame = self.frame(callee, args, Vec::new());
            let thread = &mut state.threads[block as usize];
            thread.frames = vec![frame];
            thread.status = Status::Running;
            thread.launch = launch;
            thread.kernel = Some(callee);
            join_into(&mut thread.clock, &host_clock);
        }
        self.note(state, t, site, || EventKind::Launch { first, count: width as u16, kernel: callee });
        let host = &mut state.threads[t as usize];
        tick(&mut host.clock, t);
        host.status = Status::Joining { first, count: width as u16 };
        Ok((first..first + width as u16).rev().collect())
    }

    /// `t` returned from its outermost frame: a host is done; the last block
    /// of a launch whose writes have all landed joins its host, which runs on
    /// (with eager wake-ups; else the host joins as a step of its own,
    /// `joinable`; a landing may be what completes the launch, `apply`).
    pub(super) fn finish(&self, state: &mut State, t: ThreadId) -> Vec<ThreadId> {
        Self::forget_rests(state);
        self.note(state, t, None, || EventKind::Exit);
        self.touch(Part::Status(t), Touch::Write);
        state.threads[t as usize].status = Status::Done;
        if self.slot_of(t) == 0 || !self.eager_wakeups {
            return Vec::new();
        }
        let host = self.host_of(self.rank_of(t));
        match self.joining(state, host) {
            Some((first, count)) => self.join(state, host, first, count),
            None => Vec::new(),
        }
    }

    /// The launch host `t` waits for, if it can be joined: every block of
    /// it has finished and every write a block sent has landed ("A kernel
    /// completes only when its memory operations have"). Which block
    /// finished last, or which write landed last, decides nothing else:
    /// what the join reads is every block's status and queue.
    pub(super) fn joining(&self, state: &State, t: ThreadId) -> Option<(ThreadId, u16)> {
        let Status::Joining { first, count } = state.threads[t as usize].status else { return None };
        self.touch(Part::Thread(t), Touch::Read);
        for b in first..first + count {
            self.touch(Part::Status(b), Touch::Read);
            self.touch(Part::Queue(b), Touch::Read);
        }
        self.launch_complete(state, first, count).then_some((first, count))
    }

    /// Every block of the launch `first..first + count` has finished, and
    /// nothing it sent is in flight.
    pub(super) fn launch_complete(&self, state: &State, first: ThreadId, count: u16) -> bool {
        (first..first + count)
            .all(|b| state.threads[b as usize].status == Status::Done && state.inflight[b as usize].is_empty())
    }

    /// Whether host `t` can join its launch as a step of its own: without
    /// eager wake-ups, once its launch is complete.
    pub(super) fn joinable(&self, state: &State, t: ThreadId) -> bool {
        !self.eager_wakeups
            && matches!(state.threads[t as usize].status, Status::Joining { first, count }
                if self.launch_complete(state, first, count))
    }

    /// Host `t` joins the launch it waits for, whose blocks have finished.
    pub(super) fn join_step(&self, state: &mut State, t: ThreadId) -> Vec<ThreadId> {
        Self::forget_rests(state);
        match self.joining(state, t) {
            Some((first, count)) => self.join(state, t, first, count),
            None => Vec::new(),
        }
    }

    /// The host acquires every block's clock; the blocks go idle.
    pub(super) fn join(&self, state: &mut State, host: ThreadId, first: ThreadId, count: u16) -> Vec<ThreadId> {
        self.touch(Part::Thread(host), Touch::Write);
        let mut clock = (*state.threads[host as usize].clock).clone();
        for b in first..first + count {
            self.touch(Part::Thread(b), Touch::Write);
            self.touch(Part::Status(b), Touch::Write);
            let block = &mut state.threads[b as usize];
            join_with(&mut clock, &block.clock);
            tick(&mut block.clock, b);
            block.status = Status::Idle;
            block.frames.clear();
        }
        self.note(state, host, None, || EventKind::Join { first, count });
        let host_thread = &mut state.threads[host as usize];
        host_thread.clock = Shared::new(clock);
        if host_thread.frames.is_empty() {
            // The entry was the kernel itself (`initial` launched it with no
            // host frame): the host has nothing left to run.
            host_thread.status = Status::Done;
            return Vec::new();
        }
        host_thread.status = Status::Running;
        vec![host]
    }

    // -----------------------------------------------------------------
    // Memory
    // -----------------------------------------------------------------
}
