//! Local instructions: what a thread runs between two steps. Each reads and
//! writes only the thread's own frames (registers, program counter, call
//! stack), so no other thread can tell when it runs; a kernel's block that
//! returns from its outermost frame finishes (only its host's join reads
//! that, and the join is a step of its own).

use super::*;
use crate::program::{Query, Reg};
use crate::value::{self, lanewise1, lanewise2};
use crate::views::make_view;

impl Reference {
    /// Runs every running thread's local instructions up to the step it
    /// rests at.
    pub(super) fn settle(&self, state: &mut State) -> Result<(), Finding> {
        for t in 0..self.thread_count() as ThreadId {
            self.run_local(state, t)?;
        }
        Ok(())
    }

    fn run_local(&self, state: &mut State, t: ThreadId) -> Result<(), Finding> {
        let mut budget = self.max_local_steps;
        while state.threads[t as usize].status == Status::Running {
            let Some(frame) = state.threads[t as usize].frames.last() else { break };
            let func = &self.program.funcs[frame.func as usize];
            let Some(instr) = func.code.get(frame.pc as usize) else {
                return Err(error(Some(func.site), format!("@{} ran past its last instruction", func.name)));
            };
            if self.is_step(t, instr) {
                break;
            }
            let site = func.sites[frame.pc as usize];
            if budget == 0 {
                let max = self.max_local_steps;
                return Err(limit(
                    Some(site),
                    format!("a thread ran {max} local steps without reaching one another thread can observe"),
                ));
            }
            budget -= 1;
            self.local(state, t, instr).map_err(|finding| located(finding, site))?;
        }
        Ok(())
    }

    /// Runs the local instruction `instr` of `t`.
    fn local(&self, state: &mut State, t: ThreadId, instr: &Instr) -> Result<(), Finding> {
        let rank = self.rank_of(t);
        let slot = self.slot_of(t);
        let ranks = self.ranks;
        let thread = &mut state.threads[t as usize];
        let depth = thread.frames.len();
        let frame = thread.frames.last_mut().expect("a running thread has a frame");
        frame.pc += 1;
        let reg = |frame: &Frame, r: Reg| frame.regs[r as usize].clone();
        let fail = |message: String| error(None, message);
        match instr {
            Instr::Const { dst, value } => frame.regs[*dst as usize] = value.clone(),
            Instr::Move { moves } => {
                let values: Vec<Val> = moves.iter().map(|(_, src)| reg(frame, *src)).collect();
                for ((dst, _), v) in moves.iter().zip(values) {
                    frame.regs[*dst as usize] = v;
                }
            }
            Instr::Binary { dst, op, lhs, rhs, ty, wrap } => {
                frame.regs[*dst as usize] =
                    lanewise2(&reg(frame, *lhs), &reg(frame, *rhs), |a, b| value::binary(*op, a, b, *ty, *wrap))
                        .map_err(fail)?;
            }
            Instr::Cast { dst, src, op, from, to } => {
                frame.regs[*dst as usize] = lanewise1(&reg(frame, *src), |a| value::cast(*op, a, *from, *to), *to)
                    .ok_or_else(|| fail("a cast of an unset value".into()))?
                    .map_err(fail)?;
            }
            Instr::CheckStep { step } => match reg(frame, *step).as_int() {
                Some(step) if step > 0 => {}
                Some(step) => return Err(fail(format!("a loop step of {step}: MLIR needs a positive step"))),
                None => return Err(fail("a loop step that is not set".into())),
            },
            Instr::Cmp { dst, pred, lhs, rhs, ty } => {
                let (Some(a), Some(b)) = (reg(frame, *lhs).bits(), reg(frame, *rhs).bits()) else {
                    return Err(fail("a comparison of unset values".into()));
                };
                // An i1 true is all ones, as integers are held sign-extended.
                frame.regs[*dst as usize] = Val::Int(-(value::compare(*pred, a, b, *ty) as i64));
            }
            Instr::Select { dst, cond, on_true, on_false } => {
                let taken = reg(frame, *cond).as_int().unwrap_or(0) != 0;
                frame.regs[*dst as usize] = reg(frame, if taken { *on_true } else { *on_false });
            }
            Instr::Jump { target } => frame.pc = *target as u32,
            Instr::Branch { cond, on_true, on_false } => {
                let taken = reg(frame, *cond).as_int().unwrap_or(0) != 0;
                frame.pc = if taken { *on_true } else { *on_false } as u32;
            }
            Instr::Switch { value, cases, default } => {
                let v = reg(frame, *value).as_int().unwrap_or(0);
                frame.pc = cases.iter().find(|(case, _)| *case == v).map_or(*default, |(_, label)| *label) as u32;
            }
            Instr::Query { dst, what, ty } => {
                let v = match what {
                    Query::Rank => rank as i64,
                    // The host has no block id; a kernel entry's host never
                    // runs one.
                    Query::BlockId => (slot as i64 - 1).max(0),
                    Query::CommSize => ranks as i64,
                };
                frame.regs[*dst as usize] = Val::Int(value::wrap(v, scalar_bits(*ty)));
            }
            Instr::CalBlocks { site, dst, p, l, ty } => {
                let (Some(p), Some(l)) = (reg(frame, *p).as_int(), reg(frame, *l).as_int()) else {
                    return Err(error(Some(*site), "CalAllToAllVBlocks of unset values"));
                };
                let b = cclir_support::formula::blocks(p as i128, l as i128)
                    .map_err(|e| error(Some(*site), e.to_string()))?;
                frame.regs[*dst as usize] = Val::Int(value::wrap(b as i64, scalar_bits(*ty)));
            }
            Instr::View { dst, src, kind } => {
                let Val::MemRef(source) = reg(frame, *src) else {
                    return Err(fail("a view of a value that is not a memref".into()));
                };
                let view = make_view(&source, kind, &frame.regs).map_err(fail)?;
                frame.regs[*dst as usize] = Val::MemRef(Arc::new(view));
            }
            // A call that does not launch runs in this thread.
            Instr::Call { site, callee, args, results, .. } => {
                if depth >= CALL_DEPTH_LIMIT {
                    return Err(limit(
                        Some(*site),
                        format!("calls nested deeper than {CALL_DEPTH_LIMIT} (recursion?)"),
                    ));
                }
                let values: Vec<Val> = args.iter().map(|a| reg(frame, *a)).collect();
                let callee_frame = self.frame(*callee, &values, results.clone());
                thread.frames.push(callee_frame);
            }
            Instr::Return { values } => {
                let values: Vec<Val> = values.iter().map(|v| reg(frame, *v)).collect();
                let done = thread.frames.pop().expect("a frame");
                match thread.frames.last_mut() {
                    Some(caller) => {
                        for (r, v) in done.results.iter().zip(values) {
                            caller.regs[*r as usize] = v;
                        }
                    }
                    // The outermost frame: a host is done; a block has
                    // finished (its host joins it as a step of its own).
                    None => thread.status = Status::Done,
                }
            }
            Instr::Ccl { .. } | Instr::Alloc { .. } | Instr::Dealloc { .. } => {
                unreachable!("a step is never run as a local instruction")
            }
        }
        Ok(())
    }
}

fn scalar_bits(ty: crate::program::Scalar) -> u32 {
    match ty {
        crate::program::Scalar::Int(bits) => bits,
        crate::program::Scalar::Float(_) => 64,
    }
}
