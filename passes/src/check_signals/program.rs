//! The program as the analysis sees it: every thread of one run on P ranks
//! (each rank's host, each block of each launch), each a list of the items
//! other threads can observe, in program order, with what is known of their
//! operands (the cell a notify writes, the value it adds, the elements an
//! access touches). Built by [`super::instantiate`]; pure data, so the
//! analyses over it run and are tested without MLIR.

use rustc_hash::FxHashMap;

pub type ThreadId = u32;
/// An op of the source, numbered in the order the instantiation met it.
pub type SiteId = u32;
/// A buffer: an argument of the entry, or one execution of an allocation.
pub type RootId = u32;

/// One element of one rank's copy of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub root: RootId,
    pub rank: u32,
    pub index: u32,
}

/// A buffer and, when known, the rank of its copy: where an access whose
/// elements are not known stays.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Within {
    pub root: RootId,
    pub rank: Option<u32>,
    /// The indices it may touch, when the view's offsets are known and its
    /// sizes bounded (`None`: any of the buffer).
    pub indices: Option<Vec<u32>>,
}

/// A signal cell is an element like any other.
pub type Cell = Loc;

/// What an item does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// The thread begins (a block: forked by its launch).
    Start,
    /// The thread ends.
    End,
    /// `ccl.notify`: `cell` when its view and peer are known (else the
    /// notify may write any cell of `root`, or of any root when `root` is
    /// unknown too), the value when known.
    Notify { cell: Option<Cell>, root: Option<RootId>, add: bool, value: Option<i64> },
    /// `ccl.wait` on this rank's cell.
    Wait { cell: Option<Cell>, eq: bool, threshold: Option<i64> },
    /// A GM access: the elements read and written, `None` when unknown;
    /// `within`, the buffer (and rank) each unknown set stays inside,
    /// when that is known (reads, then writes).
    Access { reads: Option<Vec<Loc>>, writes: Option<Vec<Loc>>, within: [Option<Within>; 2] },
    /// A host forks the blocks `first..first + count` of a launch.
    Launch { first: ThreadId, count: u32 },
    /// The host waits for the blocks of its last launch (the join).
    Join { first: ThreadId, count: u32 },
    /// A collective (`barrier`, `all_reduce`, unlowered `all_to_all_v`):
    /// every host meets every other host's collective of the same number.
    /// It reads and writes the buffers `roots` (every rank's copy) when
    /// they meet.
    Collective { roots: Vec<RootId> },
}

impl ItemKind {
    /// Whether the item synchronises (everything but an access).
    pub fn is_sync(&self) -> bool {
        !matches!(self, ItemKind::Access { .. })
    }
}

/// One item of a thread.
#[derive(Clone, Debug)]
pub struct Item {
    pub kind: ItemKind,
    pub site: SiteId,
    /// Whether the item runs whenever its thread gets this far: `false`
    /// inside a branch whose condition is not known (or a launch made there).
    pub certain: bool,
    /// Inside a loop whose trip count is not known: it may run any number
    /// of times.
    pub repeated: bool,
    /// The arm it runs in: 0 for what runs whenever its thread does, else
    /// one way of a branch not known to be taken, or one loop body of
    /// unknown trip count, as the run wrote it out (`Program::arm_parents`).
    pub arm: u32,
    /// How many items of the same site its thread chain (rank and slot:
    /// the host, or one block slot over every launch) ran before it.
    pub ordinal: u32,
}

/// A thread: a rank's host (slot 0) or a block of one launch.
#[derive(Clone, Debug)]
pub struct Thread {
    pub rank: u32,
    /// 0 for the host, `block + 1` for a block.
    pub slot: u32,
    /// The host that launched it.
    pub host: Option<ThreadId>,
    /// The kernel and the launch's number among that kernel's launches on
    /// this rank (1-based), for a block.
    pub kernel: Option<(String, u32)>,
    pub items: Vec<Item>,
}

impl Thread {
    /// "rank 0 host", "rank 1 block 0 in launch 2 of @barrier".
    pub fn describe(&self) -> String {
        match &self.kernel {
            None => format!("rank {} host", self.rank),
            Some((kernel, launch)) => format!(
                "rank {} block {} in launch {} of {}",
                self.rank,
                self.slot - 1,
                launch,
                cclir_dialect::names::symbol_ref(kernel)
            ),
        }
    }
}

/// A buffer.
#[derive(Clone, Debug)]
pub struct Root {
    /// "argument #0 of @main", "the allocation at line 12 (rank 0 block 0)".
    pub name: String,
    /// Elements per rank.
    pub len: u64,
    /// The element type's width, for integers (a cell's value wraps to it).
    pub width: Option<u32>,
}

/// An op of the source.
#[derive(Clone, Debug)]
pub struct Site {
    pub op_name: String,
}

/// Every thread of one run, and the names of what they touch.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub ranks: u32,
    pub threads: Vec<Thread>,
    pub sites: Vec<Site>,
    pub roots: Vec<Root>,
    /// Roots something other than a notify may write (a store, a put, a
    /// collective): the value of a cell there is not the notifies' sum.
    pub data_written: Vec<bool>,
    /// A notify with an unknown view may have written any cell.
    pub any_cell_unknown: bool,
    /// Per arm, the arm it is nested in (arm 0, the root, in itself).
    pub arm_parents: Vec<u32>,
}

/// An item's identity: its thread and position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct At {
    pub thread: ThreadId,
    pub pos: u32,
}

impl Program {
    pub fn item(&self, at: At) -> &Item {
        &self.threads[at.thread as usize].items[at.pos as usize]
    }

    /// "element 1 of argument #0 of @main on rank 0".
    pub fn describe_loc(&self, loc: Loc) -> String {
        format!("element {} of {} on rank {}", loc.index, self.roots[loc.root as usize].name, loc.rank)
    }

    /// Whether the values a cell takes are the notifies' doing alone (no
    /// other op writes it, and no notify of an unknown cell may).
    pub fn cell_is_modelled(&self, cell: Cell) -> bool {
        !self.any_cell_unknown && !self.data_written[cell.root as usize]
    }

    /// The width a cell's value wraps to (a signal is an integer).
    pub fn cell_width(&self, cell: Cell) -> Option<u32> {
        self.roots[cell.root as usize].width
    }

    /// Every notify of the program, by the cell it writes.
    pub fn notifies_by_cell(&self) -> FxHashMap<Cell, Vec<At>> {
        let mut by_cell: FxHashMap<Cell, Vec<At>> = FxHashMap::default();
        self.for_each_item(|at, item| {
            if let ItemKind::Notify { cell: Some(cell), .. } = item.kind {
                by_cell.entry(cell).or_default().push(at);
            }
        });
        by_cell
    }

    /// Every item, thread by thread, in program order.
    pub fn for_each_item(&self, mut visit: impl FnMut(At, &Item)) {
        for (t, thread) in self.threads.iter().enumerate() {
            for (p, item) in thread.items.iter().enumerate() {
                visit(At { thread: t as ThreadId, pos: p as u32 }, item);
            }
        }
    }

    /// The items of one thread, in program order.
    pub fn for_each_item_of(&self, thread: ThreadId, mut visit: impl FnMut(At, &Item)) {
        for (p, item) in self.threads[thread as usize].items.iter().enumerate() {
            visit(At { thread, pos: p as u32 }, item);
        }
    }

    /// The hosts, by rank.
    pub fn hosts(&self) -> Vec<ThreadId> {
        (0..self.threads.len() as ThreadId).filter(|&t| self.threads[t as usize].host.is_none()).collect()
    }
}
