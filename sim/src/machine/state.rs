//! The state of the machine: threads and their frames, buffers per rank,
//! caches and in-flight writes, signal clocks and the shadow state that
//! finds races; and the actions a schedule chooses between.

use crate::cost::Tally;
use crate::program::*;
use crate::shared::Shared;
use crate::value::Val;
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
    /// Each writer thread's newest write of the element (its `seq`), by
    /// thread: what a thread's own read returns while that write has not
    /// landed (`Machine::own_unlanded`).
    pub newest: Vec<(ThreadId, u32)>,
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
    pub clock: Shared<Vec<u32>>,
    pub launch: u32,
    pub kernel: Option<FuncId>,
    pub writes: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    pub element: Scalar,
    /// One copy per rank (windows are symmetric: a peer's copy of the same
    /// operand is the same buffer on the peer).
    pub ranks: Vec<Shared<Vec<Cell>>>,
    /// Per rank, whether its copy exists (an allocation makes a rank's copy
    /// when that rank runs it; `memref.dealloc` frees it).
    pub copies: Vec<Presence>,
    /// Elements of each copy.
    pub len: u32,
    /// Per rank, the shadow of each element of its copy accessed so far, by
    /// index: a step that accesses one copy writes that copy's alone.
    pub shadow: Vec<Shared<BTreeMap<u32, Shadow>>>,
    /// A notify may write it (`analysis::Facts::may_signal`): memory changes
    /// under a read of it without a write in flight, so no read of it is
    /// quiet.
    pub signal: bool,
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
    pub threads: Vec<Shared<Thread>>,
    pub buffers: Vec<Shared<Buffer>>,
    pub caches: Vec<Shared<BTreeMap<Loc, Line>>>,
    /// Per thread, kept sorted: the order of the queue does not matter.
    pub inflight: Vec<Vec<Unit>>,
    /// How many in-flight writes go to each location: `inflight` indexed.
    pub inflight_index: Derived<BTreeMap<Loc, u32>>,
    /// How many caches hold a dirty line of each location: `caches` indexed.
    pub dirty_index: Derived<BTreeMap<Loc, u32>>,
    pub signal_clocks: BTreeMap<Loc, Shared<Vec<u32>>>,
    /// The cells a `ge` wait passed on as soon as it held, with the waiting
    /// thread: another thread lowering such a cell breaks the rule's
    /// condition (`Machine::lowered`).
    pub passed_early: std::collections::BTreeSet<(Loc, ThreadId)>,
    /// Dynamic allocations: (site, slot, n-th by that slot) -> buffer.
    pub allocations: BTreeMap<(SiteId, u16, u32), u32>,
    pub alloc_counts: BTreeMap<(ThreadId, SiteId), u32>,
    pub launch_counts: BTreeMap<(u16, FuncId), u32>,
    /// Per thread, what it rests at, read once from its frame: every
    /// running thread is settled and asked whether it is enabled after
    /// every step, and at P = 16 most of 528 rest at a notify or a wait.
    /// Set when the thread comes to rest; cleared when its frames may
    /// change (it executes, a launch, a join, a collective) and when memory
    /// changes under every thread (an allocation or a deallocation). A
    /// thread resting at a `ge` wait stays at rest until its cell is written:
    /// the pass after a step looks again only at the waits on `signalled`.
    pub rests: Derived<Vec<Option<Rest>>>,
    /// Cells the step being taken wrote (a notify, a landing): the waits on
    /// them are looked at again when the step ends (`Machine::apply`).
    pub signalled: Derived<Vec<Loc>>,
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

/// What a thread that cannot step waits for (`Machine::blocked`).
#[derive(Clone, Copy, Debug)]
pub enum Blocked {
    /// A `ccl.wait` whose cell does not satisfy it; the value the cell
    /// holds (`None`: a copy that does not exist).
    Wait { wait: WaitAt, value: Option<i64> },
    /// A host at a collective the other hosts have not all reached.
    Collective,
    /// A host joining its launch of the blocks `first..first + count`.
    Launch { first: ThreadId, count: u16 },
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
