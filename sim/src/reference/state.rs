//! The state of the reference semantics: what SEMANTICS.md's execution
//! model names, each as plainly as it can be held. Nothing here is an index
//! or a summary of something else: every part is read where the model reads
//! it and written where the model writes it.

use crate::program::{FuncId, Reg, Scalar, SiteId};
use crate::value::Val;
use std::collections::BTreeMap;

/// A thread: rank `r`'s host is `r * per_rank`, its block slot `s` (from 1)
/// is `r * per_rank + s` (the machine numbers them the same way, so a
/// schedule of one can be replayed in the other).
pub type ThreadId = u16;

/// A vector clock: one entry per thread. A thread's own entry grows by one
/// at each of its events, so an event is named by its thread and that
/// entry, and event `a` happens before a point with clock `c` exactly when
/// `a`'s entry is at most `c`'s entry for `a`'s thread.
pub type Clock = Vec<u32>;

/// A memory location: element `index` of rank `rank`'s copy of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub rank: u16,
    pub buffer: u32,
    pub index: u32,
}

/// Who wrote the value a location, a cache line or an in-flight write
/// holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// The zero every buffer starts with: older than every write.
    Initial,
    /// A data write: its thread, its number among that thread's data
    /// writes (from 1), and the thread's clock at the write.
    Write { thread: ThreadId, seq: u32, clock: Clock },
    /// A `ccl.notify` (a signal op writes memory, but is not an access).
    Notify { thread: ThreadId, clock: Clock },
}

impl Origin {
    /// Whether this value's write happens before the event with clock
    /// `clock` (the initial value happens before everything).
    pub fn happens_before(&self, clock: &Clock) -> bool {
        match self {
            Origin::Initial => true,
            Origin::Write { thread, clock: own, .. } | Origin::Notify { thread, clock: own } => {
                own[*thread as usize] <= clock[*thread as usize]
            }
        }
    }
}

/// What a location, a line or an in-flight write holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value {
    pub bits: u64,
    pub origin: Origin,
}

/// A line of a block slot's cache (a line is one element).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Line {
    pub value: Value,
    /// Written by the block and not written back: visible to nobody else.
    pub dirty: bool,
}

/// One write in flight toward memory (a `put`'s or `remote_store`'s
/// element, or a line a `cacheinvalid` wrote back). Each lands on its own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pending {
    pub loc: Loc,
    pub value: Value,
    /// The op that sent it.
    pub site: SiteId,
}

/// One access to a location: a GM read or a data write (signal ops are
/// not accesses).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Access {
    pub thread: ThreadId,
    /// The thread's clock at the access.
    pub clock: Clock,
    pub write: bool,
    /// A write's number among its thread's data writes.
    pub seq: Option<u32>,
    pub site: SiteId,
}

impl Access {
    /// Whether this access happens before the event with clock `clock`.
    pub fn happens_before(&self, clock: &Clock) -> bool {
        self.clock[self.thread as usize] <= clock[self.thread as usize]
    }

    /// Whether `origin` is this access's write.
    pub fn wrote(&self, origin: &Origin) -> bool {
        matches!(origin, Origin::Write { thread, seq, .. } if *thread == self.thread && Some(*seq) == self.seq)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub func: FuncId,
    pub pc: u32,
    pub regs: Vec<Val>,
    /// Where the caller wants the results.
    pub results: Vec<Reg>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// A block slot with no kernel running.
    Idle,
    Running,
    /// A host waiting for the blocks `first..first + count` of a launch.
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
    pub clock: Clock,
    /// Data writes made so far (each write's `seq`).
    pub writes: u32,
    /// The kernel the slot runs and its launch number (1-based per rank and
    /// kernel), for reports.
    pub kernel: Option<FuncId>,
    pub launch: u32,
}

/// A rank's copy of a buffer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Copy {
    /// Not allocated on this rank yet.
    Absent,
    Live(Vec<Value>),
    /// Deallocated.
    Freed,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    pub element: Scalar,
    pub len: u32,
    /// One copy per rank.
    pub copies: Vec<Copy>,
}

/// A race: two accesses the model calls one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaceKind {
    /// (a) A read returned a value older than a write that happens before
    /// it.
    StaleRead,
    /// (b) Two accesses of different threads, one a write, that no
    /// happens-before edge orders.
    Unordered,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Finding {
    Race {
        kind: RaceKind,
        loc: Loc,
        /// The earlier access (for a stale read, the newer write it missed).
        first: Access,
        /// The access that made it a race.
        second: Access,
    },
    /// A runtime error of the program.
    Error { site: Option<SiteId>, message: String },
    /// A bound of the interpreter: nothing can be concluded.
    Limit { site: Option<SiteId>, message: String },
}

/// The whole state. Two states are the same state exactly when every part
/// is equal (the search's visited set compares them whole).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub threads: Vec<Thread>,
    pub buffers: Vec<Buffer>,
    /// Per thread, its cache (hosts have one too).
    pub caches: Vec<BTreeMap<Loc, Line>>,
    /// Per thread, its writes in flight: a multiset, kept sorted.
    pub queues: Vec<Vec<Pending>>,
    /// Per signal cell, the clock its notifies released.
    pub signal_clocks: BTreeMap<Loc, Clock>,
    /// Per location, every access made to it so far: a set, kept sorted.
    pub history: BTreeMap<Loc, Vec<Access>>,
    /// Dynamic allocations: (site, slot, n-th by that slot) -> buffer, so
    /// every rank's run of one allocation makes copies of one buffer.
    pub allocations: BTreeMap<(SiteId, u16, u32), u32>,
    pub alloc_counts: BTreeMap<(ThreadId, SiteId), u32>,
    pub launch_counts: BTreeMap<(u16, FuncId), u32>,
    /// The finding that ended this execution.
    pub finding: Option<Finding>,
}

/// What an execution does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The thread takes the step it rests at (a ccl op, a launch, a join,
    /// an allocation).
    Step(ThreadId),
    /// The `n`-th write of the thread's in-flight queue lands.
    Land(ThreadId, usize),
    /// Every host is at a collective: it runs.
    Collective,
}
