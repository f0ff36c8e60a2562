//! What a thread may touch from where it rests: an abstract interpretation
//! of its code from its concrete frames, over every path, collecting the
//! accesses of every instruction it may execute ([`access::of_instr`]).
//!
//! Two horizons: [`Horizon::NextRest`] follows the thread through the step
//! it rests at and on to every instruction at which it must rest again (a
//! notify, an `eq` wait, a collective: `Machine::rests_at` stops at them
//! whatever the state): what one step of the thread, with the local steps
//! it runs eagerly after it, may touch. [`Horizon::End`] follows it to the
//! end of its outermost function: everything it may still do. Both
//! over-approximate: every path is followed whether the state allows it or
//! not (a wait that may hold is passed, a read that may rest is run), values
//! read from memory are any value, and a loop's registers are widened until
//! they stop growing.

use super::absval::{self, AVal};
use super::access::{self, Accesses, Runner, Space};
use super::iset::ISet;
use crate::machine::{Frame, Loc, Machine, ThreadId};
use crate::program::{CclOp, FuncId, Instr, Kind, Operand, Query, Reg, Scalar};
use crate::value;

/// Register files kept apart at one instruction before new ones are joined
/// into the last: loops with known bounds (over the peers, the lanes) are
/// followed iteration by iteration, so each iteration's cell is exact.
const PATHS: usize = 32;
/// Joins into one register file before it is widened instead.
const WIDEN_AFTER: u32 = 4;
/// Calls followed into their callees, nested; deeper is any access.
const CALL_DEPTH: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Horizon {
    /// The step the thread rests at and the local steps after it.
    NextRest,
    /// Everything to the end of the thread's outermost function.
    End,
}

/// What a thread may touch within a horizon.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    pub accesses: Accesses,
    /// Whether it may return from its outermost function (a block finishes
    /// its launch, a host its program).
    pub finishes: bool,
    /// The waits it may reach (after the step it rests at).
    pub waits: Vec<WaitSite>,
    /// For a reach to the end cut at waits: per wait it stops at, what the
    /// thread runs when a write to the cell wakes it there.
    pub wakes: Vec<Wake>,
    /// The `atomic_add`s it makes on its way to its end, each cell and
    /// value, when that way is one path known exactly (every branch taken
    /// one way, every notify's cell, peer and value one value, no `set`),
    /// and it finishes; `None` otherwise. What a block of a launch adds
    /// before its host goes on (`Reducer::launch_adds`).
    pub adds: Option<Vec<(Loc, i64)>>,
}

/// What a thread stopped at a cut wait runs in the step that opens it (a
/// `ge` wait passes as soon as it holds, a fence as soon as its queue is
/// empty, and the thread runs on to its next rest in that step): the wait
/// or fence and every instruction after it up to one it must rest at.
#[derive(Clone, Debug)]
pub struct Wake {
    pub trigger: Trigger,
    pub accesses: Accesses,
    /// Whether the thread may return from its outermost function in it.
    pub finishes: bool,
}

/// What opens a cut wait: a write to its cell, or the landing of the
/// thread's last write in flight (a fence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    Cell(Blocked),
    Drain { thread: ThreadId, func: FuncId, pc: usize },
}

/// Where a walk stops: at the waits of `waits`, and at every fence of the
/// threads of `drained` (a write of theirs in flight does not land).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cut {
    /// Sorted.
    pub waits: Vec<Blocked>,
    /// Sorted.
    pub drained: Vec<ThreadId>,
}

impl Cut {
    pub const NONE: &'static Cut = &Cut { waits: Vec::new(), drained: Vec::new() };
}

/// A wait a walk reached: where, on which cell (when it is one known
/// cell) and for which values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WaitSite {
    pub at: Blocked,
    pub expected: ISet,
    pub equal: bool,
}

/// A wait that cannot pass (the reducer decides which): the function, the
/// instruction and the cell. A walk goes no further, and does not record
/// its read: the thread rests before it, and a wait that does not pass
/// touches nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Blocked {
    pub func: FuncId,
    pub pc: usize,
    pub cell: Loc,
}

/// The reach of thread `t`, resting in `frames` (outermost first), going no
/// further than `cut`.
pub fn reach(machine: &Machine, t: ThreadId, frames: &[Frame], horizon: Horizon, cut: &Cut) -> Reach {
    let runner = Runner { thread: t, rank: machine.rank_of(t), slot: machine.slot_of(t) };
    let mut walk = Walk {
        machine,
        runner,
        horizon,
        cut,
        accesses: Accesses::new(),
        waits: Vec::new(),
        wakes: Vec::new(),
        base: None,
        exact: Some(Vec::new()),
    };
    // The top frame runs from its pc (the step it rests at is taken); when
    // it may return, its caller runs on from the call, with the call's
    // results unknown.
    let mut take_first = true;
    for (k, frame) in frames.iter().enumerate().rev() {
        let mut regs: Vec<AVal> = frame.regs.iter().map(AVal::of).collect();
        if let Some(callee) = frames.get(k + 1) {
            for r in &callee.results {
                if let Some(reg) = regs.get_mut(*r as usize) {
                    *reg = AVal::Any;
                }
            }
        }
        walk.base = (k == 0).then_some(0);
        let returns = walk.function(frame.func, frame.pc as usize, regs, take_first, 0);
        take_first = false;
        if !returns {
            return Reach {
                accesses: walk.accesses,
                finishes: false,
                waits: walk.waits,
                wakes: walk.wakes,
                adds: None,
            };
        }
    }
    Reach { accesses: walk.accesses, finishes: true, waits: walk.waits, wakes: walk.wakes, adds: walk.exact }
}

struct Walk<'m> {
    machine: &'m Machine,
    runner: Runner,
    horizon: Horizon,
    cut: &'m Cut,
    accesses: Accesses,
    waits: Vec<WaitSite>,
    wakes: Vec<Wake>,
    /// The call depth at which the function walked is the thread's
    /// outermost (`None`: the walk starts in a callee frame).
    base: Option<usize>,
    /// The adds made so far while the walk has followed one path known
    /// exactly (`Reach::adds`); `None` once it has not.
    exact: Option<Vec<(Loc, i64)>>,
}

impl Walk<'_> {
    /// What the thread runs when woken at a cut wait or fence (the op at
    /// `pc` of `func`, reached with `regs` at call depth `depth`): a walk
    /// to its next rest from there, taking the op. Where it may return
    /// into a caller the walk does not see, any access.
    fn wake(&mut self, trigger: Trigger, func: FuncId, pc: usize, regs: Vec<AVal>, depth: usize) {
        let mut walk = Walk {
            machine: self.machine,
            runner: self.runner,
            horizon: Horizon::NextRest,
            cut: Cut::NONE,
            accesses: Accesses::new(),
            waits: Vec::new(),
            wakes: Vec::new(),
            base: self.base,
            exact: None,
        };
        let returns = walk.function(func, pc, regs, true, depth);
        let finishes = returns && self.base == Some(depth);
        if returns && !finishes {
            walk.accesses.add(Space::Everything, true);
        }
        match self.wakes.iter_mut().find(|w| w.trigger == trigger) {
            Some(known) => {
                known.accesses.extend(&walk.accesses);
                known.finishes |= finishes;
            }
            None => self.wakes.push(Wake { trigger, accesses: walk.accesses, finishes }),
        }
    }

    /// Whether the thread rests before `instr` in every state (so a
    /// `NextRest` walk stops there). Only ops `Machine::rests_at` always
    /// stops at: stopping anywhere else could leave accesses out.
    fn must_rest(&self, instr: &Instr) -> bool {
        let Instr::Ccl { op, .. } = instr else { return false };
        if self.machine.no_reduction {
            return true;
        }
        matches!(op, CclOp::Notify { .. } | CclOp::Wait { equal: true, .. }) || op.is_collective()
    }

    /// Walks `func` from `start` with `regs`; `take_first`: the instruction
    /// at `start` is run even where a `NextRest` walk would stop (it is the
    /// step the thread rests at). Returns whether the function may return.
    fn function(&mut self, func: FuncId, start: usize, regs: Vec<AVal>, take_first: bool, depth: usize) -> bool {
        let machine = self.machine;
        let f = &machine.program.funcs[func as usize];
        let n = f.code.len();
        // Instructions some jump or branch leads to: a compare right before
        // a branch refines the branch's registers only when nothing else
        // leads into the branch.
        let mut targets = vec![false; n + 1];
        for instr in &f.code {
            match instr {
                Instr::Jump { target } => targets[(*target).min(n)] = true,
                Instr::Branch { on_true, on_false, .. } => {
                    targets[(*on_true).min(n)] = true;
                    targets[(*on_false).min(n)] = true;
                }
                Instr::Switch { cases, default, .. } => {
                    for (_, label) in cases {
                        targets[(*label).min(n)] = true;
                    }
                    targets[(*default).min(n)] = true;
                }
                _ => {}
            }
        }
        // Per instruction, up to PATHS register files; work items name one.
        let mut at: Vec<Vec<(Vec<AVal>, u32)>> = vec![Vec::new(); n];
        let mut work: Vec<(usize, usize)> = Vec::new();
        let mut returns = false;
        let mut successors: Vec<(usize, Vec<AVal>)> = Vec::new();
        let mut first = Some((start, regs));
        loop {
            let (pc, regs, taken) = match first.take() {
                Some((pc, regs)) => (pc, regs, take_first),
                None => match work.pop() {
                    Some((pc, k)) => (pc, at[pc][k].0.clone(), false),
                    None => break,
                },
            };
            let Some(instr) = f.code.get(pc) else { continue };
            if self.horizon == Horizon::NextRest && !taken && self.must_rest(instr) {
                continue;
            }
            successors.clear();
            returns |= self.transfer(f, func, pc, instr, regs, &targets, depth, taken, &mut successors);
            // Two ways on: the path is no longer one.
            if successors.len() > 1 || !work.is_empty() {
                self.exact = None;
            }
            for (next, regs) in successors.drain(..) {
                if next >= n {
                    continue;
                }
                let paths = &mut at[next];
                if paths.iter().any(|(known, _)| *known == regs) {
                    continue;
                }
                if paths.len() < PATHS {
                    paths.push((regs, 0));
                    work.push((next, paths.len() - 1));
                    continue;
                }
                // Paths joined: values no longer exact.
                self.exact = None;
                let k = paths.len() - 1;
                let (old, joins) = &mut paths[k];
                *joins += 1;
                let widen = *joins > WIDEN_AFTER;
                let merged: Vec<AVal> =
                    old.iter().zip(&regs).map(|(a, b)| if widen { a.widen(b) } else { a.join(b) }).collect();
                if merged != *old {
                    *old = merged;
                    work.push((next, k));
                }
            }
        }
        returns
    }

    /// Records what `instr` may touch and pushes its successors with their
    /// registers; returns whether it returns from the function.
    #[allow(clippy::too_many_arguments)]
    fn transfer(
        &mut self,
        f: &crate::program::Func,
        func: FuncId,
        pc: usize,
        instr: &Instr,
        mut regs: Vec<AVal>,
        targets: &[bool],
        depth: usize,
        taken: bool,
        out: &mut Vec<(usize, Vec<AVal>)>,
    ) -> bool {
        match instr {
            Instr::Const { dst, value } => set(&mut regs, *dst, AVal::of(value)),
            Instr::Move { moves } => {
                let values: Vec<AVal> = moves.iter().map(|(_, s)| get(&regs, *s)).collect();
                for ((d, _), v) in moves.iter().zip(values) {
                    set(&mut regs, *d, v);
                }
            }
            Instr::Binary { dst, op, lhs, rhs, ty, wrap } => {
                let v = absval::binary(*op, &get(&regs, *lhs), &get(&regs, *rhs), *ty, *wrap);
                set(&mut regs, *dst, v);
            }
            Instr::Cast { dst, src, op, from, to } => {
                let v = absval::cast(*op, &get(&regs, *src), *from, *to);
                set(&mut regs, *dst, v);
            }
            Instr::CheckStep { .. } => {}
            Instr::Cmp { dst, pred, lhs, rhs, ty } => {
                let v = absval::compare(*pred, &get(&regs, *lhs), &get(&regs, *rhs), *ty);
                set(&mut regs, *dst, v);
            }
            Instr::Select { dst, cond, on_true, on_false } => {
                let c = get(&regs, *cond).ints();
                let v = match (may_be_true(&c), c.contains(0)) {
                    (true, false) => get(&regs, *on_true),
                    (false, true) => get(&regs, *on_false),
                    _ => get(&regs, *on_true).join(&get(&regs, *on_false)),
                };
                set(&mut regs, *dst, v);
            }
            Instr::Jump { target } => {
                out.push((*target, regs));
                return false;
            }
            Instr::Branch { cond, on_true, on_false } => {
                let c = get(&regs, *cond).ints();
                // `cond = lhs pred rhs` right before, and nothing else leads
                // here: each side learns what the comparison says of lhs.
                let compared = match pc.checked_sub(1).map(|p| &f.code[p]) {
                    Some(Instr::Cmp { dst, pred, lhs, rhs, ty: Scalar::Int(_) }) if dst == cond && !targets[pc] => {
                        Some((*pred, *lhs, *rhs))
                    }
                    _ => None,
                };
                for (taken, label, possible) in [(true, *on_true, may_be_true(&c)), (false, *on_false, c.contains(0))] {
                    if !possible {
                        continue;
                    }
                    let mut side = regs.clone();
                    if let Some((pred, lhs, rhs)) = compared {
                        if let AVal::Int(l) = get(&regs, lhs) {
                            let refined = absval::refine(pred, &l, &get(&regs, rhs).ints(), taken);
                            if refined.is_empty() {
                                continue;
                            }
                            set(&mut side, lhs, AVal::Int(refined));
                        }
                    }
                    out.push((label, side));
                }
                return false;
            }
            Instr::Switch { value, cases, default } => {
                let v = get(&regs, *value).ints();
                for (case, label) in cases {
                    if v.contains(*case) {
                        out.push((*label, regs.clone()));
                    }
                }
                let all_cased = v.values().is_some_and(|vs| vs.iter().all(|x| cases.iter().any(|(c, _)| c == x)));
                if !all_cased {
                    out.push((*default, regs));
                }
                return false;
            }
            Instr::Query { dst, what, ty } => {
                let v = match what {
                    Query::Rank => self.runner.rank as i64,
                    Query::BlockId => (self.runner.slot as i64 - 1).max(0),
                    Query::CommSize => self.machine.ranks as i64,
                };
                let bits = match ty {
                    Scalar::Int(b) => *b,
                    Scalar::Float(_) => 64,
                };
                set(&mut regs, *dst, AVal::Int(ISet::one(value::wrap(v, bits))));
            }
            Instr::CalBlocks { dst, .. } => set(&mut regs, *dst, AVal::Int(ISet::Any)),
            Instr::View { dst, src, kind } => {
                let v = absval::make_view(&get(&regs, *src), kind, |o| match o {
                    Operand::Static(v) => ISet::one(*v),
                    Operand::Reg(r) => get(&regs, *r).ints(),
                });
                set(&mut regs, *dst, v);
            }
            Instr::Alloc { dst, .. } => {
                self.accesses.add(Space::Everything, true);
                set(&mut regs, *dst, AVal::Any);
            }
            Instr::Dealloc { .. } => self.accesses.add(Space::Everything, true),
            Instr::Call { callee, args, results, submit, width, .. } => {
                if !self.call(*callee, args, *submit, *width, &regs, depth) {
                    return false;
                }
                for r in results {
                    set(&mut regs, *r, AVal::Any);
                }
            }
            Instr::Return { .. } => return true,
            Instr::Ccl { op, .. } => {
                if !self.ccl(instr, op, (func, pc), &mut regs, depth, taken) {
                    return false;
                }
            }
        }
        out.push((pc + 1, regs));
        false
    }

    /// A call of `callee` with `args` (read from `regs`) from depth `depth`:
    /// followed into the callee, or (`submit`, or an in-core callee from a
    /// host) a launch of `width` blocks running it. Returns whether the
    /// caller may go on after it.
    fn call(
        &mut self,
        callee: FuncId,
        args: &[Reg],
        submit: bool,
        width: Option<u64>,
        regs: &[AVal],
        depth: usize,
    ) -> bool {
        let machine = self.machine;
        let program = &machine.program;
        let launches = self.runner.slot == 0 && (submit || program.funcs[callee as usize].kind == Kind::InCore);
        let callee_f = &program.funcs[callee as usize];
        let args_of = |regs: &[AVal]| {
            let mut callee_regs = vec![AVal::Unset; callee_f.registers as usize];
            for (param, arg) in callee_f.params.iter().zip(args) {
                if let Some(slot) = callee_regs.get_mut(*param as usize) {
                    *slot = get(regs, *arg);
                }
            }
            callee_regs
        };
        if depth >= CALL_DEPTH {
            // A deeper call is not followed.
            self.accesses.add(Space::Everything, true);
            self.exact = None;
        } else if launches {
            self.exact = None;
            // A launch: each block of it runs the kernel, to its
            // end or (within the next step) to where it must rest,
            // going no further than the cut waits; the host waits
            // for them and goes on only if they may all finish.
            let width = width.unwrap_or(1).min(machine.per_rank as u64 - 1) as u16;
            let mut all_may_finish = true;
            for slot in 1..=width {
                let runner = Runner { thread: self.runner.thread + slot, rank: self.runner.rank, slot };
                let mut block = Walk {
                    machine,
                    runner,
                    horizon: self.horizon,
                    cut: self.cut,
                    accesses: Accesses::new(),
                    waits: Vec::new(),
                    wakes: Vec::new(),
                    base: Some(depth + 1),
                    exact: None,
                };
                all_may_finish &= block.function(callee, 0, args_of(regs), false, depth + 1);
                self.accesses.extend(&block.accesses);
                for site in block.waits {
                    if !self.waits.contains(&site) {
                        self.waits.push(site);
                    }
                }
                self.wakes.extend(block.wakes);
            }
            if !all_may_finish {
                return false;
            }
        } else {
            if !self.function(callee, 0, args_of(regs), false, depth + 1) {
                return false;
            }
        }
        true
    }

    /// Records a notify's add while the path is exact: one cell (element 0
    /// of a view of one buffer at one offset), on one peer, one value; a
    /// `set` or anything less known ends the exactness.
    fn note_add(&mut self, signal: Reg, peer: Reg, value: Reg, add: bool, regs: &[AVal]) {
        let Some(adds) = self.exact.as_mut() else { return };
        let known = get(regs, signal).view().and_then(|v| {
            let buffers = v.buffers.0.as_ref().filter(|b| b.len() == 1)?;
            let index = u32::try_from(v.offset.single()?).ok()?;
            let rank = u16::try_from(get(regs, peer).ints().single()?).ok().filter(|r| *r < self.machine.ranks)?;
            let value = get(regs, value).ints().single()?;
            Some((Loc { rank, buffer: buffers[0], index }, value))
        });
        match known {
            Some(add_of) if add => adds.push(add_of),
            _ => self.exact = None,
        }
    }

    /// A ccl op at `here` (its function and instruction): records what it
    /// may touch and sets the registers it loads. Returns whether the walk
    /// goes on past it (not at a cut wait or fence, where a walk to the end
    /// records the wake-up instead).
    fn ccl(
        &mut self,
        instr: &Instr,
        op: &CclOp,
        here: (FuncId, usize),
        regs: &mut Vec<AVal>,
        depth: usize,
        taken: bool,
    ) -> bool {
        let (func, pc) = here;
        // A fence of a thread with a write in flight that does not
        // land passes no further.
        let thread = self.runner.thread;
        if matches!(op, CclOp::Fence) && self.cut.drained.contains(&thread) {
            if self.horizon == Horizon::End {
                self.wake(Trigger::Drain { thread, func, pc }, func, pc, std::mem::take(regs), depth);
            }
            return false;
        }
        if let CclOp::Wait { signal, expected, equal } = op {
            // One known cell: a wait the reducer may call blocked
            // (not the step a `NextRest` walk takes: it is the step
            // the thread is woken for).
            let cell = get(regs, *signal).view().and_then(|v| {
                let buffers = v.buffers.0.as_ref().filter(|b| b.len() == 1)?;
                let index = u32::try_from(v.offset.single()?).ok()?;
                Some(Loc { rank: self.runner.rank, buffer: buffers[0], index })
            });
            if let (Some(cell), false) = (cell, taken && self.horizon == Horizon::NextRest) {
                let at = Blocked { func, pc, cell };
                if self.cut.waits.contains(&at) {
                    if self.horizon == Horizon::End {
                        self.wake(Trigger::Cell(at), func, pc, std::mem::take(regs), depth);
                    }
                    return false;
                }
                let site = WaitSite { at, expected: get(regs, *expected).ints(), equal: *equal };
                if !self.waits.contains(&site) {
                    self.waits.push(site);
                }
            }
        }
        if let CclOp::Notify { signal, peer, value, add } = op {
            self.note_add(*signal, *peer, *value, *add, regs);
        } else if op.is_collective() {
            self.exact = None;
        }
        let accesses = access::of_instr(self.machine, instr, self.runner, &|r| get(regs, r));
        self.accesses.extend(&accesses);
        match op {
            CclOp::RemoteLoad { result, .. } | CclOp::TileLoad { result, .. } | CclOp::Read { result, .. } => {
                set(regs, *result, AVal::Any)
            }
            // A host's collective is any access (it moves every
            // rank's data and joins every host).
            op if op.is_collective() => self.accesses.add(Space::Everything, true),
            _ => {}
        }
        true
    }
}

/// Whether an i1 (or any integer) of these values may be true (nonzero).
fn may_be_true(c: &ISet) -> bool {
    match c.values() {
        Some(values) => values.iter().any(|v| *v != 0),
        None => true,
    }
}

/// Register `r` of `regs` (any value where there is none).
fn get(regs: &[AVal], r: Reg) -> AVal {
    regs.get(r as usize).cloned().unwrap_or(AVal::Any)
}

/// Sets register `r` of `regs` to `v`, where there is one.
fn set(regs: &mut [AVal], r: Reg, v: AVal) {
    if let Some(slot) = regs.get_mut(r as usize) {
        *slot = v;
    }
}
