//! The reference semantics: SEMANTICS.md's execution model ("The execution
//! model (`ccl-sim`): what a data race is") as an interpreter written to be
//! obviously right, not fast. Every reduced search of the machine
//! (`crate::machine`, `crate::explore`) is held against it
//! (`crate::crosscheck`, tests/sim_reference.rs): a search may be
//! cleverer, never different.
//!
//! What makes it a reference, rule by rule (each rule is quoted where it is
//! implemented):
//! - **Every op another thread can observe is a step of its own**: every
//!   `ccl` op, a launch, a kernel's join, an allocation and a deallocation.
//!   Between two steps a thread runs its local instructions (arithmetic,
//!   views, branches, calls that do not launch): they read and write only
//!   its own registers, so running them at once changes nothing any other
//!   thread can see or do.
//! - **Every write in flight lands on its own**, at any later step, in any
//!   order: a `put` of n elements is n writes in flight, a write-back of n
//!   lines is n, and two of them to one element land in either order.
//! - **Signals live in memory**: a notify reads and writes the cell's
//!   value, a wait is enabled exactly when the cell's value satisfies it.
//!   No wait is taken early or late by rule: every enabled wait is a
//!   choice like any other step.
//! - **Races are checked against every earlier access** of the location
//!   (its whole history), not a summary of it.
//! - **No reduction**: the search (`search`) follows every action from
//!   every state; a state is merged with another only when the two are
//!   equal in every part (no fingerprints).
//!
//! It shares with the machine the compiled program (`crate::program`) and
//! what an op computes on values (`crate::value`, `crate::views`); it
//! shares none of the machine's stepping code.

mod access;
mod collective;
mod local;
mod ops;
pub mod report;
pub mod search;
pub mod state;

pub use search::{explore, Exploration, Found, Kind};
pub use state::*;

use crate::program::{CclOp, FuncId, Instr, Kind as FuncKind, Program, SiteId, Ty};
use crate::value::{Val, View};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The fixed parameters of a run of the reference semantics.
#[derive(Clone, Debug)]
pub struct Reference {
    pub program: Arc<Program>,
    pub ranks: u16,
    /// Threads per rank: the host and the block slots (the widest launch).
    pub per_rank: u16,
    /// The entry's scalar arguments that are set (the others are zero).
    pub entry_args: Vec<Option<Val>>,
    /// Local instructions a thread may run between two steps before the
    /// run ends with no conclusion (a loop that never reaches a step).
    pub max_local_steps: u64,
}

/// Calls nested deeper than this in one thread are a limit (recursion).
const CALL_DEPTH_LIMIT: usize = 256;

pub(crate) fn error(site: Option<SiteId>, message: impl Into<String>) -> Finding {
    Finding::Error { site, message: message.into() }
}

pub(crate) fn limit(site: Option<SiteId>, message: impl Into<String>) -> Finding {
    Finding::Limit { site, message: message.into() }
}

/// The finding, at `site` if it has no place of its own.
fn located(finding: Finding, site: SiteId) -> Finding {
    match finding {
        Finding::Error { site: None, message } => Finding::Error { site: Some(site), message },
        Finding::Limit { site: None, message } => Finding::Limit { site: Some(site), message },
        other => other,
    }
}

impl Reference {
    /// The reference semantics of `program` on `ranks` ranks, with the
    /// entry's scalar arguments `entry_args` (by position; `None`: zero).
    pub fn new(program: Arc<Program>, ranks: u16, entry_args: Vec<Option<Val>>) -> Reference {
        let per_rank = 1 + program.slots.min(u16::MAX as u64 - 1) as u16;
        Reference { program, ranks, per_rank, entry_args, max_local_steps: 1_000_000 }
    }

    pub fn thread_count(&self) -> usize {
        self.ranks as usize * self.per_rank as usize
    }

    pub fn rank_of(&self, t: ThreadId) -> u16 {
        t / self.per_rank
    }

    /// 0 for the host, 1.. for block slots.
    pub fn slot_of(&self, t: ThreadId) -> u16 {
        t % self.per_rank
    }

    pub fn host_of(&self, rank: u16) -> ThreadId {
        rank * self.per_rank
    }

    /// The instruction `t` is at, if it is running one.
    pub fn instr<'p>(&'p self, state: &State, t: ThreadId) -> Option<&'p Instr> {
        let frame = state.threads[t as usize].frames.last()?;
        self.program.funcs[frame.func as usize].code.get(frame.pc as usize)
    }

    /// The op (its site) `t` rests at, if it rests at one.
    pub fn site_at(&self, state: &State, t: ThreadId) -> Option<SiteId> {
        let frame = state.threads[t as usize].frames.last()?;
        self.program.funcs[frame.func as usize].sites.get(frame.pc as usize).copied()
    }

    /// Whether `t` launches a kernel when it calls `callee`: "a `func.call`
    /// of an InCore function from orchestration code runs it as B blocks"
    /// (host code is what the hosts run; `ccl.submit` launches too).
    fn launches(&self, t: ThreadId, callee: FuncId, submit: bool) -> bool {
        self.slot_of(t) == 0 && (submit || self.program.funcs[callee as usize].kind == FuncKind::InCore)
    }

    /// Whether `instr` touches what another thread can see or do: then it
    /// is a step of its own.
    fn is_step(&self, t: ThreadId, instr: &Instr) -> bool {
        match instr {
            Instr::Ccl { .. } | Instr::Alloc { .. } | Instr::Dealloc { .. } => true,
            Instr::Call { callee, submit, .. } => self.launches(t, *callee, *submit),
            _ => false,
        }
    }

    // -----------------------------------------------------------------
    // The initial state
    // -----------------------------------------------------------------

    /// "Each rank runs the entry function; buffers of the entry's memref
    /// arguments are allocated per rank from their static types and
    /// zero-filled." A kernel entry is launched by each rank's host.
    pub fn initial(&self) -> State {
        let n = self.thread_count();
        let mut state = State {
            threads: (0..n)
                .map(|t| {
                    let mut clock = vec![0; n];
                    clock[t] = 1;
                    Thread { status: Status::Idle, frames: Vec::new(), clock, writes: 0, kernel: None, launch: 0 }
                })
                .collect(),
            buffers: Vec::new(),
            caches: vec![BTreeMap::new(); n],
            queues: vec![Vec::new(); n],
            signal_clocks: BTreeMap::new(),
            history: BTreeMap::new(),
            allocations: BTreeMap::new(),
            alloc_counts: BTreeMap::new(),
            launch_counts: BTreeMap::new(),
            finding: None,
        };
        let entry_site = self.program.funcs[self.program.entry as usize].site;
        let started = self.entry_arguments(&mut state).and_then(|args| self.start(&mut state, &args));
        if let Err(finding) = started.and_then(|()| self.settle(&mut state)) {
            state.finding = Some(located(finding, entry_site));
        }
        state
    }

    fn entry_arguments(&self, state: &mut State) -> Result<Vec<Val>, Finding> {
        let entry = &self.program.funcs[self.program.entry as usize];
        let mut args = Vec::new();
        for (n, ty) in entry.param_types.iter().enumerate() {
            let set = self.entry_args.get(n).cloned().flatten();
            args.push(match ty {
                Ty::Scalar(scalar) => set.unwrap_or_else(|| Val::zero(*scalar)),
                Ty::Vector { element, len } => Val::Vector(Arc::from(vec![Val::zero(*element).bits().unwrap(); *len])),
                Ty::MemRef { element, shape } => {
                    let Some(shape) = shape.iter().copied().collect::<Option<Vec<i64>>>() else {
                        return Err(error(None, format!("the entry @{} takes a memref of dynamic shape", entry.name)));
                    };
                    let id = self.new_buffer(state, *element, &shape)?;
                    for rank in 0..self.ranks {
                        self.make_copy(state, id, rank);
                    }
                    Val::MemRef(Arc::new(View::whole(id, *element, &shape)))
                }
                Ty::Other(_) => Val::Undef,
            });
        }
        Ok(args)
    }

    fn start(&self, state: &mut State, args: &[Val]) -> Result<(), Finding> {
        let entry = &self.program.funcs[self.program.entry as usize];
        for rank in 0..self.ranks {
            let host = self.host_of(rank);
            state.threads[host as usize].status = Status::Running;
            if entry.kind == FuncKind::InCore {
                self.launch(state, host, self.program.entry, args, entry.launch_width.unwrap_or(1), None)?;
            } else {
                let frame = self.frame(self.program.entry, args, Vec::new());
                state.threads[host as usize].frames.push(frame);
            }
        }
        Ok(())
    }

    pub(crate) fn frame(&self, func: FuncId, args: &[Val], results: Vec<crate::program::Reg>) -> Frame {
        let f = &self.program.funcs[func as usize];
        let mut regs = vec![Val::Undef; f.registers as usize];
        for (param, arg) in f.params.iter().zip(args) {
            regs[*param as usize] = arg.clone();
        }
        Frame { func, pc: 0, regs, results }
    }

    /// A new buffer of `shape`, with no copy on any rank yet.
    fn new_buffer(&self, state: &mut State, element: crate::program::Scalar, shape: &[i64]) -> Result<u32, Finding> {
        let len = crate::value::element_count(shape)
            .and_then(|len| u32::try_from(len).ok())
            .filter(|len| *len <= 1 << 24)
            .ok_or_else(|| {
                limit(None, format!("a buffer of shape {shape:?} is too large for the reference semantics"))
            })?;
        state.buffers.push(Buffer { element, len, copies: vec![Copy::Absent; self.ranks as usize] });
        Ok(state.buffers.len() as u32 - 1)
    }

    /// Rank `rank`'s copy of buffer `id`, zero-filled.
    fn make_copy(&self, state: &mut State, id: u32, rank: u16) {
        let buffer = &mut state.buffers[id as usize];
        let zero = Value { bits: Val::zero(buffer.element).bits().unwrap(), origin: Origin::Initial };
        buffer.copies[rank as usize] = Copy::Live(vec![zero; buffer.len as usize]);
    }

    // -----------------------------------------------------------------
    // Actions
    // -----------------------------------------------------------------

    /// Every action enabled in `state`, in a fixed order.
    pub fn actions(&self, state: &State) -> Vec<Action> {
        let mut actions = Vec::new();
        if state.finding.is_some() {
            return actions;
        }
        for t in 0..self.thread_count() as ThreadId {
            if self.step_enabled(state, t) {
                actions.push(Action::Step(t));
            }
        }
        for (t, queue) in state.queues.iter().enumerate() {
            for n in 0..queue.len() {
                actions.push(Action::Land(t as ThreadId, n));
            }
        }
        if self.collective_enabled(state) {
            actions.push(Action::Collective);
        }
        actions
    }

    /// Whether `t` can take the step it rests at.
    pub fn step_enabled(&self, state: &State, t: ThreadId) -> bool {
        let thread = &state.threads[t as usize];
        match thread.status {
            // "waits for all of them": a join is the host's step once every
            // block has finished and "every in-flight write of its blocks
            // has landed".
            Status::Joining { first, count } => (first..first + count)
                .all(|b| state.threads[b as usize].status == Status::Done && state.queues[b as usize].is_empty()),
            Status::Running => match self.instr(state, t) {
                Some(Instr::Ccl { op, .. }) => match op {
                    // "`wait` blocks until its condition holds."
                    CclOp::Wait { .. } => self.wait_holds(state, t).unwrap_or(true),
                    // "`fence` waits until every in-flight write of this
                    // block has landed."
                    CclOp::Fence => state.queues[t as usize].is_empty(),
                    // A host runs a collective with every other host
                    // (`Action::Collective`); a block at one reports the
                    // error.
                    op if op.is_collective() => self.slot_of(t) != 0,
                    _ => true,
                },
                Some(_) => true,
                None => false,
            },
            Status::Idle | Status::Done => false,
        }
    }

    /// Whether every host is at a collective (which one is checked when it
    /// runs).
    pub fn collective_enabled(&self, state: &State) -> bool {
        (0..self.ranks).all(|rank| {
            let host = self.host_of(rank);
            state.threads[host as usize].status == Status::Running
                && matches!(self.instr(state, host), Some(Instr::Ccl { op, .. }) if op.is_collective())
        })
    }

    /// Every thread has finished and nothing is in flight.
    pub fn finished(&self, state: &State) -> bool {
        state.threads.iter().all(|t| matches!(t.status, Status::Done | Status::Idle))
            && state.queues.iter().all(Vec::is_empty)
    }

    /// No finding, no action, and not finished.
    pub fn deadlocked(&self, state: &State) -> bool {
        state.finding.is_none() && !self.finished(state) && self.actions(state).is_empty()
    }

    /// The state after `action`.
    pub fn next(&self, state: &State, action: Action) -> State {
        let mut next = state.clone();
        self.apply(&mut next, action);
        next
    }

    /// Takes `action` (enabled in `state`); a finding ends the execution.
    pub fn apply(&self, state: &mut State, action: Action) {
        let result = match action {
            Action::Step(t) => self.take_step(state, t),
            Action::Land(t, n) => self.land(state, t, n),
            Action::Collective => self.collective(state),
        };
        if let Err(finding) = result.and_then(|()| self.settle(state)) {
            state.finding = Some(finding);
        }
    }

    /// `t`'s step: a join, or the instruction it rests at.
    fn take_step(&self, state: &mut State, t: ThreadId) -> Result<(), Finding> {
        if let Status::Joining { first, count } = state.threads[t as usize].status {
            self.join(state, t, first, count);
            return Ok(());
        }
        let frame = state.threads[t as usize].frames.last().expect("a running thread has a frame");
        let site = self.program.funcs[frame.func as usize].sites[frame.pc as usize];
        let instr = self.instr(state, t).expect("a stepping thread is at an instruction");
        let result = match instr {
            Instr::Ccl { site, op } => self.ccl(state, t, *site, op),
            Instr::Call { site, callee, args, results, width, .. } => {
                let frame = state.threads[t as usize].frames.last_mut().unwrap();
                frame.pc += 1;
                if !results.is_empty() {
                    return Err(error(Some(*site), "a launched kernel returns values: they cannot be joined"));
                }
                let values: Vec<Val> = args.iter().map(|a| frame.regs[*a as usize].clone()).collect();
                self.launch(state, t, *callee, &values, width.unwrap_or(1), Some(*site))
            }
            Instr::Alloc { dst, site, element, shape } => self.alloc(state, t, *dst, *site, *element, shape),
            Instr::Dealloc { src } => self.dealloc(state, t, *src),
            _ => unreachable!("a local instruction is never a step"),
        };
        result.map_err(|finding| located(finding, site))
    }

    /// Host `t` forks `width` blocks running `callee`: "runs it as B blocks
    /// ... and waits for all of them (fork and join edges)".
    fn launch(
        &self,
        state: &mut State,
        t: ThreadId,
        callee: FuncId,
        args: &[Val],
        width: u64,
        site: Option<SiteId>,
    ) -> Result<(), Finding> {
        if width >= self.per_rank as u64 {
            return Err(error(site, format!("a launch of {width} blocks, more than the {} slots", self.per_rank - 1)));
        }
        let rank = self.rank_of(t);
        let count = state.launch_counts.entry((rank, callee)).or_insert(0);
        *count += 1;
        let launch = *count;
        tick(state, t);
        let host_clock = state.threads[t as usize].clock.clone();
        let first = t + 1;
        for b in first..first + width as u16 {
            let frame = self.frame(callee, args, Vec::new());
            let block = &mut state.threads[b as usize];
            block.frames = vec![frame];
            block.status = Status::Running;
            block.kernel = Some(callee);
            block.launch = launch;
            join_clock(&mut block.clock, &host_clock);
            tick(state, b);
        }
        state.threads[t as usize].status = Status::Joining { first, count: width as u16 };
        Ok(())
    }

    /// Host `t` joins the blocks of its launch (every one finished, every
    /// write of theirs landed): it acquires their clocks. "It writes
    /// nothing back: dirty lines stay dirty and clean lines stay in the
    /// block slot's cache for the next launch there."
    fn join(&self, state: &mut State, t: ThreadId, first: ThreadId, count: u16) {
        tick(state, t);
        for b in first..first + count {
            let clock = state.threads[b as usize].clock.clone();
            join_clock(&mut state.threads[t as usize].clock, &clock);
            let block = &mut state.threads[b as usize];
            block.status = Status::Idle;
            block.frames.clear();
        }
        let host = &mut state.threads[t as usize];
        // A kernel entry was launched by a host with no frame of its own.
        host.status = if host.frames.is_empty() { Status::Done } else { Status::Running };
    }

    /// The `n`-th write in flight of `t` lands: "In-flight writes land in
    /// memory at any later step, in any order".
    fn land(&self, state: &mut State, t: ThreadId, n: usize) -> Result<(), Finding> {
        let pending = state.queues[t as usize].remove(n);
        match &mut state.buffers[pending.loc.buffer as usize].copies[pending.loc.rank as usize] {
            Copy::Live(values) => {
                values[pending.loc.index as usize] = pending.value;
                Ok(())
            }
            _ => Err(error(
                Some(pending.site),
                format!("a write in flight landed in rank {}'s copy of a buffer it deallocated", pending.loc.rank),
            )),
        }
    }

    fn alloc(
        &self,
        state: &mut State,
        t: ThreadId,
        dst: crate::program::Reg,
        site: SiteId,
        element: crate::program::Scalar,
        shape: &[i64],
    ) -> Result<(), Finding> {
        let slot = self.slot_of(t);
        let rank = self.rank_of(t);
        let count = state.alloc_counts.entry((t, site)).or_insert(0);
        *count += 1;
        let key = (site, slot, *count);
        let id = match state.allocations.get(&key) {
            // Another rank ran this allocation first: the same buffer.
            Some(id) => *id,
            None => {
                let id = self.new_buffer(state, element, shape)?;
                state.allocations.insert(key, id);
                id
            }
        };
        self.make_copy(state, id, rank);
        let frame = state.threads[t as usize].frames.last_mut().unwrap();
        frame.regs[dst as usize] = Val::MemRef(Arc::new(View::whole(id, element, shape)));
        frame.pc += 1;
        Ok(())
    }

    fn dealloc(&self, state: &mut State, t: ThreadId, src: crate::program::Reg) -> Result<(), Finding> {
        let frame = state.threads[t as usize].frames.last_mut().unwrap();
        frame.pc += 1;
        let Val::MemRef(view) = &frame.regs[src as usize] else {
            return Err(error(None, "a dealloc of a value that is not a memref"));
        };
        let copy = &mut state.buffers[view.buffer as usize].copies[self.rank_of(t) as usize];
        match copy {
            Copy::Live(_) => *copy = Copy::Freed,
            Copy::Freed => return Err(error(None, "a buffer deallocated twice")),
            Copy::Absent => return Err(error(None, "a dealloc of a buffer this rank has not allocated")),
        }
        Ok(())
    }
}

/// `t`'s own clock entry grows by one: its next event is a new one.
pub(crate) fn tick(state: &mut State, t: ThreadId) {
    state.threads[t as usize].clock[t as usize] += 1;
}

/// `clock` joined with `other`.
pub(crate) fn join_clock(clock: &mut Clock, other: &Clock) {
    for (x, y) in clock.iter_mut().zip(other) {
        *x = (*x).max(*y);
    }
}
