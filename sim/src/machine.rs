//! The machine state of the execution model (docs/semantics.md, "The
//! execution model") and its transitions: P ranks of threads (one host and
//! the block slots), each block slot with a private non-coherent cache and
//! an in-flight queue, memory per rank, signals with vector clocks, and the
//! shadow state that finds data races.
//!
//! A thread rests only at a step other threads can observe (a GM read that
//! misses its cache, a notify, a wait, a fence with writes still in flight,
//! a collective); everything in between runs eagerly inside the step before
//! it, because it touches nothing another thread reads. The schedules the
//! explorer chooses between are these steps and the landings of in-flight
//! writes.

use super::cost::Tally;
use super::memory;
use super::program::*;
use super::trace::{self, EventKind, Recorder};
use super::value::{self, Val, View};
use std::collections::BTreeMap;
use std::sync::Arc;

pub type ThreadId = u16;

/// A memory location: an element of a buffer on a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub rank: u16,
    pub buffer: u32,
    pub index: u32,
}

/// The write that produced a value: its thread and that thread's epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WriteId {
    pub thread: ThreadId,
    /// The thread's count of writes: two writes in one epoch differ.
    pub seq: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub bits: u64,
    pub writer: Option<WriteId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Line {
    pub cell: Cell,
    pub dirty: bool,
}

/// Writes one op sent toward memory; they land together, at a step of
/// their own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    pub site: SiteId,
    pub writes: Vec<(Loc, Cell)>,
}

/// One access, as the race reports name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Access {
    pub thread: ThreadId,
    pub epoch: u32,
    /// For a write, the thread's count of writes so far.
    pub seq: u32,
    pub site: SiteId,
    /// The launch of the kernel the thread was running (1-based per rank
    /// and kernel), 0 for host code.
    pub launch: u32,
    pub kernel: Option<FuncId>,
    pub write: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Shadow {
    pub write: Option<Access>,
    pub reads: Vec<Access>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaceKind {
    /// A read returned a value older than a write that happens before it.
    StaleRead,
    /// Two accesses of different blocks, one a write, not ordered.
    Unordered,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Race {
    pub kind: RaceKind,
    pub loc: Loc,
    /// The earlier access (for a stale read, the write the read missed).
    pub first: Access,
    /// The access that found the race.
    pub second: Access,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Finding {
    Race(Race),
    /// A runtime error of the program (an index out of bounds, a peer out of
    /// range, ranks at different collectives, arithmetic MLIR leaves
    /// undefined).
    Error {
        site: Option<SiteId>,
        message: String,
    },
    /// A bound of the simulator reached (memory, local steps, sizes it
    /// cannot represent): nothing can be concluded about the program.
    Limit {
        site: Option<SiteId>,
        message: String,
    },
    /// No step possible, and some thread has not finished (a wait nobody
    /// satisfies, a host at a collective the others never reach).
    Deadlock,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub func: FuncId,
    pub pc: u32,
    pub regs: Vec<Val>,
    /// Where the caller wants the results.
    pub results: Vec<Reg>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// A block slot with no kernel running.
    Idle,
    Running,
    /// A host waiting for the blocks of a launch.
    Joining {
        first: ThreadId,
        count: u16,
    },
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thread {
    pub status: Status,
    pub frames: Vec<Frame>,
    pub clock: Arc<Vec<u32>>,
    pub launch: u32,
    pub kernel: Option<FuncId>,
    pub writes: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    pub element: Scalar,
    /// One copy per rank (windows are symmetric: a peer's copy of the same
    /// operand is the same buffer on the peer).
    pub ranks: Vec<Arc<Vec<Cell>>>,
    /// Per rank, whether its copy exists (an allocation makes a rank's copy
    /// when that rank runs it; `memref.dealloc` frees it).
    pub copies: Vec<Presence>,
    /// Elements of each copy.
    pub len: u32,
}

/// Whether a rank's copy of a buffer exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presence {
    /// Not allocated on this rank yet (held empty).
    Absent,
    Live,
    /// Deallocated (held empty).
    Freed,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub threads: Vec<Thread>,
    pub buffers: Vec<Buffer>,
    pub caches: Vec<Arc<BTreeMap<Loc, Line>>>,
    /// Per thread, kept sorted: the order of the queue does not matter.
    pub inflight: Vec<Vec<Unit>>,
    /// How many in-flight writes go to each location: `inflight` indexed.
    pub inflight_index: Derived<BTreeMap<Loc, u32>>,
    /// How many caches hold a dirty line of each location: `caches` indexed.
    pub dirty_index: Derived<BTreeMap<Loc, u32>>,
    pub signal_clocks: BTreeMap<Loc, Arc<Vec<u32>>>,
    /// Signal cells a `set` notify has written: their clocks are not
    /// monotone, so waits on them are always scheduling points.
    pub set_cells: std::collections::BTreeSet<Loc>,
    pub shadow: BTreeMap<Loc, Shadow>,
    /// Dynamic allocations: (site, slot, n-th by that slot) -> buffer.
    pub allocations: BTreeMap<(SiteId, u16, u32), u32>,
    pub alloc_counts: BTreeMap<(ThreadId, SiteId), u32>,
    pub launch_counts: BTreeMap<(u16, FuncId), u32>,
    /// Per thread, what it rests at, read once from its frame: every
    /// running thread is settled and asked whether it is enabled after
    /// every step, and at P = 16 most of 528 rest at a notify or a wait.
    /// Set when the thread comes to rest; cleared when its frames may
    /// change (it executes, a launch, a join, a collective).
    pub rests: Derived<Vec<Option<Rest>>>,
    pub finding: Option<Arc<Finding>>,
    /// What the schedule so far executed (not part of the state's identity).
    pub cost: Tally,
}

/// What a resting thread rests at (`State::rests`).
#[derive(Clone, Copy, Debug)]
pub enum Rest {
    /// A `ccl.notify`: always a scheduling point, always enabled.
    Notify,
    Wait(WaitAt),
}

/// The cell a thread's `ccl.wait` reads and what it waits for.
#[derive(Clone, Copy, Debug)]
pub struct WaitAt {
    pub loc: Loc,
    pub expected: i64,
    pub equal: bool,
}

/// What a schedule chooses next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The thread takes the step it rests at.
    Step(ThreadId),
    /// One in-flight unit of the thread lands in memory.
    Land(ThreadId, u16),
    /// Every rank's host is at the same collective: it runs.
    Collective,
}

/// Data that is a function of the rest of the state (an index of it):
/// hashing and equality skip it, since the rest decides it.
#[derive(Clone, Debug, Default)]
pub struct Derived<T>(pub T);

impl<T> std::hash::Hash for Derived<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Derived<T>) -> bool {
        true
    }
}

impl<T> Eq for Derived<T> {}

/// The fixed parameters of a run.
#[derive(Clone, Debug)]
pub struct Machine {
    pub program: Arc<Program>,
    pub ranks: u16,
    /// Slots per rank: the host (slot 0) and the block slots.
    pub per_rank: u16,
    /// Every ccl op a scheduling point (no local-step reduction), for
    /// measuring what the reduction saves.
    pub no_reduction: bool,
    pub limits: Limits,
    /// The entry's arguments, where set (`--arg`); the others are zero.
    pub entry_args: Vec<Option<Val>>,
    /// Where the ops run are recorded, on a replay of a reported schedule
    /// (`trace::replay`); `None` while searching.
    pub recorder: Option<Arc<Recorder>>,
}

/// The bounds of one run (docs/ccl-sim.md, "Limits").
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Local steps a thread may take between two observable steps.
    pub max_steps: u64,
    /// Bytes the process may hold (see `memory::in_use`).
    pub max_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: 1_000_000, max_memory: memory::default_limit() }
    }
}

/// Calls nested deeper than this in one thread are a limit (recursion).
pub const CALL_DEPTH_LIMIT: usize = 256;
/// Threads over all ranks (hosts and block slots): a thread id is 16 bits.
pub const MAX_THREADS: u64 = u16::MAX as u64;
/// Elements of one buffer: a location's index is 32 bits.
pub const MAX_BUFFER_ELEMENTS: i64 = u32::MAX as i64;

type Fail = Finding;

fn fail(site: Option<SiteId>, message: impl Into<String>) -> Fail {
    Finding::Error { site, message: message.into() }
}

fn limit(site: Option<SiteId>, message: impl Into<String>) -> Fail {
    Finding::Limit { site, message: message.into() }
}

impl Finding {
    /// The finding, at `site` if it has no place of its own.
    fn located(self, here: SiteId) -> Finding {
        match self {
            Finding::Error { site: None, message } => Finding::Error { site: Some(here), message },
            Finding::Limit { site: None, message } => Finding::Limit { site: Some(here), message },
            other => other,
        }
    }
}

/// The most elements a read may touch and still be tried as a local step.
const LOCAL_READ_ELEMENTS: i64 = 1 << 16;

/// Approximate bytes of one element of a buffer, a cache line, a unit's
/// write and a shadow entry (what an op touching n elements may add).
const BYTES_PER_ELEMENT: u64 = 160;

impl Machine {
    /// The machine of `program` on `ranks` ranks. The caller checks that
    /// the threads fit ([`Machine::threads_needed`]).
    pub fn new(program: Arc<Program>, ranks: u16, no_reduction: bool) -> Machine {
        let per_rank = 1 + program.slots.min(MAX_THREADS - 1) as u16;
        Machine {
            program,
            ranks,
            per_rank,
            no_reduction,
            limits: Limits::default(),
            entry_args: Vec::new(),
            recorder: None,
        }
    }

    /// Records what `t` does, on a replay (`trace::replay`).
    fn note(&self, state: &State, t: ThreadId, site: Option<SiteId>, kind: impl FnOnce() -> EventKind) {
        if let Some(recorder) = &self.recorder {
            let epoch = state.threads[t as usize].clock.get(t as usize).copied().unwrap_or(0);
            recorder.record(t, site, epoch, kind());
        }
    }

    /// Threads `program` needs on `ranks` ranks: a host and the widest
    /// launch's blocks per rank.
    pub fn threads_needed(program: &Program, ranks: u16) -> u64 {
        (ranks as u64).saturating_mul(program.slots.saturating_add(1))
    }

    /// `Err` (a limit) if holding `bytes` more would pass `--max-memory`.
    fn reserve(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), Fail> {
        let held = memory::in_use();
        if held.saturating_add(bytes) > self.limits.max_memory {
            return Err(limit(
                None,
                format!(
                    "{} needs {} with {} already held, more than --max-memory {}: no conclusion",
                    what(),
                    memory::human(bytes),
                    memory::human(held),
                    memory::human(self.limits.max_memory)
                ),
            ));
        }
        Ok(())
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

    fn host_of(&self, rank: u16) -> ThreadId {
        rank * self.per_rank
    }

    /// The initial state: entry arguments allocated and zero-filled on every
    /// rank (scalars zero unless set), every host at the entry function's
    /// first observable step.
    pub fn initial(&self) -> State {
        let threads_n = self.thread_count();
        let entry = &self.program.funcs[self.program.entry as usize];
        let mut state = State {
            threads: Vec::new(),
            buffers: Vec::new(),
            caches: Vec::new(),
            inflight: Vec::new(),
            inflight_index: Derived::default(),
            dirty_index: Derived::default(),
            signal_clocks: BTreeMap::new(),
            set_cells: Default::default(),
            shadow: BTreeMap::new(),
            allocations: BTreeMap::new(),
            alloc_counts: BTreeMap::new(),
            launch_counts: BTreeMap::new(),
            rests: Derived::default(),
            finding: None,
            cost: Tally::default(),
        };
        // Every thread has a vector clock of every thread.
        let clocks = (threads_n as u64).pow(2).saturating_mul(4).saturating_add(threads_n as u64 * 256);
        if let Err(finding) = self.reserve(clocks, || format!("the state of {threads_n} threads")) {
            state.finding = Some(Arc::new(finding.located(entry.site)));
            return state;
        }
        state.threads = (0..threads_n)
            .map(|t| {
                let mut clock = vec![0; threads_n];
                clock[t] = 1;
                Thread {
                    status: Status::Idle,
                    frames: Vec::new(),
                    clock: Arc::new(clock),
                    launch: 0,
                    kernel: None,
                    writes: 0,
                }
            })
            .collect();
        state.caches = (0..threads_n).map(|_| Arc::new(BTreeMap::new())).collect();
        state.inflight = vec![Vec::new(); threads_n];
        match self.entry_arguments(&mut state) {
            Ok(args) => self.start(&mut state, &args),
            Err(finding) => state.finding = Some(Arc::new(finding.located(entry.site))),
        }
        state
    }

    /// The entry's arguments: memrefs allocated, scalars as set or zero.
    fn entry_arguments(&self, state: &mut State) -> Result<Vec<Val>, Fail> {
        let entry = &self.program.funcs[self.program.entry as usize];
        let mut args = Vec::new();
        for (n, ty) in entry.param_types.iter().enumerate() {
            let set = self.entry_args.get(n).cloned().flatten();
            args.push(match ty {
                Ty::Scalar(s) => set.unwrap_or_else(|| Val::zero(*s)),
                Ty::Vector { element, len } => {
                    self.reserve(*len as u64 * 8, || format!("argument #{n} of @{}", entry.name))?;
                    Val::Vector(Arc::from(vec![Val::zero(*element).bits().unwrap(); *len]))
                }
                Ty::MemRef { element, shape } => {
                    let Some(shape) = shape.iter().copied().collect::<Option<Vec<i64>>>() else {
                        return Err(fail(
                            None,
                            format!(
                                "the entry @{} takes a memref of dynamic shape: ccl-sim needs static shapes",
                                entry.name
                            ),
                        ));
                    };
                    let what = format!("argument #{n} of @{}", entry.name);
                    let id = self.new_buffer(state, *element, &shape, None, &what)?;
                    Val::MemRef(Arc::new(View::whole(id, *element, &shape)))
                }
                Ty::Other(_) => Val::Undef,
            });
        }
        Ok(args)
    }

    /// Every host starts the entry (a kernel entry is launched).
    fn start(&self, state: &mut State, args: &[Val]) {
        let entry = &self.program.funcs[self.program.entry as usize];
        for rank in 0..self.ranks {
            let host = self.host_of(rank);
            let result = if entry.kind == Kind::InCore {
                let width = entry.launch_width.unwrap_or(1);
                state.threads[host as usize].status = Status::Running;
                self.launch(state, host, self.program.entry, args, width, None)
            } else {
                let frame = self.frame(self.program.entry, args, Vec::new());
                let thread = &mut state.threads[host as usize];
                thread.frames.push(frame);
                thread.status = Status::Running;
                Ok(vec![host])
            };
            if let Err(finding) = result.and_then(|ready| self.settle(state, ready)) {
                state.finding = Some(Arc::new(finding.located(entry.site)));
                return;
            }
        }
    }

    /// The elements of a buffer of `shape`, checked before anything is
    /// allocated.
    fn buffer_len(&self, shape: &[i64], what: &str) -> Result<u32, Fail> {
        value::element_count(shape).and_then(|len| u32::try_from(len).ok()).ok_or_else(|| {
            limit(
                None,
                format!(
                    "{what} has {} elements: ccl-sim holds at most {MAX_BUFFER_ELEMENTS} in one buffer: no conclusion",
                    shape.iter().map(i64::to_string).collect::<Vec<_>>().join(" x ")
                ),
            )
        })
    }

    /// A zero-filled copy of `len` elements, if memory allows.
    fn new_copy(&self, element: Scalar, len: u32, copies: u64, what: &str) -> Result<Arc<Vec<Cell>>, Fail> {
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<Cell>() as u64).saturating_mul(copies);
        self.reserve(bytes, || what.to_string())?;
        let zero = Cell { bits: Val::zero(element).bits().unwrap(), writer: None };
        Ok(Arc::new(vec![zero; len as usize]))
    }

    /// A buffer of `shape`: on every rank (`rank` None, the entry's
    /// arguments), or on `rank` alone, the others' copies made as they run
    /// the same allocation.
    fn new_buffer(
        &self,
        state: &mut State,
        element: Scalar,
        shape: &[i64],
        rank: Option<u16>,
        what: &str,
    ) -> Result<u32, Fail> {
        let len = self.buffer_len(shape, what)?;
        let id = u32::try_from(state.buffers.len())
            .map_err(|_| limit(None, format!("{what}: more than {} buffers: no conclusion", u32::MAX)))?;
        let buffer = match rank {
            // One copy shared by the ranks until one of them writes it.
            None => Buffer {
                element,
                ranks: vec![self.new_copy(element, len, self.ranks as u64, what)?; self.ranks as usize],
                copies: vec![Presence::Live; self.ranks as usize],
                len,
            },
            Some(rank) => {
                // The absent copies share one empty vector.
                let absent = Arc::new(Vec::new());
                let mut buffer = Buffer {
                    element,
                    ranks: vec![absent; self.ranks as usize],
                    copies: vec![Presence::Absent; self.ranks as usize],
                    len,
                };
                buffer.ranks[rank as usize] = self.new_copy(element, len, 1, what)?;
                buffer.copies[rank as usize] = Presence::Live;
                buffer
            }
        };
        state.buffers.push(buffer);
        Ok(id)
    }

    fn frame(&self, func: FuncId, args: &[Val], results: Vec<Reg>) -> Frame {
        let f = &self.program.funcs[func as usize];
        let mut regs = vec![Val::Undef; f.registers as usize];
        for (param, arg) in f.params.iter().zip(args) {
            regs[*param as usize] = arg.clone();
        }
        Frame { func, pc: 0, regs, results }
    }

    // -----------------------------------------------------------------
    // Choices
    // -----------------------------------------------------------------

    /// Every action possible in `state`, in a fixed order.
    pub fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        if state.finding.is_some() {
            return;
        }
        for (t, thread) in state.threads.iter().enumerate() {
            if thread.status == Status::Running && self.enabled(state, t as ThreadId) {
                actions.push(Action::Step(t as ThreadId));
            }
        }
        for (t, queue) in state.inflight.iter().enumerate() {
            for u in 0..queue.len() {
                actions.push(Action::Land(t as ThreadId, u as u16));
            }
        }
        if self.collective_ready(state) {
            actions.push(Action::Collective);
        }
    }

    /// No finding yet, no action, and not finished.
    pub fn deadlocked(&self, state: &State) -> bool {
        if state.finding.is_some() || self.finished(state) {
            return false;
        }
        let mut actions = Vec::new();
        self.actions(state, &mut actions);
        actions.is_empty()
    }

    /// Every thread has finished (and nothing is in flight).
    pub fn finished(&self, state: &State) -> bool {
        state.threads.iter().all(|t| matches!(t.status, Status::Done | Status::Idle))
            && state.inflight.iter().all(Vec::is_empty)
    }

    /// The ccl op `t` rests at, if any (what reports name a step by).
    pub fn site_at(&self, state: &State, t: ThreadId) -> Option<SiteId> {
        match self.instr(state, t) {
            Some(Instr::Ccl { site, .. }) => Some(*site),
            _ => None,
        }
    }

    fn instr<'p>(&'p self, state: &State, t: ThreadId) -> Option<&'p Instr> {
        let frame = state.threads[t as usize].frames.last()?;
        self.program.funcs[frame.func as usize].code.get(frame.pc as usize)
    }

    fn enabled(&self, state: &State, t: ThreadId) -> bool {
        match state.rests.0.get(t as usize) {
            Some(Some(Rest::Notify)) => return true,
            Some(Some(Rest::Wait(wait))) => return self.wait_holds(state, *wait),
            _ => {}
        }
        if let Some(wait) = self.wait_at(state, t) {
            return self.wait_holds(state, wait);
        }
        match self.instr(state, t) {
            Some(Instr::Ccl { op, .. }) => match op {
                // A wait with a bad operand or an empty view: the step
                // reports it.
                CclOp::Wait { .. } => true,
                CclOp::Fence => state.inflight[t as usize].is_empty(),
                // A host runs a collective with every other host (the
                // Collective action); a block stepping one reports the
                // error of `ccl` instead of waiting for ever.
                op if op.is_collective() => self.slot_of(t) != 0,
                _ => true,
            },
            Some(_) => true,
            None => false,
        }
    }

    /// The wait `t` rests at, from the memo or its registers; `None` if
    /// `t` is not at a `ccl.wait` or its operands are bad.
    fn wait_at(&self, state: &State, t: ThreadId) -> Option<WaitAt> {
        if let Some(Some(Rest::Wait(wait))) = state.rests.0.get(t as usize) {
            return Some(*wait);
        }
        let Some(Instr::Ccl { op: CclOp::Wait { signal, expected, equal }, .. }) = self.instr(state, t) else {
            return None;
        };
        let frame = state.threads[t as usize].frames.last().unwrap();
        let (Val::MemRef(view), Some(expected)) =
            (&frame.regs[*signal as usize], frame.regs[*expected as usize].as_int())
        else {
            return None;
        };
        let first = view.first()?;
        Some(WaitAt {
            loc: Loc { rank: self.rank_of(t), buffer: view.buffer, index: first as u32 },
            expected,
            equal: *equal,
        })
    }

    /// Whether a wait's condition holds (a cell that does not exist: the
    /// step reports it).
    fn wait_holds(&self, state: &State, wait: WaitAt) -> bool {
        let loc = wait.loc;
        let Some(cell) = state.buffers[loc.buffer as usize].ranks[loc.rank as usize].get(loc.index as usize) else {
            return true;
        };
        let current = cell.bits as i64;
        if wait.equal {
            current == wait.expected
        } else {
            current >= wait.expected
        }
    }

    /// Whether a `ge` wait whose operands `wait_at` could not read rests:
    /// a signal that is not a memref or an empty view is a scheduling
    /// point; an expected value that is not an integer rests only on a
    /// cell a `set` notify wrote (the step reports it).
    fn bad_wait_rests(&self, state: &State, t: ThreadId) -> bool {
        let Some(Instr::Ccl { op: CclOp::Wait { signal, .. }, .. }) = self.instr(state, t) else { return true };
        let frame = state.threads[t as usize].frames.last().unwrap();
        let Val::MemRef(view) = &frame.regs[*signal as usize] else { return true };
        let Some(first) = view.first() else { return true };
        state.set_cells.contains(&Loc { rank: self.rank_of(t), buffer: view.buffer, index: first as u32 })
    }

    /// Forgets what every thread rests at: a launch, a join or a
    /// collective changes other threads' frames.
    fn forget_rests(state: &mut State) {
        state.rests.0.iter_mut().for_each(|rest| *rest = None);
    }

    /// Whether `t` rests, by what it was found resting at (`None`: not
    /// known, ask `rests_at`). A notify always rests; a wait as in
    /// `rests_at`.
    fn rests_as_before(&self, state: &State, t: ThreadId) -> Option<bool> {
        match state.rests.0.get(t as usize)? {
            Some(Rest::Notify) => Some(true),
            Some(Rest::Wait(wait)) if wait.equal || self.no_reduction => Some(true),
            Some(Rest::Wait(wait)) => Some(state.set_cells.contains(&wait.loc) || !self.wait_holds(state, *wait)),
            None => None,
        }
    }

    fn collective_ready(&self, state: &State) -> bool {
        (0..self.ranks).all(|rank| {
            let host = self.host_of(rank);
            state.threads[host as usize].status == Status::Running
                && matches!(self.instr(state, host), Some(Instr::Ccl { op, .. }) if op.is_collective())
        })
    }

    /// The state after `action`; a finding (race, error) ends the schedule.
    pub fn next(&self, state: &State, action: Action) -> State {
        let mut next = state.clone();
        self.apply(&mut next, action);
        next
    }

    /// Takes `action` in `next` itself (a search that keeps no earlier
    /// state saves the copy).
    pub fn apply(&self, next: &mut State, action: Action) {
        let result = match action {
            Action::Step(t) => self.step(next, t).and_then(|mut ready| {
                ready.push(t);
                self.settle(next, ready)
            }),
            Action::Land(t, u) => {
                let unit = next.inflight[t as usize].remove(u as usize);
                self.note(next, t, Some(unit.site), || EventKind::Land {
                    unit: trace::unit_key(&unit),
                    writes: unit.writes.len(),
                });
                for (loc, _) in &unit.writes {
                    count_down(&mut next.inflight_index.0, *loc);
                }
                for (loc, cell) in unit.writes {
                    if let Some(slot) = Arc::make_mut(&mut next.buffers[loc.buffer as usize].ranks[loc.rank as usize])
                        .get_mut(loc.index as usize)
                    {
                        *slot = cell;
                    }
                }
                // A fence waiting for this queue may proceed now: it is a
                // step of its own (enabled), nothing to settle.
                Ok(())
            }
            Action::Collective => {
                let site = self.site_at(next, 0);
                let result = self.collective(next).and_then(|ready| self.settle(next, ready));
                match site {
                    Some(site) => result.map_err(|f| f.located(site)),
                    None => result,
                }
            }
        };
        // Whatever became local (a wait now enabled, a fence whose writes
        // landed, a read whose location went quiet) runs now.
        let result = result.and_then(|()| {
            let running: Vec<ThreadId> = (0..next.threads.len() as ThreadId)
                .filter(|t| next.threads[*t as usize].status == Status::Running)
                .collect();
            self.settle(next, running)
        });
        if let Err(finding) = result {
            next.finding = Some(Arc::new(finding));
        }
    }

    // -----------------------------------------------------------------
    // Running threads
    // -----------------------------------------------------------------

    /// Runs each thread of `ready` (and every thread that becomes ready on
    /// the way) up to its next observable step.
    fn settle(&self, state: &mut State, mut ready: Vec<ThreadId>) -> Result<(), Fail> {
        while let Some(t) = ready.pop() {
            let mut budget = self.limits.max_steps;
            loop {
                if state.threads[t as usize].status != Status::Running {
                    break;
                }
                if self.rests_as_before(state, t) == Some(true) {
                    break;
                }
                let Some(instr) = self.instr(state, t) else { break };
                if self.rests_at(state, t, instr) {
                    let rest = match instr {
                        Instr::Ccl { op: CclOp::Notify { .. }, .. } => Some(Rest::Notify),
                        Instr::Ccl { op: CclOp::Wait { .. }, .. } => self.wait_at(state, t).map(Rest::Wait),
                        _ => None,
                    };
                    let rests = &mut state.rests.0;
                    if rests.len() <= t as usize {
                        rests.resize(t as usize + 1, None);
                    }
                    rests[t as usize] = rest;
                    break;
                }
                if budget == 0 {
                    return Err(self.out_of_steps(state, t));
                }
                budget -= 1;
                let more = self.step(state, t)?;
                ready.extend(more);
            }
        }
        Ok(())
    }

    /// The limit `t` reached: `--max-steps` local steps in a row, named by
    /// the loop it was in (or the op it was at).
    fn out_of_steps(&self, state: &State, t: ThreadId) -> Fail {
        let frame = state.threads[t as usize].frames.last().expect("a running thread has a frame");
        let func = &self.program.funcs[frame.func as usize];
        let max = self.limits.max_steps;
        let who = super::report::thread_name(self, t);
        match func.loop_at(frame.pc) {
            Some(span) => limit(
                Some(span.site),
                format!(
                    "{who} ran {max} steps in this '{}' without one another thread can observe (--max-steps {max}): no conclusion",
                    self.program.site(span.site).op
                ),
            ),
            None => limit(
                func.sites.get(frame.pc as usize).copied(),
                format!("{who} ran {max} steps without one another thread can observe (--max-steps {max}): no conclusion"),
            ),
        }
    }

    /// Whether `t` stops before `instr` (a step other threads can observe).
    fn rests_at(&self, state: &State, t: ThreadId, instr: &Instr) -> bool {
        let Instr::Ccl { op, .. } = instr else { return false };
        if self.no_reduction {
            return true;
        }
        let frame = state.threads[t as usize].frames.last().unwrap();
        let rank = self.rank_of(t);
        let hits = |view: &Val, rank: u16, positions: std::ops::Range<i64>| -> bool {
            let mut positions = positions;
            // Too many elements to look at: a scheduling point (always sound).
            if positions.end - positions.start > LOCAL_READ_ELEMENTS {
                return false;
            }
            let Val::MemRef(view) = view else { return false };
            positions
                .all(|n| self.read_is_local(state, t, Loc { rank, buffer: view.buffer, index: view.nth(n) as u32 }))
        };
        match op {
            CclOp::TileStore { .. }
            | CclOp::TensorWrite { .. }
            | CclOp::RemoteStore { .. }
            | CclOp::CacheInvalid { .. } => false,
            CclOp::Fence => !state.inflight[t as usize].is_empty(),
            CclOp::Put { src, .. } => {
                let v = &frame.regs[*src as usize];
                let len = match v {
                    Val::MemRef(view) => view.len(),
                    _ => return true,
                };
                !hits(v, rank, 0..len)
            }
            CclOp::Get { src, peer, .. } | CclOp::RemoteLoad { src, peer, .. } => {
                let v = &frame.regs[*src as usize];
                let (Val::MemRef(view), Some(peer)) = (v, frame.regs[*peer as usize].as_int()) else { return true };
                if peer < 0 || peer >= self.ranks as i64 {
                    return true;
                }
                !hits(v, peer as u16, 0..view.len())
            }
            CclOp::Read { src, indices, .. } | CclOp::TileLoad { src, indices, .. } => {
                let len = match op {
                    CclOp::TileLoad { len, .. } => *len as i64,
                    _ => 1,
                };
                let v = &frame.regs[*src as usize];
                let Val::MemRef(view) = v else { return true };
                let idx: Option<Vec<i64>> = indices.iter().map(|i| frame.regs[*i as usize].as_int()).collect();
                let Some(start) = idx.and_then(|idx| view.position(&idx)) else { return true };
                if start.checked_add(len).is_none_or(|end| end > view.len()) {
                    return true;
                }
                !hits(v, rank, start..start + len)
            }
            // A `ge` wait on a cell only ever added to runs as soon as it is
            // enabled: the cell's clock only grows, so the earliest wait
            // acquires the least happens-before, and any race of a later
            // wait is a race of this one too.
            CclOp::Wait { equal: false, .. } => match self.wait_at(state, t) {
                Some(wait) => state.set_cells.contains(&wait.loc) || !self.wait_holds(state, wait),
                // A bad operand: the step reports it, unless the view is
                // not a memref or empty (then a scheduling point, as ever).
                None => self.bad_wait_rests(state, t),
            },
            _ => true,
        }
    }

    /// Whether a read of `loc` by `t` commutes with every other thread's
    /// steps: it hits `t`'s cache, it returns `t`'s own write still in
    /// flight, or `loc` is quiet (no write to it in flight, no dirty line
    /// of it in another cache). A write to a quiet
    /// location that some other thread issues later cannot happen before
    /// this read (the read's thread has passed every wait it depends on), so
    /// reading now or after it finds the same races; nothing else changes
    /// memory under a running block (a collective needs its host, which is
    /// joining the launch).
    fn read_is_local(&self, state: &State, t: ThreadId, loc: Loc) -> bool {
        // A cache hit, or a read of `t`'s own write still in flight: what it
        // returns does not depend on when any unit lands.
        if state.caches[t as usize].contains_key(&loc) || self.own_pending(state, t, loc).is_some() {
            return true;
        }
        let in_flight = state.inflight_index.0.contains_key(&loc);
        // `t` has no line of `loc` (else it hit): any dirty one is another's.
        let dirty_elsewhere = state.dirty_index.0.contains_key(&loc);
        !in_flight && !dirty_elsewhere
    }

    /// The function `t`'s markers count for: its kernel, or the entry for
    /// host code.
    fn counted_as(&self, state: &State, t: ThreadId) -> FuncId {
        match state.threads[t as usize].kernel {
            Some(kernel) if self.slot_of(t) != 0 => kernel,
            _ => self.program.entry,
        }
    }

    fn frame_mut<'s>(&self, state: &'s mut State, t: ThreadId) -> &'s mut Frame {
        state.threads[t as usize].frames.last_mut().expect("a running thread has a frame")
    }

    /// Executes the instruction `t` is at; returns threads made ready. An
    /// error is located at the op the instruction comes from.
    fn step(&self, state: &mut State, t: ThreadId) -> Result<Vec<ThreadId>, Fail> {
        let frame = state.threads[t as usize].frames.last().expect("a running thread has a frame");
        let here = self.program.funcs[frame.func as usize].sites[frame.pc as usize];
        self.execute(state, t).map_err(|finding| finding.located(here))
    }

    fn execute(&self, state: &mut State, t: ThreadId) -> Result<Vec<ThreadId>, Fail> {
        if let Some(rest) = state.rests.0.get_mut(t as usize) {
            *rest = None;
        }
        let instr = self.instr(state, t).expect("a running thread is at an instruction").clone();
        let frame = self.frame_mut(state, t);
        frame.pc += 1;
        let reg = |frame: &Frame, r: Reg| frame.regs[r as usize].clone();
        match instr {
            Instr::Const { dst, value } => frame.regs[dst as usize] = value,
            Instr::Move { moves } => {
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
            Instr::Switch { value, cases, default } => {
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
            Instr::View { dst, src, kind } => {
                let Val::MemRef(source) = reg(frame, src) else {
                    return Err(fail(None, "a view of a value that is not a memref"));
                };
                let view = make_view(&source, &kind, frame).map_err(|m| fail(None, m))?;
                frame.regs[dst as usize] = Val::MemRef(Arc::new(view));
            }
            Instr::Alloc { dst, site, element, shape } => {
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
                        let id = self.new_buffer(state, element, &shape, Some(rank), "this allocation")?;
                        state.allocations.insert(key, id);
                        id
                    }
                };
                self.frame_mut(state, t).regs[dst as usize] = Val::MemRef(Arc::new(View::whole(id, element, &shape)));
            }
            Instr::Dealloc { src } => {
                let Val::MemRef(view) = reg(frame, src) else {
                    return Err(fail(None, "a dealloc of a value that is not a memref"));
                };
                let rank = self.rank_of(t) as usize;
                let buffer = &mut state.buffers[view.buffer as usize];
                match buffer.copies[rank] {
                    Presence::Live => {}
                    Presence::Freed => return Err(fail(None, "a buffer deallocated twice")),
                    Presence::Absent => return Err(fail(None, "a dealloc of a buffer this rank has not allocated")),
                }
                buffer.copies[rank] = Presence::Freed;
                buffer.ranks[rank] = Arc::new(Vec::new());
            }
            Instr::Call { site, callee, args, results, width, submit } => {
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
                let frame = self.frame(callee, &values, results);
                state.threads[t as usize].frames.push(frame);
            }
            Instr::Return { values } => {
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
            Instr::Ccl { site, op } => return self.ccl(state, t, site, &op),
        }
        Ok(Vec::new())
    }

    /// Forks `width` blocks running `callee` from host `t`.
    fn launch(
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
            let frame = self.frame(callee, args, Vec::new());
            let thread = &mut state.threads[block as usize];
            thread.frames = vec![frame];
            thread.status = Status::Running;
            thread.launch = launch;
            thread.kernel = Some(callee);
            thread.clock = Arc::new(join(&thread.clock, &host_clock));
        }
        self.note(state, t, site, || EventKind::Launch { first, count: width as u16, kernel: callee });
        let host = &mut state.threads[t as usize];
        tick(&mut host.clock, t);
        host.status = Status::Joining { first, count: width as u16 };
        Ok((first..first + width as u16).rev().collect())
    }

    /// `t` returned from its outermost frame: a host is done; the last block
    /// of a launch joins its host, which runs on.
    fn finish(&self, state: &mut State, t: ThreadId) -> Vec<ThreadId> {
        Self::forget_rests(state);
        self.note(state, t, None, || EventKind::Exit);
        if self.slot_of(t) == 0 {
            state.threads[t as usize].status = Status::Done;
            return Vec::new();
        }
        state.threads[t as usize].status = Status::Done;
        let host = self.host_of(self.rank_of(t));
        let Status::Joining { first, count } = state.threads[host as usize].status else { return Vec::new() };
        if (first..first + count).any(|b| state.threads[b as usize].status != Status::Done) {
            return Vec::new();
        }
        let mut clock = (*state.threads[host as usize].clock).clone();
        for b in first..first + count {
            let block = &mut state.threads[b as usize];
            clock = join(&clock, &block.clock);
            tick(&mut block.clock, b);
            block.status = Status::Idle;
            block.frames.clear();
        }
        self.note(state, host, None, || EventKind::Join { first, count });
        let host_thread = &mut state.threads[host as usize];
        host_thread.clock = Arc::new(clock);
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

    fn access(&self, state: &State, t: ThreadId, site: SiteId, write: bool) -> Access {
        let thread = &state.threads[t as usize];
        Access {
            thread: t,
            epoch: thread.clock[t as usize],
            seq: thread.writes,
            site,
            launch: thread.launch,
            kernel: if self.slot_of(t) == 0 { None } else { thread.kernel },
            write,
        }
    }

    fn cell(&self, state: &State, loc: Loc, site: SiteId) -> Result<Cell, Fail> {
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

    /// Race checks and shadow update for a read of `loc` by `t` that
    /// returned `cell`.
    fn check_read(&self, state: &mut State, t: ThreadId, loc: Loc, cell: Cell, site: SiteId) -> Result<(), Fail> {
        let me = self.access(state, t, site, false);
        let clock = state.threads[t as usize].clock.clone();
        let shadow = state.shadow.entry(loc).or_default();
        if let Some(write) = shadow.write {
            unordered_with(&write, &me, loc, &clock)?;
            // The read must return the last write when that write happens
            // before it (or is this thread's own).
            if cell.writer != Some(WriteId { thread: write.thread, seq: write.seq }) {
                return Err(Finding::Race(Race { kind: RaceKind::StaleRead, loc, first: write, second: me }));
            }
        }
        shadow.reads.retain(|r| r.thread != t);
        shadow.reads.push(me);
        shadow.reads.sort();
        Ok(())
    }

    /// Race checks and shadow update for a write of `loc` by `t`; returns the
    /// write's identity.
    fn check_write(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<WriteId, Fail> {
        let writes = &mut state.threads[t as usize].writes;
        *writes = writes
            .checked_add(1)
            .ok_or_else(|| limit(Some(site), "a thread made 2^32 writes: they cannot be told apart: no conclusion"))?;
        let me = self.access(state, t, site, true);
        let clock = state.threads[t as usize].clock.clone();
        let shadow = state.shadow.entry(loc).or_default();
        for earlier in shadow.write.iter().chain(&shadow.reads) {
            unordered_with(earlier, &me, loc, &clock)?;
        }
        shadow.reads.clear();
        shadow.write = Some(me);
        Ok(WriteId { thread: t, seq: me.seq })
    }

    /// `t`'s newest write of `loc` still in its in-flight queue (a write-back
    /// its own invalidate started, or a put or remote store), if any.
    fn own_pending(&self, state: &State, t: ThreadId, loc: Loc) -> Option<Cell> {
        state.inflight[t as usize]
            .iter()
            .flat_map(|unit| &unit.writes)
            .filter(|(l, _)| *l == loc)
            .map(|(_, cell)| *cell)
            .max_by_key(|cell| cell.writer.map(|w| w.seq))
    }

    /// A GM read through `t`'s cache. Own accesses are coherent: the read
    /// returns `t`'s newest write of `loc` wherever it sits. A line in the
    /// cache is always the newest (a write-back or a put of `loc` drops it,
    /// and a write or read puts back the newest); else the newest write in
    /// `t`'s queue (writes of one thread are numbered in order); else
    /// memory. A value taken from the queue or memory is kept as a clean
    /// line.
    fn read_cached(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<u64, Fail> {
        // The buffer exists and is not freed, even if the line is cached.
        self.cell(state, loc, site)?;
        let cell = match state.caches[t as usize].get(&loc) {
            Some(line) => line.cell,
            None => {
                let cell = match self.own_pending(state, t, loc) {
                    Some(pending) => pending,
                    None => self.cell(state, loc, site)?,
                };
                Arc::make_mut(&mut state.caches[t as usize]).insert(loc, Line { cell, dirty: false });
                cell
            }
        };
        self.check_read(state, t, loc, cell, site)?;
        Ok(cell.bits)
    }

    /// A write of `loc` by `t` that goes to its queue (a put, a remote
    /// store): `t`'s line of `loc`, if any, is older and goes (a dirty one
    /// was overwritten before it was written back).
    fn queue_write(
        &self,
        state: &mut State,
        t: ThreadId,
        loc: Loc,
        bits: u64,
        site: SiteId,
    ) -> Result<(Loc, Cell), Fail> {
        self.cell(state, loc, site)?;
        let writer = self.check_write(state, t, loc, site)?;
        if state.caches[t as usize].contains_key(&loc) {
            let line = Arc::make_mut(&mut state.caches[t as usize]).remove(&loc);
            if line.is_some_and(|line| line.dirty) {
                count_down(&mut state.dirty_index.0, loc);
            }
        }
        Ok((loc, Cell { bits, writer: Some(writer) }))
    }

    /// A GM write into `t`'s cache (a dirty line).
    fn write_cached(&self, state: &mut State, t: ThreadId, loc: Loc, bits: u64, site: SiteId) -> Result<(), Fail> {
        self.cell(state, loc, site)?;
        let writer = self.check_write(state, t, loc, site)?;
        let before = Arc::make_mut(&mut state.caches[t as usize])
            .insert(loc, Line { cell: Cell { bits, writer: Some(writer) }, dirty: true });
        if !before.is_some_and(|line| line.dirty) {
            *state.dirty_index.0.entry(loc).or_insert(0) += 1;
        }
        Ok(())
    }

    /// A read straight from memory (a collective).
    fn read_direct(&self, state: &mut State, t: ThreadId, loc: Loc, site: SiteId) -> Result<u64, Fail> {
        let cell = self.cell(state, loc, site)?;
        self.check_read(state, t, loc, cell, site)?;
        Ok(cell.bits)
    }

    fn write_direct(&self, state: &mut State, t: ThreadId, loc: Loc, bits: u64, site: SiteId) -> Result<(), Fail> {
        self.cell(state, loc, site)?;
        let writer = self.check_write(state, t, loc, site)?;
        Arc::make_mut(&mut state.buffers[loc.buffer as usize].ranks[loc.rank as usize])[loc.index as usize] =
            Cell { bits, writer: Some(writer) };
        Ok(())
    }

    fn enqueue(&self, state: &mut State, t: ThreadId, unit: Unit) {
        if unit.writes.is_empty() {
            return;
        }
        self.note(state, t, Some(unit.site), || EventKind::Issue {
            unit: trace::unit_key(&unit),
            writes: unit.writes.len(),
        });
        for (loc, _) in &unit.writes {
            *state.inflight_index.0.entry(*loc).or_insert(0) += 1;
        }
        let queue = &mut state.inflight[t as usize];
        queue.push(unit);
        queue.sort();
    }

    fn ccl(&self, state: &mut State, t: ThreadId, site: SiteId, op: &CclOp) -> Result<Vec<ThreadId>, Fail> {
        let rank = self.rank_of(t);
        let frame = state.threads[t as usize].frames.last().unwrap().clone();
        let view = |r: Reg| match &frame.regs[r as usize] {
            Val::MemRef(v) => Ok(v.clone()),
            _ => Err(fail(Some(site), "an operand that is not a memref value")),
        };
        let int = |r: Reg| frame.regs[r as usize].as_int().ok_or_else(|| fail(Some(site), "an unset integer operand"));
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
                let lanes = lanes_of(&frame.regs[*tile as usize]);
                let s = start(&dst, &indices(idx)?, lanes.len() as i64)?;
                for (i, bits) in lanes.iter().enumerate() {
                    self.write_cached(state, t, at(&dst, rank, s + i as i64), *bits, site)?;
                }
            }
            CclOp::TensorWrite { dst, value, indices: idx } => {
                let dst = view(*dst)?;
                let s = start(&dst, &indices(idx)?, 1)?;
                let bits = frame.regs[*value as usize].bits().ok_or_else(|| fail(Some(site), "an unset value"))?;
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
                let lanes = lanes_of(&frame.regs[*tile as usize]);
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
                self.frame_mut(state, t).regs[*result as usize] = value;
            }
            CclOp::TileLoad { result, src, indices: idx, len } => {
                let src = view(*src)?;
                let s = start(&src, &indices(idx)?, *len as i64)?;
                let mut lanes = Vec::new();
                for n in 0..*len as i64 {
                    lanes.push(self.read_cached(state, t, at(&src, rank, s + n), site)?);
                }
                self.frame_mut(state, t).regs[*result as usize] = Val::Vector(Arc::from(lanes));
            }
            CclOp::Read { result, src, indices: idx } => {
                let src = view(*src)?;
                let s = start(&src, &indices(idx)?, 1)?;
                let bits = self.read_cached(state, t, at(&src, rank, s), site)?;
                self.frame_mut(state, t).regs[*result as usize] = Val::from_bits(src.element, bits);
            }
            CclOp::Notify { signal, peer: p, value, add } => {
                let (signal, p, v) = (signal_cell(*signal)?, peer(*p)?, int(*value)?);
                let loc = at(&signal, p, 0);
                let old = self.cell(state, loc, site)?;
                self.note(state, t, Some(site), || EventKind::Notify { cell: loc });
                let bits = if *add { (old.bits as i64).wrapping_add(v) } else { v };
                let bits = match signal.element {
                    Scalar::Int(b) => value::wrap(bits, b),
                    Scalar::Float(_) => bits,
                };
                Arc::make_mut(&mut state.buffers[loc.buffer as usize].ranks[loc.rank as usize])[loc.index as usize] =
                    Cell { bits: bits as u64, writer: None };
                let mine = state.threads[t as usize].clock.clone();
                let clock = match (state.signal_clocks.get(&loc), add) {
                    (Some(previous), true) => join(previous, &mine),
                    _ => (*mine).clone(),
                };
                state.signal_clocks.insert(loc, Arc::new(clock));
                if !add {
                    state.set_cells.insert(loc);
                }
                tick(&mut state.threads[t as usize].clock, t);
            }
            CclOp::Wait { signal, .. } => {
                let signal = signal_cell(*signal)?;
                let loc = at(&signal, rank, 0);
                self.note(state, t, Some(site), || EventKind::Wait { cell: loc });
                if let Some(clock) = state.signal_clocks.get(&loc).cloned() {
                    let thread = &mut state.threads[t as usize];
                    thread.clock = Arc::new(join(&thread.clock, &clock));
                }
            }
            CclOp::Fence => state.cost.of(counted).fences += 1,
            CclOp::CacheInvalid { target } => {
                let target = target.map(view).transpose()?;
                if let Some(target) = target.as_ref().filter(|target| !target.is_nested()) {
                    room(target.len())?;
                }
                let cache = Arc::make_mut(&mut state.caches[t as usize]);
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

    /// Runs the collective every host is at, atomically, behind every cache.
    fn collective(&self, state: &mut State) -> Result<Vec<ThreadId>, Fail> {
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
            clock = join(&clock, &state.threads[*h as usize].clock);
        }
        let clock = Arc::new(clock);
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
                            Some(a) => reduce_bits(*reduce, a, bits, element),
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

/// One fewer of `loc` in a count index (the entry goes at zero).
fn count_down(index: &mut BTreeMap<Loc, u32>, loc: Loc) {
    match index.get_mut(&loc) {
        Some(count) if *count > 1 => *count -= 1,
        _ => {
            index.remove(&loc);
        }
    }
}

fn reduce_bits(reduce: Reduce, a: u64, b: u64, element: Scalar) -> u64 {
    match element {
        Scalar::Int(bits) => {
            let (x, y) = (a as i64, b as i64);
            let r = match reduce {
                Reduce::Sum => x.wrapping_add(y),
                Reduce::Max => x.max(y),
                Reduce::Min => x.min(y),
            };
            value::wrap(r, bits) as u64
        }
        Scalar::Float(bits) => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let r = match reduce {
                Reduce::Sum => x + y,
                Reduce::Max => x.max(y),
                Reduce::Min => x.min(y),
            };
            if bits == 32 { r as f32 as f64 } else { r }.to_bits()
        }
    }
}

/// Race (b): `earlier`, by another thread, does not happen before `me`
/// (whose thread's clock is `clock`).
fn unordered_with(earlier: &Access, me: &Access, loc: Loc, clock: &[u32]) -> Result<(), Fail> {
    if earlier.thread != me.thread && !happens_before(earlier, clock) {
        return Err(Finding::Race(Race { kind: RaceKind::Unordered, loc, first: *earlier, second: *me }));
    }
    Ok(())
}

/// Whether access `a` happens before a thread whose clock is `clock`.
fn happens_before(a: &Access, clock: &[u32]) -> bool {
    a.epoch <= clock[a.thread as usize]
}

fn join(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().zip(b).map(|(x, y)| *x.max(y)).collect()
}

fn tick(clock: &mut Arc<Vec<u32>>, t: ThreadId) {
    Arc::make_mut(clock)[t as usize] += 1;
}

fn lanes_of(value: &Val) -> Vec<u64> {
    match value {
        Val::Vector(lanes) => lanes.to_vec(),
        other => other.bits().into_iter().collect(),
    }
}

fn lanewise2(a: &Val, b: &Val, f: impl Fn(u64, u64) -> Result<u64, String>) -> Result<Val, String> {
    match (a, b) {
        (Val::Vector(x), Val::Vector(y)) => Ok(Val::Vector(
            x.iter().zip(y.iter()).map(|(p, q)| f(*p, *q)).collect::<Result<Vec<u64>, String>>()?.into(),
        )),
        (Val::Int(_), Val::Int(_)) => Ok(Val::Int(f(a.bits().unwrap(), b.bits().unwrap())? as i64)),
        (Val::Float(x), Val::Float(y)) => Ok(Val::Float(f(*x, *y)?)),
        _ => Err("arithmetic on unset or mismatched values".to_string()),
    }
}

/// `f` on each lane of `a` (or on the scalar); `None` for an unset value.
fn lanewise1(a: &Val, f: impl Fn(u64) -> Result<u64, String>, to: Scalar) -> Option<Result<Val, String>> {
    Some(match a {
        Val::Vector(x) => x.iter().map(|p| f(*p)).collect::<Result<Vec<u64>, String>>().map(|v| Val::Vector(v.into())),
        other => f(other.bits()?).map(|bits| Val::from_bits(to, bits)),
    })
}

/// The view `kind` makes of `source`, with every offset, size and stride
/// checked: in bounds of the source and representable.
fn make_view(source: &View, kind: &ViewKind, frame: &Frame) -> Result<View, String> {
    let value = |o: &Operand| match o {
        Operand::Static(v) => Ok(*v),
        Operand::Reg(r) => frame.regs[*r as usize].as_int().ok_or_else(|| "an unset view operand".to_string()),
    };
    let too_large = || "a view whose offsets or sizes overflow 64 bits".to_string();
    let view = match kind {
        ViewKind::Same => source.clone(),
        ViewKind::Subview { offsets, sizes, strides, dropped } => {
            let mut view = View { offset: source.offset, sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            if offsets.len() != source.sizes.len() || sizes.len() != offsets.len() || strides.len() != offsets.len() {
                return Err("a subview of another rank than its source".into());
            }
            for d in 0..offsets.len() {
                let (offset, size, stride) = (value(&offsets[d])?, value(&sizes[d])?, value(&strides[d])?);
                // In i128, the last element's index cannot overflow.
                let last = offset as i128 + (size as i128 - 1) * stride as i128;
                let dim = source.sizes[d] as i128;
                let inside = |at: i128| (0..dim).contains(&at);
                let fits = if size == 0 {
                    (0..=dim).contains(&(offset as i128))
                } else {
                    inside(offset as i128) && inside(last)
                };
                if size < 0 || !fits {
                    return Err(format!(
                        "a subview [{offset} +{size} x{stride}] out of bounds of dimension {d} ({})",
                        source.sizes[d]
                    ));
                }
                let moved = offset.checked_mul(source.strides[d]).ok_or_else(too_large)?;
                view.offset = view.offset.checked_add(moved).ok_or_else(too_large)?;
                if !dropped.contains(&d) {
                    view.sizes.push(size);
                    view.strides.push(stride.checked_mul(source.strides[d]).ok_or_else(too_large)?);
                }
            }
            view
        }
        ViewKind::Collapse { groups } => {
            let mut view = View { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            for group in groups {
                if group.iter().any(|d| *d >= source.sizes.len()) {
                    return Err("a collapse_shape of dimensions its source does not have".into());
                }
                let sizes: Vec<i64> = group.iter().map(|d| source.sizes[*d]).collect();
                view.sizes.push(value::element_count(&sizes).ok_or_else(too_large)?);
                view.strides.push(group.last().map(|d| source.strides[*d]).unwrap_or(1));
            }
            view
        }
        ViewKind::Expand { groups } => {
            let mut view = View { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            if groups.len() != source.sizes.len() {
                return Err("an expand_shape of another rank than its source".into());
            }
            for (d, sizes) in groups.iter().enumerate() {
                if value::element_count(sizes) != Some(source.sizes[d]) {
                    return Err(format!(
                        "an expand_shape of dimension {d} ({}) into sizes {sizes:?} that do not multiply to it",
                        source.sizes[d]
                    ));
                }
                let mut stride = source.strides[d];
                let mut strides = vec![0; sizes.len()];
                for (i, size) in sizes.iter().enumerate().rev() {
                    strides[i] = stride;
                    stride = stride.checked_mul(*size).ok_or_else(too_large)?;
                }
                view.sizes.extend(sizes);
                view.strides.extend(strides);
            }
            view
        }
    };
    // Every element's position (`View::nth`) then fits too.
    value::element_count(&view.sizes).ok_or_else(too_large)?;
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> Frame {
        Frame { func: 0, pc: 0, regs: Vec::new(), results: Vec::new() }
    }

    fn subview(offset: i64, size: i64, stride: i64) -> ViewKind {
        ViewKind::Subview {
            offsets: vec![Operand::Static(offset)],
            sizes: vec![Operand::Static(size)],
            strides: vec![Operand::Static(stride)],
            dropped: Vec::new(),
        }
    }

    #[test]
    fn subviews_at_the_edges_of_i64_are_errors_not_overflows() {
        let source = View::whole(0, Scalar::Int(32), &[16]);
        let edges = [i64::MIN, i64::MIN + 1, -1, 0, 1, 2, 15, 16, 17, 1 << 62, i64::MAX];
        for offset in edges {
            for size in edges {
                for stride in edges {
                    if let Ok(view) = make_view(&source, &subview(offset, size, stride), &frame()) {
                        // Every element it names is in the buffer (a broadcast
                        // view of many elements names one).
                        let first_and_last = [view.first(), (!view.is_empty()).then(|| view.nth(view.len() - 1))];
                        assert!(
                            first_and_last.iter().flatten().all(|e| (0..16).contains(e)),
                            "{offset} {size} {stride}"
                        );
                    }
                }
            }
        }
        // Backwards, inside the buffer: allowed.
        let back = make_view(&source, &subview(15, 4, -5), &frame()).unwrap();
        assert_eq!(back.elements(), vec![15, 10, 5, 0]);
    }

    #[test]
    fn collapse_and_expand_sizes_that_overflow_are_errors() {
        let source =
            View { buffer: 0, element: Scalar::Int(8), offset: 0, sizes: vec![1 << 40, 1 << 40], strides: vec![1, 1] };
        let collapse = ViewKind::Collapse { groups: vec![vec![0, 1]] };
        assert!(make_view(&source, &collapse, &frame()).is_err());
        let whole = View::whole(0, Scalar::Int(8), &[6]);
        assert!(make_view(&whole, &ViewKind::Expand { groups: vec![vec![4, 2]] }, &frame()).is_err());
        assert_eq!(
            make_view(&whole, &ViewKind::Expand { groups: vec![vec![3, 2]] }, &frame()).unwrap().strides,
            vec![2, 1]
        );
    }
}
