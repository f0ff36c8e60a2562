//! The program's shape: its blocks, buffers, signal cells, launch plan and
//! the statements of a block's code; the generator's state, and the
//! program-wide choices a seed makes before any kernel is written.

use super::Feature;
use crate::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// A block of a rank, in a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Thread {
    pub(super) rank: u16,
    pub(super) block: u16,
}

/// A data buffer: a window or a plain buffer, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Buf {
    Win(usize),
    Plain(usize),
}

/// `len` contiguous elements of `buf` from `elem`, in `rank`'s copy.
#[derive(Clone, Copy, Debug)]
pub(super) struct Data {
    pub(super) buf: Buf,
    pub(super) elem: usize,
    pub(super) len: usize,
    pub(super) rank: u16,
}

/// What element `j` of a published item holds after a write: `base + step
/// * j`, plus 1000 per round.
#[derive(Clone, Copy, Debug)]
pub(super) struct Value {
    pub(super) base: i64,
    pub(super) step: i64,
}

/// A signal cell's copy on one rank.
pub(super) type CellKey = (usize, u16);

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Collective {
    Barrier,
    AllReduce,
    AllToAllV,
}

/// The host's sequence of launches (`L`) and collectives (`C`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Plan {
    /// L(k0)
    Once,
    /// L(k0); C
    OnceThenCollective,
    /// L(k0); L(k0)
    TwiceBare,
    /// L(k0); C; L(k0)
    Twice,
    /// for round in 0..2 { L(k0); C }
    Loop,
    /// L(k0); C; L(k1)
    Then,
    /// C; L(k0)
    CollectiveFirst,
}

/// How a producer publishes an item.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Publish {
    TensorWrite,
    TileStore,
    /// A `get` into the window from the producer's own staging element.
    GetLocal,
    /// A write into a plain buffer: no rule writes it back.
    Plain,
    RemoteStore,
    Put,
}

/// How a consumer reads an item.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Fetch {
    Read,
    TileLoad,
    RemoteLoad,
    /// A `get` into a staging element, then a read of it.
    GetRead,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Protocol {
    Add,
    NotifyLoop,
    Set,
    AddThenSet,
    /// +2 then -1: the cell goes up and down.
    Cancel,
}

/// One item an episode moves.
#[derive(Clone, Copy, Debug)]
pub(super) struct Item {
    pub(super) data: Data,
    pub(super) publish: Publish,
    pub(super) fetch: Fetch,
    pub(super) looped: bool,
}

/// A statement of a block's code.
pub(super) enum Stmt {
    Op(String),
    If {
        cond: String,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    For {
        iv: String,
        trips: usize,
        body: Vec<Stmt>,
    },
    /// `%name = offset + round x (what the kernel's episodes add to the
    /// cell per launch)`: a wait's expected value, known once every episode
    /// of the kernel is placed.
    Threshold {
        name: String,
        cell: CellKey,
        offset: i64,
    },
    /// The rest of the block's code runs only if `cond` holds, else
    /// `otherwise` does.
    Guard {
        cond: String,
        otherwise: Vec<Stmt>,
    },
}

/// What one kernel's episodes do to a signal cell's copy.
#[derive(Clone, Default)]
pub(super) struct CellUse {
    /// Its value when the kernel's first launch starts.
    pub(super) start: i64,
    /// What the kernel's episodes add to it per launch (so far).
    pub(super) net: i64,
    pub(super) used: bool,
    /// Set without a reset: its value after the kernel is that of the last
    /// set (`last_set` plus 1000 per round).
    pub(super) closed: bool,
    pub(super) last_set: i64,
    pub(super) added: bool,
    pub(super) notifiers: Vec<usize>,
}

/// One kernel being written.
#[derive(Default)]
pub(super) struct Kernel {
    pub(super) rounds: usize,
    pub(super) bodies: Vec<Vec<Stmt>>,
    pub(super) cells: BTreeMap<CellKey, CellUse>,
    /// Data elements published (buffer, element, rank).
    pub(super) data_used: BTreeSet<(Buf, usize, u16)>,
    pub(super) i32s: BTreeSet<i64>,
    pub(super) indices: BTreeSet<usize>,
    pub(super) vectors: BTreeSet<(usize, i64)>,
    /// What this kernel published, for a later kernel to read.
    pub(super) published: Vec<(Data, Value)>,
    pub(super) uses_first: bool,
}

/// The generator: the program-wide choices, what the program has so far
/// (features, hazards, helpers, the cells' values) and the kernel being
/// written.
pub(super) struct Gen {
    pub(super) rng: Rng,
    pub(super) ranks: u16,
    pub(super) width: u16,
    pub(super) windows: Vec<usize>,
    pub(super) plains: Vec<usize>,
    /// Per cell: `Some(i)`, element `i` of `%sig`; `None`, its own buffer.
    pub(super) cells: Vec<Option<usize>>,
    pub(super) sig_len: usize,
    pub(super) plan: Plan,
    pub(super) collective: Collective,
    pub(super) wrapper: bool,
    /// The all_reduce's source; its destination is `%acc`.
    pub(super) reduce_src: Buf,
    pub(super) acc_window: bool,
    pub(super) features: BTreeSet<Feature>,
    pub(super) next_value: i64,
    pub(super) names: usize,
    /// Each cell copy's value when the next kernel starts.
    pub(super) cell_values: BTreeMap<CellKey, i64>,
    pub(super) helpers: Vec<String>,
    /// `ccl.launch_width` on the kernels, not on their calls.
    pub(super) width_on_function: bool,
    /// The host launches by `ccl.submit`.
    pub(super) submit: bool,
    /// The patterns chosen that may race or deadlock whatever the markers.
    pub(super) hazards: BTreeSet<&'static str>,
    pub(super) k: Kernel,
}

impl Gen {
    /// The program-wide choices of `seed`: ranks, launch width, buffers,
    /// cells, plan and collective.
    pub(super) fn new(seed: u64) -> Gen {
        let mut rng = Rng::new(seed ^ 0x11_7C05_5EED_0035);
        let ranks = if rng.chance(20) { 3 } else { 2 };
        let width = if ranks == 2 && rng.chance(35) { 2 } else { 1 };
        let windows = (0..if rng.chance(35) { 2 } else { 1 }).map(|_| 1 + rng.below(4)).collect();
        let plains = (0..if rng.chance(30) { 2 } else { 1 }).map(|_| 1 + rng.below(4)).collect();
        let cell_count = *rng.pick(&[1, 2, 2, 3, 3]);
        let mut cells = Vec::new();
        let mut sig_len = 0;
        for _ in 0..cell_count {
            if rng.chance(60) {
                cells.push(Some(sig_len));
                sig_len += 1;
            } else {
                cells.push(None);
            }
        }
        if sig_len > 0 && rng.chance(25) {
            // An element no episode uses: the cells are not the whole buffer.
            sig_len += 1;
        }
        let plan = match rng.below(100) {
            0..=31 => Plan::Once,
            32..=41 => Plan::OnceThenCollective,
            42..=48 => Plan::TwiceBare,
            49..=63 => Plan::Twice,
            64..=72 => Plan::Loop,
            73..=90 => Plan::Then,
            _ => Plan::CollectiveFirst,
        };
        let collective = match rng.below(100) {
            0..=35 => Collective::Barrier,
            36..=69 => Collective::AllReduce,
            _ => Collective::AllToAllV,
        };
        let wrapper = rng.chance(25);
        let reduce_src = if rng.chance(15) { Buf::Plain(0) } else { Buf::Win(0) };
        let acc_window = rng.chance(40);
        let submit = rng.chance(8);
        let width_on_function = submit || rng.chance(40);
        Gen {
            rng,
            ranks,
            width,
            windows,
            plains,
            cells,
            sig_len,
            plan,
            collective,
            wrapper,
            reduce_src,
            acc_window,
            features: BTreeSet::new(),
            next_value: 1,
            names: 0,
            cell_values: BTreeMap::new(),
            helpers: Vec::new(),
            width_on_function,
            submit,
            hazards: BTreeSet::new(),
            k: Kernel::default(),
        }
    }

    pub(super) fn feature(&mut self, feature: Feature) {
        self.features.insert(feature);
    }

    pub(super) fn has_collective(&self) -> bool {
        !matches!(self.plan, Plan::Once | Plan::TwiceBare)
    }

    pub(super) fn threads(&self) -> Vec<Thread> {
        (0..self.ranks).flat_map(|rank| (0..self.width).map(move |block| Thread { rank, block })).collect()
    }

    pub(super) fn thread_index(&self, t: Thread) -> usize {
        (t.rank * self.width + t.block) as usize
    }
}
