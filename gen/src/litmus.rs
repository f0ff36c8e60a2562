//! Small random programs that reach every rule of SEMANTICS.md's execution
//! model: the input of the differential tests that hold ccl-sim's reduced
//! searches (`--por on`, `--por dpor`, the local-step, quiet-read,
//! eager-wait and own-pending rules) against the unreduced reference.
//!
//! `exchange` writes message passing that is synchronized by construction,
//! with one notifier per cell, positive adds only and no two writes of one
//! element in flight: the patterns where a reduction breaks never occur in
//! it. Here a program is a handful of *episodes*, each a message from a
//! producer block to a consumer block (on another rank or on the same rank):
//! the producer publishes one or two elements (`tensor_write`, `tile_store`
//! of `vector<1xi32>` or `vector<2xi32>`, a `get` into a window, a
//! `remote_store`, a `put`, or a plain-buffer write nobody writes back) and
//! signals a cell of the consumer's rank; the consumer waits and reads the
//! data (`read`, `tile_load`, `remote_load`, `get`). What varies per
//! episode: the signal protocol (`atomic_add` of +1 or +2, a notify loop, two
//! notifiers of one cell, `set`, an `add` then a `set`, an add of +2 then -1,
//! waits `ge` or `eq`, a pure wait loop, the consumer resetting the cell with
//! a negative add or a `set 0`), a handshake (the consumer reads the data
//! early, keeping the line in its cache, and acknowledges before the producer
//! writes), two writes of one element in flight together (two remote writes,
//! or two write-backs started by `cacheinvalid`) read back by the writer
//! while they are in flight, an ordinary `ccl.read` of the signal cell,
//! views chosen by `arith.select`, a store through a helper function, and
//! the consumer's rest made conditional on the value it read (a stale value
//! steers control flow). Around the episodes: one or two launches of the
//! kernel (caches survive from one to the next), collectives (`barrier`,
//! `all_reduce`, an unlowered `all_to_all_v`, sometimes in a wrapper) whose
//! output the next launch reads, a second kernel that reads the first's data,
//! launches from a host loop or by `ccl.submit`, and sometimes markers placed
//! at random.
//!
//! Episodes are laid out in one global order and every block runs its part of
//! them in that order, so the raw programs are deadlock-free by construction
//! unless a hazard was chosen on purpose (a cell shared by two episodes, a
//! `wait eq` on a value that may be missed, a `set` that can erase an add, a
//! fast path that skips a wait, two launches with no collective between
//! them). Raw programs race (no markers); most are race-free once
//! `ccl-insert-comm-fence` has placed the rules' markers, the rest race or
//! deadlock. Every write writes its own constant (plus 1000 per round), so a
//! stale value is a visible one.
//!
//! Each program reports the [`Feature`]s it contains; [`Coverage`]
//! accumulates them over many programs and prints the table
//! `ccl-gen --litmus-coverage N` shows.

use super::Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// A rule of the execution model (or a pattern of one) that a program
/// exercises. `name` is its short name, `rule` what it exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    TileStore,
    TensorWrite,
    Get,
    RemoteStore,
    Put,
    Read,
    TileLoad,
    RemoteLoad,
    RegionInvalidate,
    WholeInvalidate,
    Fence,
    NotifyAddPositive,
    NotifyAddNegative,
    NotifySet,
    WaitGe,
    WaitEq,
    SeveralNotifiers,
    SetAfterAdd,
    SignalCellGmRead,
    TwoWritesInFlight,
    ReadBackInFlight,
    PlainWriteReadElsewhere,
    Subview,
    SelectOfViews,
    OtherViewOps,
    CellSubview,
    CellBuffer,
    CellIsElementZero,
    Alloc,
    ForLoop,
    PureWaitLoop,
    WaitRun,
    IfOnRankOrBlock,
    IfOnMemory,
    IndexFromMemory,
    Handshake,
    CallInKernel,
    PeerIsSelf,
    TwoBlocks,
    ThreeRanks,
    TwoLaunches,
    LaunchAfterCollective,
    ReadsCollectiveOutput,
    ReadsEarlierLaunch,
    LaunchInHostLoop,
    Submit,
    Barrier,
    AllReduce,
    AllToAllV,
    CollectiveInWrapper,
    MarkersAtRandom,
}

impl Feature {
    /// Every feature, in the order the coverage table lists them.
    pub const ALL: &'static [Feature] = &[
        Feature::TileStore,
        Feature::TensorWrite,
        Feature::Get,
        Feature::RemoteStore,
        Feature::Put,
        Feature::Read,
        Feature::TileLoad,
        Feature::RemoteLoad,
        Feature::RegionInvalidate,
        Feature::WholeInvalidate,
        Feature::Fence,
        Feature::NotifyAddPositive,
        Feature::NotifyAddNegative,
        Feature::NotifySet,
        Feature::WaitGe,
        Feature::WaitEq,
        Feature::SeveralNotifiers,
        Feature::SetAfterAdd,
        Feature::SignalCellGmRead,
        Feature::TwoWritesInFlight,
        Feature::ReadBackInFlight,
        Feature::PlainWriteReadElsewhere,
        Feature::Subview,
        Feature::SelectOfViews,
        Feature::OtherViewOps,
        Feature::CellSubview,
        Feature::CellBuffer,
        Feature::CellIsElementZero,
        Feature::Alloc,
        Feature::ForLoop,
        Feature::PureWaitLoop,
        Feature::WaitRun,
        Feature::IfOnRankOrBlock,
        Feature::IfOnMemory,
        Feature::IndexFromMemory,
        Feature::Handshake,
        Feature::CallInKernel,
        Feature::PeerIsSelf,
        Feature::TwoBlocks,
        Feature::ThreeRanks,
        Feature::TwoLaunches,
        Feature::LaunchAfterCollective,
        Feature::ReadsCollectiveOutput,
        Feature::ReadsEarlierLaunch,
        Feature::LaunchInHostLoop,
        Feature::Submit,
        Feature::Barrier,
        Feature::AllReduce,
        Feature::AllToAllV,
        Feature::CollectiveInWrapper,
        Feature::MarkersAtRandom,
    ];

    /// The short name the coverage table prints.
    pub fn name(self) -> &'static str {
        match self {
            Feature::TileStore => "tile-store",
            Feature::TensorWrite => "tensor-write",
            Feature::Get => "get",
            Feature::RemoteStore => "remote-store",
            Feature::Put => "put",
            Feature::Read => "read",
            Feature::TileLoad => "tile-load",
            Feature::RemoteLoad => "remote-load",
            Feature::RegionInvalidate => "cacheinvalid-region",
            Feature::WholeInvalidate => "cacheinvalid-whole",
            Feature::Fence => "fence",
            Feature::NotifyAddPositive => "notify-add-positive",
            Feature::NotifyAddNegative => "notify-add-negative",
            Feature::NotifySet => "notify-set",
            Feature::WaitGe => "wait-ge",
            Feature::WaitEq => "wait-eq",
            Feature::SeveralNotifiers => "several-notifiers",
            Feature::SetAfterAdd => "set-after-add",
            Feature::SignalCellGmRead => "signal-cell-gm-read",
            Feature::TwoWritesInFlight => "two-writes-in-flight",
            Feature::ReadBackInFlight => "read-back-in-flight",
            Feature::PlainWriteReadElsewhere => "plain-write-read-elsewhere",
            Feature::Subview => "subview",
            Feature::SelectOfViews => "select-of-views",
            Feature::OtherViewOps => "cast-expand-view",
            Feature::CellSubview => "cell-subview",
            Feature::CellBuffer => "cell-buffer",
            Feature::CellIsElementZero => "cell-is-element-0",
            Feature::Alloc => "alloc",
            Feature::ForLoop => "for-loop",
            Feature::PureWaitLoop => "pure-wait-loop",
            Feature::WaitRun => "wait-run",
            Feature::IfOnRankOrBlock => "if-rank-block",
            Feature::IfOnMemory => "if-on-memory",
            Feature::IndexFromMemory => "index-from-memory",
            Feature::Handshake => "handshake",
            Feature::CallInKernel => "call-in-kernel",
            Feature::PeerIsSelf => "peer-is-self",
            Feature::TwoBlocks => "two-blocks",
            Feature::ThreeRanks => "three-ranks",
            Feature::TwoLaunches => "two-launches",
            Feature::LaunchAfterCollective => "launch-after-collective",
            Feature::ReadsCollectiveOutput => "reads-collective-output",
            Feature::ReadsEarlierLaunch => "reads-earlier-launch",
            Feature::LaunchInHostLoop => "launch-in-host-loop",
            Feature::Submit => "submit",
            Feature::Barrier => "barrier",
            Feature::AllReduce => "all-reduce",
            Feature::AllToAllV => "all-to-all-v",
            Feature::CollectiveInWrapper => "collective-in-wrapper",
            Feature::MarkersAtRandom => "markers-at-random",
        }
    }

    /// What in the execution model the feature exercises.
    pub fn rule(self) -> &'static str {
        match self {
            Feature::TileStore => "ccl.tile_store (vector<1xi32>, vector<2xi32>): a dirty line per element",
            Feature::TensorWrite => "ccl.tensor_write: a dirty line, visible to nobody else",
            Feature::Get => "ccl.get: a read of the peer's copy, a write of the local one",
            Feature::RemoteStore => "ccl.remote_store: an in-flight write toward the peer's memory",
            Feature::Put => "ccl.put: a read of the source, in-flight writes toward the peer",
            Feature::Read => "ccl.read: a GM read through the cache",
            Feature::TileLoad => "ccl.tile_load: contiguous GM reads through the cache",
            Feature::RemoteLoad => "ccl.remote_load: a read of the peer's copy through the cache",
            Feature::RegionInvalidate => "ccl.cacheinvalid %v: write back a view's dirty lines, drop its clean ones",
            Feature::WholeInvalidate => "ccl.cacheinvalid: the same for every line",
            Feature::Fence => "ccl.fence: wait until the block's in-flight writes have landed",
            Feature::NotifyAddPositive => "notify atomic_add with a positive value",
            Feature::NotifyAddNegative => "notify atomic_add with a negative value: a cell that goes down",
            Feature::NotifySet => "notify set: a cell that can go anywhere",
            Feature::WaitGe => "wait ge",
            Feature::WaitEq => "wait eq: a value that may be missed",
            Feature::SeveralNotifiers => "two blocks notify one cell",
            Feature::SetAfterAdd => "a set after an add on the same cell",
            Feature::SignalCellGmRead => "an ordinary ccl.read of a signal cell (cached, not a sync op)",
            Feature::TwoWritesInFlight => "two writes of one element in flight land in either order",
            Feature::ReadBackInFlight => "own accesses are coherent: the writer reads back a write still in flight",
            Feature::PlainWriteReadElsewhere => {
                "a plain buffer written by one block, read by another block, launch or collective"
            }
            Feature::Subview => "memref.subview: views, not copies",
            Feature::SelectOfViews => "arith.select of two views",
            Feature::OtherViewOps => "memref.cast and memref.expand_shape views",
            Feature::CellSubview => "a signal cell selected by a one-element subview",
            Feature::CellBuffer => "a signal cell in its own buffer",
            Feature::CellIsElementZero => "a notify or wait on a longer memref acts on its element 0",
            Feature::Alloc => "memref.alloc: a buffer per site, slot and execution",
            Feature::ForLoop => "scf.for of one or two iterations",
            Feature::PureWaitLoop => "a loop that only waits (rule 5's pure wait loop)",
            Feature::WaitRun => "two waits in a row (rule 4: one invalidate after the last)",
            Feature::IfOnRankOrBlock => "scf.if on ccl.rank / ccl.block_id",
            Feature::IfOnMemory => "scf.if on a value read from memory: a stale value steers control flow",
            Feature::IndexFromMemory => "an index computed from a value read (out of bounds when stale)",
            Feature::Handshake => "an early read kept in the cache, acknowledged before the write",
            Feature::CallInKernel => "a func.call inside a kernel (an opaque publish)",
            Feature::PeerIsSelf => "a remote op or get toward the block's own rank",
            Feature::TwoBlocks => "a launch of two blocks (launch_width 2)",
            Feature::ThreeRanks => "three ranks",
            Feature::TwoLaunches => "two launches of one kernel: cache lines survive on a slot",
            Feature::LaunchAfterCollective => "a launch after a collective (Phase B's prologue)",
            Feature::ReadsCollectiveOutput => "a kernel reads what a collective wrote behind every cache",
            Feature::ReadsEarlierLaunch => {
                "a kernel reads what an earlier one wrote (the join writes no dirty line back)"
            }
            Feature::LaunchInHostLoop => "launches from a host scf.for (Phase B's rescan)",
            Feature::Submit => "a launch by ccl.submit",
            Feature::Barrier => "ccl.barrier",
            Feature::AllReduce => "ccl.all_reduce: memory written behind every cache",
            Feature::AllToAllV => "an unlowered ccl.all_to_all_v: counts and rows moved behind every cache",
            Feature::CollectiveInWrapper => "a collective in an orchestration wrapper (Phase B's summary)",
            Feature::MarkersAtRandom => "markers placed at random in the raw program",
        }
    }
}

/// Every feature, in the order the coverage table lists them.
pub fn all_features() -> &'static [Feature] {
    Feature::ALL
}

/// A generated litmus program, the rank count to run it with, and what it
/// contains.
#[derive(Clone, Debug)]
pub struct Litmus {
    pub ranks: u16,
    pub text: String,
    pub features: BTreeSet<Feature>,
}

/// How many programs have each feature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    pub programs: usize,
    pub counts: BTreeMap<Feature, usize>,
}

impl Coverage {
    /// Counts one program's features.
    pub fn add(&mut self, features: &BTreeSet<Feature>) {
        self.programs += 1;
        for feature in features {
            *self.counts.entry(*feature).or_default() += 1;
        }
    }

    pub fn count(&self, feature: Feature) -> usize {
        self.counts.get(&feature).copied().unwrap_or(0)
    }

    /// The share of the programs with `feature`, in percent.
    pub fn percent(&self, feature: Feature) -> f64 {
        if self.programs == 0 {
            return 0.0;
        }
        100.0 * self.count(feature) as f64 / self.programs as f64
    }

    /// The features in fewer than `percent`% of the programs.
    pub fn below(&self, percent: f64) -> Vec<Feature> {
        Feature::ALL.iter().copied().filter(|f| self.percent(*f) < percent).collect()
    }

    /// One line per feature: its name, count, share and rule.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = Feature::ALL.iter().map(|f| f.name().len()).max().unwrap_or(0);
        writeln!(out, "{:<width$}  {:>8}  {:>6}  rule", "feature", "programs", "share").unwrap();
        for feature in Feature::ALL {
            writeln!(
                out,
                "{:<width$}  {:>8}  {:>5.1}%  {}",
                feature.name(),
                self.count(*feature),
                self.percent(*feature),
                feature.rule()
            )
            .unwrap();
        }
        out
    }
}

/// The coverage of the programs of `seeds`.
pub fn coverage(seeds: std::ops::Range<u64>) -> Coverage {
    let mut coverage = Coverage::default();
    for seed in seeds {
        coverage.add(&litmus_program(seed).features);
    }
    coverage
}

/// The litmus program of `seed`.
pub fn litmus_program(seed: u64) -> Litmus {
    Gen::new(seed).program(seed)
}

// ---------------------------------------------------------------------------
// The program's shape.

/// A block of a rank, in a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Thread {
    rank: u16,
    block: u16,
}

/// A data buffer: a window or a plain buffer, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Buf {
    Win(usize),
    Plain(usize),
}

/// `len` contiguous elements of `buf` from `elem`, in `rank`'s copy.
#[derive(Clone, Copy, Debug)]
struct Data {
    buf: Buf,
    elem: usize,
    len: usize,
    rank: u16,
}

/// What element `j` of a published item holds after a write: `base + step
/// * j`, plus 1000 per round.
#[derive(Clone, Copy, Debug)]
struct Value {
    base: i64,
    step: i64,
}

/// A signal cell's copy on one rank.
type CellKey = (usize, u16);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Collective {
    Barrier,
    AllReduce,
    AllToAllV,
}

/// The host's sequence of launches (`L`) and collectives (`C`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
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
enum Publish {
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
enum Fetch {
    Read,
    TileLoad,
    RemoteLoad,
    /// A `get` into a staging element, then a read of it.
    GetRead,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Protocol {
    Add,
    NotifyLoop,
    Set,
    AddThenSet,
    /// +2 then -1: the cell goes up and down.
    Cancel,
}

/// One item an episode moves.
#[derive(Clone, Copy, Debug)]
struct Item {
    data: Data,
    publish: Publish,
    fetch: Fetch,
    looped: bool,
}

/// A statement of a block's code.
enum Stmt {
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
struct CellUse {
    /// Its value when the kernel's first launch starts.
    start: i64,
    /// What the kernel's episodes add to it per launch (so far).
    net: i64,
    used: bool,
    /// Set without a reset: its value after the kernel is that of the last
    /// set (`last_set` plus 1000 per round).
    closed: bool,
    last_set: i64,
    added: bool,
    notifiers: Vec<usize>,
}

/// One kernel being written.
#[derive(Default)]
struct Kernel {
    rounds: usize,
    bodies: Vec<Vec<Stmt>>,
    cells: BTreeMap<CellKey, CellUse>,
    /// Data elements published (buffer, element, rank).
    data_used: BTreeSet<(Buf, usize, u16)>,
    i32s: BTreeSet<i64>,
    indices: BTreeSet<usize>,
    vectors: BTreeSet<(usize, i64)>,
    /// What this kernel published, for a later kernel to read.
    published: Vec<(Data, Value)>,
    uses_first: bool,
}

struct Gen {
    rng: Rng,
    ranks: u16,
    width: u16,
    windows: Vec<usize>,
    plains: Vec<usize>,
    /// Per cell: `Some(i)`, element `i` of `%sig`; `None`, its own buffer.
    cells: Vec<Option<usize>>,
    sig_len: usize,
    plan: Plan,
    collective: Collective,
    wrapper: bool,
    /// The all_reduce's source; its destination is `%acc`.
    reduce_src: Buf,
    acc_window: bool,
    features: BTreeSet<Feature>,
    next_value: i64,
    names: usize,
    /// Each cell copy's value when the next kernel starts.
    cell_values: BTreeMap<CellKey, i64>,
    helpers: Vec<String>,
    /// `ccl.launch_width` on the kernels, not on their calls.
    width_on_function: bool,
    /// The host launches by `ccl.submit`.
    submit: bool,
    /// The patterns chosen that may race or deadlock whatever the markers.
    hazards: BTreeSet<&'static str>,
    k: Kernel,
}

const CELL_VIEW: &str = "memref<1xi32, strided<[1], offset: ?>, #ccl.window>";

impl Gen {
    fn new(seed: u64) -> Gen {
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

    fn feature(&mut self, feature: Feature) {
        self.features.insert(feature);
    }

    fn has_collective(&self) -> bool {
        !matches!(self.plan, Plan::Once | Plan::TwiceBare)
    }

    fn threads(&self) -> Vec<Thread> {
        (0..self.ranks).flat_map(|rank| (0..self.width).map(move |block| Thread { rank, block })).collect()
    }

    fn thread_index(&self, t: Thread) -> usize {
        (t.rank * self.width + t.block) as usize
    }

    // -- names, constants and types ------------------------------------------

    fn name(&mut self, stem: &str) -> String {
        self.names += 1;
        format!("%{stem}{}", self.names)
    }

    /// A fresh constant for a write: distinct from every other write's.
    fn fresh_value(&mut self) -> i64 {
        self.next_value += 10;
        self.next_value
    }

    fn c(&mut self, v: i64) -> String {
        self.k.i32s.insert(v);
        const_name(v)
    }

    fn ix(&mut self, v: usize) -> String {
        self.k.indices.insert(v);
        format!("%i{v}")
    }

    fn vconst(&mut self, len: usize, v: i64) -> String {
        self.k.vectors.insert((len, v));
        vector_name(len, v)
    }

    fn buf_name(&self, buf: Buf) -> String {
        match buf {
            Buf::Win(i) => format!("%w{i}"),
            Buf::Plain(i) => format!("%p{i}"),
        }
    }

    fn buf_len(&self, buf: Buf) -> usize {
        match buf {
            Buf::Win(i) => self.windows[i],
            Buf::Plain(i) => self.plains[i],
        }
    }

    fn buf_ty(&self, buf: Buf) -> String {
        match buf {
            Buf::Win(i) => format!("memref<{}xi32, #ccl.window>", self.windows[i]),
            Buf::Plain(i) => format!("memref<{}xi32>", self.plains[i]),
        }
    }

    fn cell_name(&self, c: usize) -> String {
        format!("%cell{c}")
    }

    fn cell_ty(&self, c: usize) -> String {
        match self.cells[c] {
            Some(_) => CELL_VIEW.to_string(),
            None => "memref<1xi32, #ccl.window>".to_string(),
        }
    }

    /// A scalar i32 value: `base`, plus 1000 per round in a kernel launched
    /// more than once.
    fn value(&mut self, out: &mut Vec<Stmt>, base: i64) -> String {
        let c = self.c(base);
        if self.k.rounds > 1 {
            let name = self.name("val");
            out.push(Stmt::Op(format!("{name} = arith.addi %rk, {c} : i32")));
            name
        } else {
            c
        }
    }

    /// A `vector<len x i32>` splat of `base` (plus 1000 per round).
    fn vector(&mut self, out: &mut Vec<Stmt>, len: usize, base: i64) -> String {
        let first = self.vconst(len, base);
        if self.k.rounds > 1 {
            let later = self.vconst(len, base + 1000);
            self.k.uses_first = true;
            let name = self.name("vec");
            out.push(Stmt::Op(format!("{name} = arith.select %first, {first}, {later} : vector<{len}xi32>")));
            name
        } else {
            first
        }
    }

    /// The peer operand naming `target` from `t`'s code.
    fn peer(&mut self, t: Thread, target: u16) -> String {
        if target == t.rank && self.rng.chance(60) {
            return "%me".to_string();
        }
        if target == (t.rank + 1) % self.ranks && self.rng.chance(40) {
            return "%next".to_string();
        }
        if target == (t.rank + self.ranks - 1) % self.ranks && self.rng.chance(30) {
            return "%prev".to_string();
        }
        self.c(target as i64)
    }

    /// A condition that holds in `t`'s code (and not in some other block's).
    fn holds(&mut self, t: Thread, out: &mut Vec<Stmt>) -> String {
        let name = self.name("is");
        if self.width > 1 && self.rng.chance(50) {
            let b = self.ix(t.block as usize);
            out.push(Stmt::Op(format!("{name} = arith.cmpi eq, %blk, {b} : index")));
        } else {
            let r = self.c(t.rank as i64);
            out.push(Stmt::Op(format!("{name} = arith.cmpi eq, %me, {r} : i32")));
        }
        name
    }

    /// A view of exactly `d`'s elements: the buffer itself when it has that
    /// length, else a subview; sometimes chosen by `arith.select` against a
    /// decoy of the same type.
    fn view(&mut self, t: Thread, out: &mut Vec<Stmt>, d: Data) -> (String, String) {
        let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
        if d.len == self.buf_len(d.buf) && d.elem == 0 && self.rng.chance(40) {
            return (buf, ty);
        }
        let window = matches!(d.buf, Buf::Win(_));
        let view_ty = if window {
            format!("memref<{}xi32, strided<[1], offset: ?>, #ccl.window>", d.len)
        } else {
            format!("memref<{}xi32, strided<[1], offset: ?>>", d.len)
        };
        let view = self.subview(out, d.buf, d.elem, d.len);
        if window && self.rng.chance(12) {
            // A decoy: another window's view of the same length.
            let candidates: Vec<(usize, usize)> = (0..self.windows.len())
                .flat_map(|w| (0..=self.windows[w].saturating_sub(d.len)).map(move |e| (w, e)))
                .filter(|(w, e)| self.windows[*w] >= d.len && (Buf::Win(*w), *e) != (d.buf, d.elem))
                .collect();
            if !candidates.is_empty() {
                let (w, e) = *self.rng.pick(&candidates);
                let decoy = self.subview(out, Buf::Win(w), e, d.len);
                let cond = self.holds(t, out);
                let name = self.name("pick");
                let (a, b) = if self.rng.chance(50) { (&view, &decoy) } else { (&decoy, &view) };
                let cond = if a == &view {
                    cond
                } else {
                    let not = self.name("not");
                    out.push(Stmt::Op(format!("{not} = arith.xori {cond}, %true : i1")));
                    not
                };
                out.push(Stmt::Op(format!("{name} = arith.select {cond}, {a}, {b} : {view_ty}")));
                self.feature(Feature::SelectOfViews);
                return (name, view_ty);
            }
        }
        (view, view_ty)
    }

    fn subview(&mut self, out: &mut Vec<Stmt>, buf: Buf, elem: usize, len: usize) -> String {
        let name = self.name("v");
        let (b, ty) = (self.buf_name(buf), self.buf_ty(buf));
        let e = self.ix(elem);
        let view_ty = match buf {
            Buf::Win(_) => format!("memref<{len}xi32, strided<[1], offset: ?>, #ccl.window>"),
            Buf::Plain(_) => format!("memref<{len}xi32, strided<[1], offset: ?>>"),
        };
        out.push(Stmt::Op(format!("{name} = memref.subview {b}[{e}] [{len}] [1] : {ty} to {view_ty}")));
        self.feature(Feature::Subview);
        name
    }

    /// An element access `%buf[%i]` or, sometimes, the same element through
    /// a view (`memref.subview`, `memref.cast`, `memref.expand_shape`).
    fn element(&mut self, out: &mut Vec<Stmt>, buf: Buf, elem: usize) -> (String, String) {
        let (b, ty) = (self.buf_name(buf), self.buf_ty(buf));
        let space = if matches!(buf, Buf::Win(_)) { ", #ccl.window" } else { "" };
        match self.rng.below(100) {
            0..=14 => {
                let view = self.subview(out, buf, elem, 1);
                let i0 = self.ix(0);
                let view_ty = format!("memref<1xi32, strided<[1], offset: ?>{space}>");
                (format!("{view}[{i0}]"), view_ty)
            }
            15..=19 => {
                let name = self.name("cast");
                out.push(Stmt::Op(format!("{name} = memref.cast {b} : {ty} to memref<?xi32{space}>")));
                self.feature(Feature::OtherViewOps);
                let e = self.ix(elem);
                (format!("{name}[{e}]"), format!("memref<?xi32{space}>"))
            }
            20..=23 => {
                let len = self.buf_len(buf);
                let name = self.name("exp");
                let to = format!("memref<1x{len}xi32{space}>");
                out.push(Stmt::Op(format!(
                    "{name} = memref.expand_shape {b} [[0, 1]] output_shape [1, {len}] : {ty} into {to}"
                )));
                self.feature(Feature::OtherViewOps);
                let (i0, e) = (self.ix(0), self.ix(elem));
                (format!("{name}[{i0}, {e}]"), to)
            }
            _ => {
                let e = self.ix(elem);
                (format!("{b}[{e}]"), ty)
            }
        }
    }

    /// `len` elements `t` may use for itself (a put's source, a get's
    /// destination, a branch's mark): free elements of a plain buffer on its
    /// rank, else a `memref.alloc`.
    fn staging(&mut self, t: Thread, out: &mut Vec<Stmt>, len: usize) -> (String, String, Option<Data>) {
        if !self.rng.chance(15) {
            for p in 0..self.plains.len() {
                let buf = Buf::Plain(p);
                for e in 0..=self.plains[p].saturating_sub(len) {
                    if self.plains[p] >= len && (e..e + len).all(|x| !self.k.data_used.contains(&(buf, x, t.rank))) {
                        for x in e..e + len {
                            self.k.data_used.insert((buf, x, t.rank));
                        }
                        let d = Data { buf, elem: e, len, rank: t.rank };
                        let (view, ty) = self.view(t, out, d);
                        return (view, ty, Some(d));
                    }
                }
            }
        }
        let name = self.name("a");
        out.push(Stmt::Op(format!("{name} = memref.alloc() : memref<{len}xi32>")));
        self.feature(Feature::Alloc);
        (name, format!("memref<{len}xi32>"), None)
    }

    /// The buffers of a kind.
    fn bufs(&self, window: bool) -> Vec<Buf> {
        if window {
            (0..self.windows.len()).map(Buf::Win).collect()
        } else {
            (0..self.plains.len()).map(Buf::Plain).collect()
        }
    }

    /// `len` contiguous elements of a buffer of the kind asked for, on
    /// `rank`, that no other access of this kernel has taken.
    fn free_data(&mut self, rank: u16, window: bool, len: usize) -> Option<Data> {
        let mut free = Vec::new();
        for buf in self.bufs(window) {
            let n = self.buf_len(buf);
            for e in 0..(n + 1).saturating_sub(len) {
                if (e..e + len).all(|x| !self.k.data_used.contains(&(buf, x, rank))) {
                    free.push(Data { buf, elem: e, len, rank });
                }
            }
        }
        (!free.is_empty()).then(|| *self.rng.pick(&free))
    }

    /// Any `len` contiguous elements of a buffer of the kind asked for (one
    /// when no buffer holds `len`): taken or not.
    fn any_data(&mut self, rank: u16, window: bool, len: usize) -> Data {
        let mut any = Vec::new();
        for buf in self.bufs(window) {
            let n = self.buf_len(buf);
            for e in 0..(n + 1).saturating_sub(len) {
                any.push(Data { buf, elem: e, len, rank });
            }
        }
        if any.is_empty() {
            return self.any_data(rank, window, 1);
        }
        *self.rng.pick(&any)
    }

    // -- signals -------------------------------------------------------------

    /// A cell copy on `rank` for an episode: one this kernel has not used
    /// (and, for a `set`, one that is 0), else (a hazard) any.
    fn pick_cell(&mut self, rank: u16, zero: bool) -> CellKey {
        let fresh: Vec<CellKey> = self.fresh_cells(rank, zero).collect();
        let key = if !fresh.is_empty() && !self.rng.chance(5) {
            *self.rng.pick(&fresh)
        } else {
            self.hazards.insert("a cell shared by two episodes");
            (self.rng.below(self.cells.len()), rank)
        };
        let start = self.cell_values.get(&key).copied().unwrap_or(0);
        let u = self.k.cells.entry(key).or_insert_with(|| CellUse { start, ..CellUse::default() });
        u.used = true;
        key
    }

    /// The value the cell copy holds once the episodes before this one
    /// have run (in a launch).
    fn cell_before(&self, key: CellKey) -> i64 {
        self.k.cells.get(&key).map_or(0, |u| u.start + u.net)
    }

    /// The cell's view in `t`'s code: its name, or sometimes an
    /// `arith.select` of it and another cell of the same type.
    fn cell_view(&mut self, t: Thread, out: &mut Vec<Stmt>, c: usize) -> (String, String) {
        let ty = self.cell_ty(c);
        if self.cells[c] == Some(0) && self.sig_len > 1 && self.rng.chance(25) {
            // The whole signal buffer: a signal op acts on its element 0.
            self.feature(Feature::CellIsElementZero);
            return ("%sig".to_string(), format!("memref<{}xi32, #ccl.window>", self.sig_len));
        }
        let others: Vec<usize> =
            (0..self.cells.len()).filter(|o| *o != c && self.cells[*o].is_some() == self.cells[c].is_some()).collect();
        if !others.is_empty() && self.rng.chance(15) {
            let other = *self.rng.pick(&others);
            let cond = self.holds(t, out);
            let name = self.name("sel");
            let (cell, decoy) = (self.cell_name(c), self.cell_name(other));
            out.push(Stmt::Op(format!("{name} = arith.select {cond}, {cell}, {decoy} : {ty}")));
            self.feature(Feature::SelectOfViews);
            return (name, ty);
        }
        (self.cell_name(c), ty)
    }

    fn notify(&mut self, t: Thread, out: &mut Vec<Stmt>, key: CellKey, set: bool, value: NotifyValue) {
        let (view, ty) = self.cell_view(t, out, key.0);
        let peer = self.peer(t, key.1);
        let (v, sign) = match value {
            NotifyValue::Const(v) => (self.c(v), v.signum()),
            NotifyValue::Ssa(name, sign) => (name, sign),
        };
        let kind = if set { "set" } else { "atomic_add" };
        out.push(Stmt::Op(format!("ccl.notify {kind} {view}, {peer}, {v} : {ty}, i32, i32")));
        let index = self.thread_index(t);
        let u = self.k.cells.entry(key).or_default();
        if !u.notifiers.contains(&index) {
            u.notifiers.push(index);
        }
        let several = u.notifiers.len() > 1;
        let after_add = set && u.added;
        if !set {
            u.added = true;
        }
        if several {
            self.feature(Feature::SeveralNotifiers);
        }
        if after_add {
            self.feature(Feature::SetAfterAdd);
        }
        self.feature(match (set, sign) {
            (true, _) => Feature::NotifySet,
            (false, s) if s < 0 => Feature::NotifyAddNegative,
            _ => Feature::NotifyAddPositive,
        });
    }

    /// `wait cmp` on the cell copy for `expected` (a threshold the kernel's
    /// rounds move, or an SSA value); sometimes a pure wait loop.
    fn wait(&mut self, t: Thread, out: &mut Vec<Stmt>, key: CellKey, eq: bool, expected: Expected) {
        let (view, ty) = self.cell_view(t, out, key.0);
        let value = match expected {
            Expected::Threshold(offset) => {
                let name = self.name("th");
                out.push(Stmt::Threshold { name: name.clone(), cell: key, offset });
                name
            }
            Expected::Ssa(name) => name,
        };
        let cmp = if eq { "eq" } else { "ge" };
        let line = format!("ccl.wait {cmp} {view}, {value} : {ty}, i32");
        self.feature(if eq { Feature::WaitEq } else { Feature::WaitGe });
        if !eq && self.rng.chance(10) {
            let iv = self.name("wl");
            out.push(Stmt::For { iv, trips: 1 + self.rng.below(2), body: vec![Stmt::Op(line)] });
            self.feature(Feature::PureWaitLoop);
            self.feature(Feature::ForLoop);
        } else {
            out.push(Stmt::Op(line));
        }
    }

    // -- publishing and reading ----------------------------------------------

    fn choose_item(&mut self, x: Thread, y: Thread) -> Item {
        let same = x.rank == y.rank;
        // A method whose data has free elements; after a few tries (or, 3%
        // of the time, on purpose) elements another write of the kernel
        // uses: a hazard.
        let collide = self.rng.chance(3);
        let mut chosen = None;
        for attempt in 0..8 {
            let publish = if same {
                match self.rng.below(100) {
                    0..=29 => Publish::TensorWrite,
                    30..=54 => Publish::TileStore,
                    55..=64 => Publish::GetLocal,
                    65..=78 => Publish::Plain,
                    79..=89 => Publish::RemoteStore,
                    _ => Publish::Put,
                }
            } else {
                match self.rng.below(100) {
                    0..=21 => Publish::TensorWrite,
                    22..=37 => Publish::TileStore,
                    38..=45 => Publish::GetLocal,
                    46..=73 => Publish::RemoteStore,
                    _ => Publish::Put,
                }
            };
            let remote = matches!(publish, Publish::RemoteStore | Publish::Put);
            let home = if remote { y.rank } else { x.rank };
            let looped = matches!(publish, Publish::TensorWrite | Publish::RemoteStore) && self.rng.chance(18);
            let len = match publish {
                Publish::Plain => 1,
                Publish::TensorWrite if !looped => 1,
                _ if self.rng.chance(35) => 2,
                _ => 1,
            };
            let window = publish != Publish::Plain;
            let last = attempt == 7 || collide;
            let found = self
                .free_data(home, window, len)
                .or_else(|| (len > 1).then(|| self.free_data(home, window, 1)).flatten());
            let data = match found {
                Some(d) if !collide => d,
                _ if last => {
                    self.hazards.insert("data shared by two writes");
                    self.any_data(home, window, len)
                }
                _ => continue,
            };
            chosen = Some((publish, looped, data));
            break;
        }
        let (publish, looped, data) = chosen.expect("the last attempt always chooses");
        for e in data.elem..data.elem + data.len {
            self.k.data_used.insert((data.buf, e, data.rank));
        }
        if matches!(publish, Publish::RemoteStore | Publish::Put) && data.rank == x.rank {
            self.feature(Feature::PeerIsSelf);
        }
        let home = data.rank;
        let fetch = if home == y.rank {
            match self.rng.below(100) {
                0..=59 => Fetch::Read,
                60..=89 => Fetch::TileLoad,
                _ => Fetch::GetRead,
            }
        } else if self.rng.chance(70) {
            Fetch::RemoteLoad
        } else {
            Fetch::GetRead
        };
        // A loop writes one element per iteration: as many as the data has.
        Item { data, publish, fetch, looped }
    }

    /// `x` publishes `item`; returns what it wrote. `twice`: two writes of
    /// each element in flight together; `read_back`: `x` reads the element
    /// back while its write is in flight.
    fn publish(&mut self, x: Thread, out: &mut Vec<Stmt>, item: &Item, twice: bool, read_back: bool) -> Value {
        let d = item.data;
        match item.publish {
            Publish::TensorWrite | Publish::Plain if item.looped => {
                let base = self.fresh_value();
                self.write_loop(x, out, d, base, false);
                Value { base, step: 1 }
            }
            Publish::RemoteStore if item.looped => {
                let base = self.fresh_value();
                self.write_loop(x, out, d, base, true);
                Value { base, step: 1 }
            }
            Publish::TensorWrite | Publish::Plain => {
                if item.publish == Publish::Plain {
                    self.feature(Feature::PlainWriteReadElsewhere);
                    self.hazards.insert("a plain buffer read by another block");
                }
                let window = matches!(d.buf, Buf::Win(_));
                let first = self.fresh_value();
                if window && !twice && !read_back && self.rng.chance(18) {
                    self.store_by_call(out, d, first);
                    return Value { base: first, step: 0 };
                }
                let base = self.once_or_twice(out, first, twice, |g, out, base| {
                    let v = g.value(out, base);
                    let (at, ty) = g.element(out, d.buf, d.elem);
                    out.push(Stmt::Op(format!("ccl.tensor_write {at}, {v} : {ty}, i32")));
                    g.feature(Feature::TensorWrite);
                    if twice || read_back {
                        g.write_back(x, out, d);
                    }
                });
                if read_back {
                    let (at, ty) = self.element(out, d.buf, d.elem);
                    let r = self.name("back");
                    out.push(Stmt::Op(format!("{r} = ccl.read {at} : {ty} -> i32")));
                    self.feature(Feature::Read);
                    self.feature(Feature::ReadBackInFlight);
                }
                Value { base, step: 0 }
            }
            Publish::TileStore => {
                let first = self.fresh_value();
                let base = self.once_or_twice(out, first, twice, |g, out, base| {
                    let v = g.vector(out, d.len, base);
                    let (buf, ty) = (g.buf_name(d.buf), g.buf_ty(d.buf));
                    let e = g.ix(d.elem);
                    out.push(Stmt::Op(format!("ccl.tile_store {v}, {buf}[{e}] : vector<{}xi32>, {ty}", d.len)));
                    g.feature(Feature::TileStore);
                    if twice || read_back {
                        g.write_back(x, out, d);
                    }
                });
                if read_back {
                    let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
                    let e = self.ix(d.elem);
                    let r = self.name("back");
                    out.push(Stmt::Op(format!("{r} = ccl.tile_load {buf}[{e}] : {ty} -> vector<{}xi32>", d.len)));
                    self.feature(Feature::TileLoad);
                    self.feature(Feature::ReadBackInFlight);
                }
                Value { base, step: 0 }
            }
            Publish::GetLocal => {
                // Stage the value in x's own memory, then get it into the
                // window from x's own rank.
                let base = self.fresh_value();
                let (src, src_ty, _) = self.staging(x, out, d.len);
                self.fill(out, &src, &src_ty, d.len, base);
                let (dst, dst_ty) = self.view(x, out, d);
                let peer = self.peer(x, x.rank);
                out.push(Stmt::Op(format!("ccl.get {dst}, {src}, {peer} : {dst_ty}, {src_ty}, i32")));
                self.feature(Feature::Get);
                self.feature(Feature::PeerIsSelf);
                Value { base, step: 0 }
            }
            Publish::RemoteStore | Publish::Put => {
                let first = self.fresh_value();
                let staged = (item.publish == Publish::Put).then(|| self.staging(x, out, d.len));
                let (dst, dst_ty) = self.view(x, out, d);
                let peer = self.peer(x, d.rank);
                let base = self.once_or_twice(out, first, twice, |g, out, base| match &staged {
                    Some((src, src_ty, _)) => {
                        g.fill(out, src, src_ty, d.len, base);
                        out.push(Stmt::Op(format!("ccl.put {dst}, {src}, {peer} : {dst_ty}, {src_ty}, i32")));
                        g.feature(Feature::Put);
                    }
                    None => {
                        let (v, v_ty) = if d.len == 1 && g.rng.chance(70) {
                            (g.value(out, base), "i32".to_string())
                        } else {
                            (g.vector(out, d.len, base), format!("vector<{}xi32>", d.len))
                        };
                        out.push(Stmt::Op(format!("ccl.remote_store {v}, {dst}, {peer} : {v_ty}, {dst_ty}, i32")));
                        g.feature(Feature::RemoteStore);
                    }
                });
                if read_back {
                    self.read_remote(out, &dst, &dst_ty, &peer, d.len, "back");
                    self.feature(Feature::ReadBackInFlight);
                }
                Value { base, step: 0 }
            }
        }
    }

    /// Writes with `first`, and, when `twice`, again with a fresh value:
    /// two writes of each element in flight together. Returns the value
    /// written last.
    fn once_or_twice(
        &mut self,
        out: &mut Vec<Stmt>,
        first: i64,
        twice: bool,
        mut write: impl FnMut(&mut Self, &mut Vec<Stmt>, i64),
    ) -> i64 {
        write(self, out, first);
        if !twice {
            return first;
        }
        let second = self.fresh_value();
        write(self, out, second);
        self.feature(Feature::TwoWritesInFlight);
        second
    }

    /// One element per iteration of an `scf.for` (as many as `d` has):
    /// `tensor_write`, or `remote_store` into a one-element view.
    fn write_loop(&mut self, x: Thread, out: &mut Vec<Stmt>, d: Data, base: i64, remote: bool) {
        let iv = self.name("k");
        let mut body = Vec::new();
        let first = self.ix(d.elem);
        let at = self.name("at");
        body.push(Stmt::Op(format!("{at} = arith.addi {iv}, {first} : index")));
        let step = self.name("n");
        body.push(Stmt::Op(format!("{step} = arith.index_cast {iv} : index to i32")));
        let b = self.value(&mut body, base);
        let v = self.name("x");
        body.push(Stmt::Op(format!("{v} = arith.addi {b}, {step} : i32")));
        let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
        if remote {
            let view = self.name("v");
            let view_ty = "memref<1xi32, strided<[1], offset: ?>, #ccl.window>";
            body.push(Stmt::Op(format!("{view} = memref.subview {buf}[{at}] [1] [1] : {ty} to {view_ty}")));
            self.feature(Feature::Subview);
            let peer = self.peer(x, d.rank);
            body.push(Stmt::Op(format!("ccl.remote_store {v}, {view}, {peer} : i32, {view_ty}, i32")));
            self.feature(Feature::RemoteStore);
        } else {
            body.push(Stmt::Op(format!("ccl.tensor_write {buf}[{at}], {v} : {ty}, i32")));
            self.feature(Feature::TensorWrite);
        }
        out.push(Stmt::For { iv, trips: d.len, body });
        self.feature(Feature::ForLoop);
    }

    /// A local store through a helper function: a `func.call` inside the
    /// kernel, an opaque publish.
    fn store_by_call(&mut self, out: &mut Vec<Stmt>, d: Data, base: i64) {
        let v = self.value(out, base);
        let helper = format!("@store{}", self.helpers.len());
        let ty = self.buf_ty(d.buf);
        let text = format!(
            "func.func {helper}(%dst: {ty}, %value: i32) {{\n  %at = arith.constant {} : index\n  ccl.tensor_write %dst[%at], %value : {ty}, i32\n  return\n}}\n",
            d.elem
        );
        self.helpers.push(text);
        let buf = self.buf_name(d.buf);
        out.push(Stmt::Op(format!("func.call {helper}({buf}, {v}) : ({ty}, i32) -> ()")));
        self.feature(Feature::CallInKernel);
        self.feature(Feature::TensorWrite);
    }

    /// Starts the write-back of `d`'s dirty lines: `cacheinvalid` of the
    /// buffer or a view of it (or, sometimes, of every line).
    fn write_back(&mut self, x: Thread, out: &mut Vec<Stmt>, d: Data) {
        if self.rng.chance(20) {
            out.push(Stmt::Op("ccl.cacheinvalid".to_string()));
            self.feature(Feature::WholeInvalidate);
            return;
        }
        let (view, ty) = self.view(x, out, d);
        out.push(Stmt::Op(format!("ccl.cacheinvalid {view} : {ty}")));
        self.feature(Feature::RegionInvalidate);
    }

    /// Writes `base` into the `len` elements of `dst` (x's own memory).
    fn fill(&mut self, out: &mut Vec<Stmt>, dst: &str, ty: &str, len: usize, base: i64) {
        let i0 = self.ix(0);
        if len == 1 && self.rng.chance(60) {
            let v = self.value(out, base);
            out.push(Stmt::Op(format!("ccl.tensor_write {dst}[{i0}], {v} : {ty}, i32")));
            self.feature(Feature::TensorWrite);
        } else {
            let v = self.vector(out, len, base);
            out.push(Stmt::Op(format!("ccl.tile_store {v}, {dst}[{i0}] : vector<{len}xi32>, {ty}")));
            self.feature(Feature::TileStore);
        }
    }

    /// `remote_load` of a view: a scalar for one element, else a vector.
    fn read_remote(&mut self, out: &mut Vec<Stmt>, view: &str, ty: &str, peer: &str, len: usize, stem: &str) -> String {
        let r = self.name(stem);
        let result = if len == 1 { "i32".to_string() } else { format!("vector<{len}xi32>") };
        out.push(Stmt::Op(format!("{r} = ccl.remote_load {view}, {peer} : {ty}, i32 -> {result}")));
        self.feature(Feature::RemoteLoad);
        r
    }

    /// `y` reads `item`; returns a scalar it read and the value it should
    /// be (element `j` of the item), when there is one.
    fn fetch(&mut self, y: Thread, out: &mut Vec<Stmt>, item: &Item, value: Value) -> Option<(String, i64)> {
        let d = item.data;
        match item.fetch {
            Fetch::Read => {
                if d.len == 2 && self.rng.chance(40) {
                    let iv = self.name("k");
                    let mut body = Vec::new();
                    let first = self.ix(d.elem);
                    let at = self.name("at");
                    body.push(Stmt::Op(format!("{at} = arith.addi {iv}, {first} : index")));
                    let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
                    let r = self.name("r");
                    body.push(Stmt::Op(format!("{r} = ccl.read {buf}[{at}] : {ty} -> i32")));
                    out.push(Stmt::For { iv, trips: d.len, body });
                    self.feature(Feature::ForLoop);
                    self.feature(Feature::Read);
                    return None;
                }
                let mut first = None;
                for j in 0..d.len {
                    let (at, ty) = self.element(out, d.buf, d.elem + j);
                    let r = self.name("r");
                    out.push(Stmt::Op(format!("{r} = ccl.read {at} : {ty} -> i32")));
                    self.feature(Feature::Read);
                    first.get_or_insert((r, value.base + value.step * j as i64));
                }
                first
            }
            Fetch::TileLoad => {
                let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
                let e = self.ix(d.elem);
                let r = self.name("t");
                out.push(Stmt::Op(format!("{r} = ccl.tile_load {buf}[{e}] : {ty} -> vector<{}xi32>", d.len)));
                self.feature(Feature::TileLoad);
                None
            }
            Fetch::RemoteLoad => {
                let (view, ty) = self.view(y, out, d);
                let peer = self.peer(y, d.rank);
                let r = self.read_remote(out, &view, &ty, &peer, d.len, "r");
                (d.len == 1).then_some((r, value.base))
            }
            Fetch::GetRead => {
                let (dst, dst_ty, _) = self.staging(y, out, d.len);
                let (src, src_ty) = self.view(y, out, d);
                let peer = self.peer(y, d.rank);
                if d.rank == y.rank {
                    self.feature(Feature::PeerIsSelf);
                }
                out.push(Stmt::Op(format!("ccl.get {dst}, {src}, {peer} : {dst_ty}, {src_ty}, i32")));
                self.feature(Feature::Get);
                let i0 = self.ix(0);
                let r = self.name("r");
                out.push(Stmt::Op(format!("{r} = ccl.read {dst}[{i0}] : {dst_ty} -> i32")));
                self.feature(Feature::Read);
                Some((r, value.base))
            }
        }
    }

    /// What `y` does with a scalar it read: nothing, a branch on it, the
    /// rest of its code guarded by it, or an index computed from it.
    fn use_value(&mut self, y: Thread, out: &mut Vec<Stmt>, read: Option<(String, i64)>) {
        let Some((r, expected)) = read else { return };
        let roll = self.rng.below(100);
        if roll >= 30 {
            return;
        }
        let e = self.value(out, expected);
        if roll < 4 {
            // The difference from the expected value as an index: in bounds
            // only when the read was not stale.
            let diff = self.name("d");
            out.push(Stmt::Op(format!("{diff} = arith.subi {r}, {e} : i32")));
            let at = self.name("at");
            out.push(Stmt::Op(format!("{at} = arith.index_cast {diff} : i32 to index")));
            let (dst, dst_ty, _) = self.staging(y, out, 1);
            let v = self.name("x");
            out.push(Stmt::Op(format!("{v} = ccl.read {dst}[{at}] : {dst_ty} -> i32")));
            self.feature(Feature::Read);
            self.feature(Feature::IndexFromMemory);
            return;
        }
        let ok = self.name("ok");
        out.push(Stmt::Op(format!("{ok} = arith.cmpi eq, {r}, {e} : i32")));
        self.feature(Feature::IfOnMemory);
        let (mark, mark_ty, _) = self.staging(y, out, 1);
        let i0 = self.ix(0);
        let mut otherwise = Vec::new();
        let stale = self.fresh_value();
        let v = self.value(&mut otherwise, stale);
        otherwise.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {v} : {mark_ty}, i32")));
        if roll < 18 {
            out.push(Stmt::Guard { cond: ok, otherwise });
        } else {
            let mut then = Vec::new();
            let fresh = self.fresh_value();
            let v = self.value(&mut then, fresh);
            then.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {v} : {mark_ty}, i32")));
            out.push(Stmt::If { cond: ok, then, otherwise });
        }
        self.feature(Feature::TensorWrite);
    }

    /// An ordinary `ccl.read` of a signal cell and a branch on what it
    /// returned.
    fn read_cell(&mut self, y: Thread, out: &mut Vec<Stmt>, key: CellKey, at_least: i64) {
        let i0 = self.ix(0);
        let r = self.name("s");
        match self.cells[key.0] {
            Some(i) if self.rng.chance(50) => {
                let e = self.ix(i);
                out.push(Stmt::Op(format!(
                    "{r} = ccl.read %sig[{e}] : memref<{}xi32, #ccl.window> -> i32",
                    self.sig_len
                )));
            }
            _ => {
                let (cell, ty) = (self.cell_name(key.0), self.cell_ty(key.0));
                out.push(Stmt::Op(format!("{r} = ccl.read {cell}[{i0}] : {ty} -> i32")));
            }
        }
        self.feature(Feature::SignalCellGmRead);
        self.feature(Feature::Read);
        if self.rng.chance(60) {
            let th = self.c(at_least);
            let hi = self.name("hi");
            out.push(Stmt::Op(format!("{hi} = arith.cmpi sge, {r}, {th} : i32")));
            let (mark, mark_ty, _) = self.staging(y, out, 1);
            let (a, b) = (self.fresh_value(), self.fresh_value());
            let mut then = Vec::new();
            let va = self.value(&mut then, a);
            then.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {va} : {mark_ty}, i32")));
            let mut otherwise = Vec::new();
            let vb = self.value(&mut otherwise, b);
            otherwise.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {vb} : {mark_ty}, i32")));
            out.push(Stmt::If { cond: hi, then, otherwise });
            self.feature(Feature::IfOnMemory);
            self.feature(Feature::TensorWrite);
        }
    }

    // -- episodes ------------------------------------------------------------

    fn push(&mut self, t: Thread, stmts: Vec<Stmt>) {
        let i = self.thread_index(t);
        self.k.bodies[i].extend(stmts);
    }

    /// A producer and a consumer: on different ranks when the launch has
    /// one block, else on either; the consumer's rank with a cell this
    /// kernel has not used, when there is one.
    fn pair(&mut self, zero: bool) -> (Thread, Thread) {
        let threads = self.threads();
        let mut pair = None;
        for _ in 0..8 {
            let x = *self.rng.pick(&threads);
            let cross = self.width == 1 || self.rng.chance(60);
            let ys: Vec<Thread> = threads.iter().copied().filter(|y| *y != x && (y.rank != x.rank) == cross).collect();
            let y = *self.rng.pick(&ys);
            pair = Some((x, y));
            if self.fresh_cells(y.rank, zero).next().is_some() {
                break;
            }
        }
        pair.expect("eight tries")
    }

    /// The cell copies on `rank` this kernel has not used (and, for a
    /// `set`, that are 0).
    fn fresh_cells(&self, rank: u16, zero: bool) -> impl Iterator<Item = CellKey> + '_ {
        (0..self.cells.len()).map(move |c| (c, rank)).filter(move |key| {
            let start = self.cell_values.get(key).copied().unwrap_or(0);
            !self.k.cells.get(key).is_some_and(|u| u.used) && (!zero || start == 0)
        })
    }

    fn episode(&mut self) {
        let protocol = match self.rng.below(100) {
            0..=39 => Protocol::Add,
            40..=49 => Protocol::NotifyLoop,
            50..=69 => Protocol::Set,
            70..=86 => Protocol::AddThenSet,
            _ => Protocol::Cancel,
        };
        let set_like = matches!(protocol, Protocol::Set | Protocol::AddThenSet);
        let (x, y) = self.pair(set_like);
        let threads = self.threads();
        let others: Vec<Thread> = threads.iter().copied().filter(|t| *t != x && *t != y).collect();
        let x2 =
            (matches!(protocol, Protocol::Add | Protocol::NotifyLoop) && !others.is_empty() && self.rng.chance(35))
                .then(|| *self.rng.pick(&others));
        let handshake = x2.is_none() && self.rng.chance(18);
        let item = self.choose_item(x, y);
        let item2 = (protocol == Protocol::AddThenSet).then(|| self.choose_item(x, y));
        let item3 = x2.map(|x2| self.choose_item(x2, y));
        let key = self.pick_cell(y.rank, set_like);
        // (The acknowledgement needs a cell of x's rank of its own.)
        let handshake = handshake && self.fresh_cells(x.rank, false).next().is_some();
        let before = self.cell_before(key);
        let twice =
            matches!(item.publish, Publish::TensorWrite | Publish::TileStore | Publish::RemoteStore | Publish::Put)
                && !item.looped
                && self.rng.chance(16);
        let read_back =
            matches!(item.publish, Publish::TensorWrite | Publish::TileStore | Publish::RemoteStore | Publish::Put)
                && !item.looped
                && self.rng.chance(if twice { 60 } else { 8 });

        // The handshake: y reads the data early (the line stays in its
        // cache) and tells x it may write.
        if handshake {
            self.feature(Feature::Handshake);
            let ack = self.pick_cell(x.rank, false);
            let ack_before = self.cell_before(ack);
            let mut ys = Vec::new();
            let early = Value { base: 0, step: 0 };
            self.fetch(y, &mut ys, &item, early);
            self.notify(y, &mut ys, ack, false, NotifyValue::Const(1));
            self.push(y, ys);
            let mut xs = Vec::new();
            let eq = self.rng.chance(30);
            self.wait(x, &mut xs, ack, eq, Expected::Threshold(ack_before + 1));
            let mut net = 1;
            if self.rng.chance(30) {
                self.notify(x, &mut xs, ack, false, NotifyValue::Const(-1));
                net = 0;
            }
            self.push(x, xs);
            self.k.cells.get_mut(&ack).unwrap().net += net;
        }

        // The producer.
        let mut xs = Vec::new();
        let value = self.publish(x, &mut xs, &item, twice, read_back);
        let mut added = 0;
        let mut set_base = None;
        let mut value2 = None;
        match protocol {
            Protocol::Add => {
                let a = if self.rng.chance(20) { 2 } else { 1 };
                self.notify(x, &mut xs, key, false, NotifyValue::Const(a));
                added += a;
            }
            Protocol::NotifyLoop => {
                let trips = 1 + self.rng.below(2);
                let iv = self.name("k");
                let mut body = Vec::new();
                self.notify(x, &mut body, key, false, NotifyValue::Const(1));
                xs.push(Stmt::For { iv, trips, body });
                self.feature(Feature::ForLoop);
                added += trips as i64;
            }
            Protocol::Set => {
                let base = self.fresh_value();
                let v = self.value(&mut xs, base);
                self.notify(x, &mut xs, key, true, NotifyValue::Ssa(v, 1));
                set_base = Some(base);
            }
            Protocol::AddThenSet => {
                self.notify(x, &mut xs, key, false, NotifyValue::Const(1));
                let item2 = item2.as_ref().unwrap();
                value2 = Some(self.publish(x, &mut xs, item2, false, false));
                let base = self.fresh_value();
                let v = self.value(&mut xs, base);
                self.notify(x, &mut xs, key, true, NotifyValue::Ssa(v, 1));
                set_base = Some(base);
            }
            Protocol::Cancel => {
                self.notify(x, &mut xs, key, false, NotifyValue::Const(2));
                self.notify(x, &mut xs, key, false, NotifyValue::Const(-1));
                added += 1;
            }
        }
        self.push(x, xs);
        self.k.published.push((item.data, value));

        // A second producer: of the same cell, or of a cell of its own the
        // consumer waits for right after the first (a run of waits).
        let mut value3 = None;
        let mut second = None;
        if let (Some(x2), Some(item3)) = (x2, item3.as_ref()) {
            let mut ws = Vec::new();
            value3 = Some(self.publish(x2, &mut ws, item3, false, false));
            let a = if self.rng.chance(25) { 2 } else { 1 };
            if self.rng.chance(40) && self.fresh_cells(y.rank, false).next().is_some() {
                let key2 = self.pick_cell(y.rank, false);
                let before2 = self.cell_before(key2);
                self.notify(x2, &mut ws, key2, false, NotifyValue::Const(a));
                second = Some((key2, before2, a));
            } else {
                self.notify(x2, &mut ws, key, false, NotifyValue::Const(a));
                added += a;
            }
            self.push(x2, ws);
            self.k.published.push((item3.data, value3.unwrap()));
        }
        if let Some(v2) = value2 {
            self.k.published.push((item2.unwrap().data, v2));
        }

        // The consumer.
        let mut ys = Vec::new();
        let fast_path = self.rng.chance(4);
        let eq = self.rng.chance(35);
        let mut waits = Vec::new();
        match protocol {
            Protocol::Add | Protocol::NotifyLoop => {
                self.wait(y, &mut waits, key, eq, Expected::Threshold(before + added));
            }
            Protocol::Cancel => {
                // eq 2 can be missed: the -1 may come first.
                let target = if eq && self.rng.chance(30) {
                    self.hazards.insert("a wait eq for a value that may be missed");
                    before + 2
                } else {
                    before + 1
                };
                self.wait(y, &mut waits, key, eq, Expected::Threshold(target));
            }
            Protocol::Set => {
                let v = self.value(&mut waits, set_base.unwrap());
                self.wait(y, &mut waits, key, eq, Expected::Ssa(v));
            }
            Protocol::AddThenSet => {
                self.wait(y, &mut waits, key, false, Expected::Threshold(1));
            }
        }
        if let Some((key2, before2, a)) = second {
            let eq = self.rng.chance(35);
            self.wait(y, &mut waits, key2, eq, Expected::Threshold(before2 + a));
            let mut net = a;
            if self.rng.chance(30) {
                // Its reset, later.
                net = 0;
            }
            self.k.cells.get_mut(&key2).unwrap().net += net;
            second = (net == 0).then_some((key2, before2, a));
        }
        // Both waits of an add then a set in a row, before either read.
        let both_first = protocol == Protocol::AddThenSet && self.rng.chance(30);
        if both_first {
            let v = self.value(&mut waits, set_base.unwrap());
            self.wait(y, &mut waits, key, true, Expected::Ssa(v));
        }
        if fast_path {
            // Skips the wait when an ordinary read of the cell already
            // shows the signal: no happens-before edge then.
            let r = self.name("s");
            let (cell, ty) = (self.cell_name(key.0), self.cell_ty(key.0));
            let i0 = self.ix(0);
            ys.push(Stmt::Op(format!("{r} = ccl.read {cell}[{i0}] : {ty} -> i32")));
            let th = self.c(before + added.max(1));
            let ready = self.name("ready");
            ys.push(Stmt::Op(format!("{ready} = arith.cmpi sge, {r}, {th} : i32")));
            ys.push(Stmt::If { cond: ready, then: Vec::new(), otherwise: waits });
            self.feature(Feature::SignalCellGmRead);
            self.feature(Feature::Read);
            self.feature(Feature::IfOnMemory);
            self.hazards.insert("a wait skipped on an ordinary read of its cell");
        } else {
            ys.extend(waits);
        }
        let read = self.fetch(y, &mut ys, &item, value);
        if let (Some(item3), Some(value3)) = (item3.as_ref(), value3) {
            self.fetch(y, &mut ys, item3, value3);
        }
        if protocol == Protocol::AddThenSet {
            if !both_first {
                let v = self.value(&mut ys, set_base.unwrap());
                self.wait(y, &mut ys, key, true, Expected::Ssa(v));
            }
            self.fetch(y, &mut ys, item2.as_ref().unwrap(), value2.unwrap());
        }
        if let Some((key2, _, a)) = second {
            self.notify(y, &mut ys, key2, false, NotifyValue::Const(-a));
        }
        self.use_value(y, &mut ys, read);

        // Reset the cell for the next launch: a negative add or a set 0.
        let rounds = self.k.rounds;
        let u = self.k.cells.get(&key).cloned().unwrap_or_default();
        if set_like {
            let must = rounds > 1;
            if must || self.rng.chance(30) {
                if self.rng.chance(50) {
                    let zero = self.c(0);
                    self.notify(y, &mut ys, key, true, NotifyValue::Ssa(zero, 0));
                } else {
                    let v = self.value(&mut ys, set_base.unwrap());
                    let neg = self.name("neg");
                    let zero = self.c(0);
                    ys.push(Stmt::Op(format!("{neg} = arith.subi {zero}, {v} : i32")));
                    self.notify(y, &mut ys, key, false, NotifyValue::Ssa(neg, -1));
                }
            } else {
                let u = self.k.cells.get_mut(&key).unwrap();
                u.closed = true;
                u.last_set = set_base.unwrap();
            }
        } else {
            let mut net = added;
            if self.rng.chance(if rounds > 1 { 45 } else { 20 }) {
                // A set 0 only where every add of the episode came before
                // the wait passed (not +2 then -1).
                if u.start + u.net == 0 && protocol != Protocol::Cancel && self.rng.chance(40) {
                    let zero = self.c(0);
                    self.notify(y, &mut ys, key, true, NotifyValue::Ssa(zero, 0));
                } else {
                    self.notify(y, &mut ys, key, false, NotifyValue::Const(-added));
                }
                net = 0;
            }
            self.k.cells.get_mut(&key).unwrap().net += net;
        }
        if self.rng.chance(10) {
            self.read_cell(y, &mut ys, key, before + added.max(1));
        }
        self.push(y, ys);
    }

    // -- the parts around the episodes ---------------------------------------

    /// Every rank's block 0 stages what the all_to_all_v after the launch
    /// sends: one element to the next rank.
    fn stage_all_to_all(&mut self) {
        for rank in 0..self.ranks {
            let t = Thread { rank, block: 0 };
            let mut out = Vec::new();
            let ty = format!("memref<{}xi32, #ccl.window>", self.ranks);
            let one = self.c(1);
            out.push(Stmt::Op(format!("ccl.tensor_write %scnt[%nexti], {one} : {ty}, i32")));
            let base = self.fresh_value();
            let v = self.value(&mut out, base);
            out.push(Stmt::Op(format!("ccl.tensor_write %snd[%nexti], {v} : {ty}, i32")));
            self.feature(Feature::TensorWrite);
            self.push(t, out);
        }
    }

    /// A block reads what the collective before the launch wrote.
    fn read_collective_output(&mut self) {
        let threads = self.threads();
        let t = *self.rng.pick(&threads);
        let mut out = Vec::new();
        match self.collective {
            Collective::Barrier => return,
            Collective::AllReduce => {
                let len = self.buf_len(self.reduce_src);
                let e = self.rng.below(len);
                let e = self.ix(e);
                let ty = self.acc_ty();
                let r = self.name("sum");
                out.push(Stmt::Op(format!("{r} = ccl.read %acc[{e}] : {ty} -> i32")));
            }
            Collective::AllToAllV => {
                let (buf, ty) = if self.rng.chance(60) {
                    ("%rcv", format!("memref<{}xi32, #ccl.window>", self.ranks))
                } else {
                    ("%rcnt", format!("memref<{}xi32>", self.ranks))
                };
                let r = self.name("got");
                out.push(Stmt::Op(format!("{r} = ccl.read {buf}[%previ] : {ty} -> i32")));
            }
        }
        self.feature(Feature::Read);
        self.feature(Feature::ReadsCollectiveOutput);
        let i = self.thread_index(t);
        out.append(&mut self.k.bodies[i]);
        self.k.bodies[i] = out;
    }

    /// A block of a later kernel reads what an earlier one published.
    /// Chooses what a later kernel reads of an earlier one's data (before
    /// its episodes, which then leave those elements alone): the block,
    /// the data and the value the last launch wrote.
    fn plan_reads(&mut self, published: &[(Data, Value)], rounds: usize) -> Vec<(Thread, Data, Value)> {
        let mut reads = Vec::new();
        if published.is_empty() {
            return reads;
        }
        let threads = self.threads();
        for _ in 0..1 + self.rng.below(2) {
            let (d, v) = *self.rng.pick(published);
            let t = *self.rng.pick(&threads);
            if matches!(d.buf, Buf::Plain(_)) && d.rank != t.rank {
                continue;
            }
            for e in d.elem..d.elem + d.len {
                self.k.data_used.insert((d.buf, e, d.rank));
            }
            // What the last round wrote: this kernel runs once.
            reads.push((t, d, Value { base: v.base + 1000 * (rounds as i64 - 1), step: v.step }));
        }
        reads
    }

    /// The reads `plan_reads` chose, at the start of their blocks' code.
    fn read_published(&mut self, reads: Vec<(Thread, Data, Value)>) {
        for (t, d, value) in reads {
            let mut out = Vec::new();
            let fetch = if d.rank != t.rank {
                Fetch::RemoteLoad
            } else if self.rng.chance(70) {
                Fetch::Read
            } else {
                Fetch::TileLoad
            };
            let item = Item { data: d, publish: Publish::TensorWrite, fetch, looped: false };
            if matches!(d.buf, Buf::Plain(_)) {
                self.feature(Feature::PlainWriteReadElsewhere);
                self.hazards.insert("a plain buffer read by a later launch");
            }
            let read = self.fetch(t, &mut out, &item, value);
            self.feature(Feature::ReadsEarlierLaunch);
            self.use_value(t, &mut out, read);
            let i = self.thread_index(t);
            out.append(&mut self.k.bodies[i]);
            self.k.bodies[i] = out;
        }
    }

    /// 1 to 3 markers at random places of random blocks' code.
    fn random_markers(&mut self) {
        self.feature(Feature::MarkersAtRandom);
        for _ in 0..1 + self.rng.below(3) {
            let threads = self.threads();
            let t = *self.rng.pick(&threads);
            let i = self.thread_index(t);
            let at = self.rng.below(self.k.bodies[i].len() + 1);
            let marker = match self.rng.below(3) {
                0 => {
                    self.feature(Feature::Fence);
                    "ccl.fence".to_string()
                }
                1 => {
                    self.feature(Feature::WholeInvalidate);
                    "ccl.cacheinvalid".to_string()
                }
                _ => {
                    self.feature(Feature::RegionInvalidate);
                    let buf = if self.rng.chance(70) {
                        Buf::Win(self.rng.below(self.windows.len()))
                    } else {
                        Buf::Plain(self.rng.below(self.plains.len()))
                    };
                    format!("ccl.cacheinvalid {} : {}", self.buf_name(buf), self.buf_ty(buf))
                }
            };
            self.k.bodies[i].insert(at, Stmt::Op(marker));
        }
    }

    fn acc_ty(&self) -> String {
        let len = self.buf_len(self.reduce_src);
        if self.acc_window {
            format!("memref<{len}xi32, #ccl.window>")
        } else {
            format!("memref<{len}xi32>")
        }
    }

    // -- kernels -------------------------------------------------------------

    /// Writes kernel `name`: `episodes` episodes, launched `rounds` times;
    /// `stages` (it runs before an all_to_all_v), `after` (a collective ran
    /// before a launch of it), `reads` (an earlier kernel's data).
    fn kernel(
        &mut self,
        name: &str,
        rounds: usize,
        stages: bool,
        after: bool,
        reads: Option<(Vec<(Data, Value)>, usize)>,
    ) -> String {
        self.k =
            Kernel { rounds, bodies: (0..self.ranks * self.width).map(|_| Vec::new()).collect(), ..Kernel::default() };
        let threads = self.ranks as usize * self.width as usize;
        // Sized so that the unreduced search stays small: fewer episodes
        // where more blocks interleave or the kernel runs twice, or a
        // second kernel follows.
        let two_kernels = self.plan == Plan::Then;
        let episodes = match (rounds, threads, two_kernels) {
            (1, t, false) if t <= 2 => *self.rng.pick(&[2, 2, 3, 3, 4]),
            (1, t, true) if t <= 2 => *self.rng.pick(&[1, 2, 2, 3]),
            (1, _, false) => *self.rng.pick(&[1, 2, 2, 3]),
            (1, _, true) => *self.rng.pick(&[1, 1, 2]),
            (_, t, _) if t <= 2 => *self.rng.pick(&[1, 2, 2]),
            _ => *self.rng.pick(&[1, 1, 1, 2]),
        };
        let reads = match reads {
            Some((published, rounds)) => self.plan_reads(&published, rounds),
            None => Vec::new(),
        };
        for _ in 0..episodes {
            self.episode();
        }
        if stages && self.collective == Collective::AllToAllV {
            self.stage_all_to_all();
        }
        if after && self.rng.chance(80) {
            self.read_collective_output();
        }
        self.read_published(reads);
        if self.rng.chance(22) {
            self.random_markers();
        }
        self.render_kernel(name)
    }

    fn render_kernel(&mut self, name: &str) -> String {
        // The body first: it names the constants the preamble defines.
        let bodies = std::mem::take(&mut self.k.bodies);
        for body in &bodies {
            self.features_of_code(body);
        }
        let mut body = String::new();
        let conds = self.dispatch(&mut body, &bodies);
        let mut pre = String::new();
        self.c(0);
        self.c(1);
        self.c(self.ranks as i64);
        self.ix(0);
        self.ix(1);
        if self.k.rounds > 1 {
            self.c(1000);
            writeln!(pre, "  %rk = arith.muli %round, %c1000 : i32").unwrap();
        }
        if self.k.uses_first {
            writeln!(pre, "  %first = arith.cmpi eq, %round, %c0 : i32").unwrap();
        }
        let p = self.ranks;
        writeln!(pre, "  %up = arith.addi %me, %c1 : i32\n  %next = arith.remui %up, %c{p} : i32").unwrap();
        self.c(p as i64 - 1);
        writeln!(
            pre,
            "  %down = arith.addi %me, {} : i32\n  %prev = arith.remui %down, %c{p} : i32",
            const_name(p as i64 - 1)
        )
        .unwrap();
        writeln!(
            pre,
            "  %nexti = arith.index_cast %next : i32 to index\n  %previ = arith.index_cast %prev : i32 to index"
        )
        .unwrap();
        for (c, cell) in self.cells.clone().iter().enumerate() {
            if let Some(i) = cell {
                let e = self.ix(*i);
                writeln!(
                    pre,
                    "  %cell{c} = memref.subview %sig[{e}] [1] [1] : memref<{}xi32, #ccl.window> to {CELL_VIEW}",
                    self.sig_len
                )
                .unwrap();
            }
        }
        for (cond, line) in conds {
            writeln!(pre, "  {cond} = {line}").unwrap();
        }
        let mut out = String::new();
        let kind = self.rng.pick(&["incore", "aic", "aiv"]).to_string();
        let width_attr =
            if self.width_on_function { format!(", ccl.launch_width = {} : i64", self.width) } else { String::new() };
        writeln!(
            out,
            "func.func @{name}({}, %round: i32) attributes {{ccl.kind = \"{kind}\"{width_attr}}} {{",
            self.params()
        )
        .unwrap();
        writeln!(out, "  %me = ccl.rank : i32\n  %blk = ccl.block_id : index\n  %true = arith.constant true").unwrap();
        for v in &self.k.i32s {
            writeln!(out, "  {} = arith.constant {v} : i32", const_name(*v)).unwrap();
        }
        for v in &self.k.indices {
            writeln!(out, "  %i{v} = arith.constant {v} : index").unwrap();
        }
        for (len, v) in &self.k.vectors {
            writeln!(out, "  {} = arith.constant dense<{v}> : vector<{len}xi32>", vector_name(*len, *v)).unwrap();
        }
        out.push_str(&pre);
        out.push_str(&body);
        out.push_str("  return\n}\n");
        out
    }
}

impl Gen {
    // -- rendering -----------------------------------------------------------

    /// The dispatch on rank and block id to each block's code; returns the
    /// conditions it uses (name, definition) for the preamble.
    fn dispatch(&mut self, out: &mut String, bodies: &[Vec<Stmt>]) -> Vec<(String, String)> {
        self.feature(Feature::IfOnRankOrBlock);
        let mut conds = Vec::new();
        for r in 0..self.ranks {
            let c = self.c(r as i64);
            conds.push((format!("%at_r{r}"), format!("arith.cmpi eq, %me, {c} : i32")));
        }
        if self.width > 1 {
            for b in 0..self.width {
                let i = self.ix(b as usize);
                conds.push((format!("%at_b{b}"), format!("arith.cmpi eq, %blk, {i} : index")));
            }
        }
        if self.rng.chance(50) {
            // One `scf.if` per block with code, in a row.
            for r in 0..self.ranks {
                for b in 0..self.width {
                    let i = (r * self.width + b) as usize;
                    if bodies[i].is_empty() {
                        continue;
                    }
                    let cond = if self.width > 1 {
                        let name = format!("%at_r{r}b{b}");
                        conds.push((name.clone(), format!("arith.andi %at_r{r}, %at_b{b} : i1")));
                        name
                    } else {
                        format!("%at_r{r}")
                    };
                    writeln!(out, "  scf.if {cond} {{").unwrap();
                    self.render(out, &bodies[i], 2);
                    writeln!(out, "  }}").unwrap();
                }
            }
        } else {
            // Nested: rank 0, else rank 1, else rank 2; block 0, else block 1.
            self.render_ranks(out, bodies, 0, 1);
        }
        conds
    }

    fn render_ranks(&mut self, out: &mut String, bodies: &[Vec<Stmt>], rank: u16, depth: usize) {
        let pad = "  ".repeat(depth);
        if rank + 1 == self.ranks {
            self.render_blocks(out, bodies, rank, depth);
            return;
        }
        writeln!(out, "{pad}scf.if %at_r{rank} {{").unwrap();
        self.render_blocks(out, bodies, rank, depth + 1);
        writeln!(out, "{pad}}} else {{").unwrap();
        self.render_ranks(out, bodies, rank + 1, depth + 1);
        writeln!(out, "{pad}}}").unwrap();
    }

    fn render_blocks(&mut self, out: &mut String, bodies: &[Vec<Stmt>], rank: u16, depth: usize) {
        let base = (rank * self.width) as usize;
        if self.width == 1 {
            self.render(out, &bodies[base], depth);
            return;
        }
        let pad = "  ".repeat(depth);
        writeln!(out, "{pad}scf.if %at_b0 {{").unwrap();
        self.render(out, &bodies[base], depth + 1);
        if !bodies[base + 1].is_empty() {
            writeln!(out, "{pad}}} else {{").unwrap();
            self.render(out, &bodies[base + 1], depth + 1);
        }
        writeln!(out, "{pad}}}").unwrap();
    }

    fn render(&mut self, out: &mut String, stmts: &[Stmt], depth: usize) {
        let pad = "  ".repeat(depth);
        for (i, stmt) in stmts.iter().enumerate() {
            match stmt {
                Stmt::Op(line) => writeln!(out, "{pad}{line}").unwrap(),
                Stmt::If { cond, then, otherwise } => {
                    writeln!(out, "{pad}scf.if {cond} {{").unwrap();
                    self.render(out, then, depth + 1);
                    if !otherwise.is_empty() {
                        writeln!(out, "{pad}}} else {{").unwrap();
                        self.render(out, otherwise, depth + 1);
                    }
                    writeln!(out, "{pad}}}").unwrap();
                }
                Stmt::For { iv, trips, body } => {
                    let (lo, hi, step) = (self.ix(0), self.ix(*trips), self.ix(1));
                    writeln!(out, "{pad}scf.for {iv} = {lo} to {hi} step {step} {{").unwrap();
                    self.render(out, body, depth + 1);
                    writeln!(out, "{pad}}}").unwrap();
                }
                Stmt::Threshold { name, cell, offset } => {
                    // What the kernel's episodes leave in the cell per launch.
                    let per_round = if self.k.rounds > 1 { self.k.cells.get(cell).map_or(0, |u| u.net) } else { 0 };
                    if per_round == 0 {
                        writeln!(out, "{pad}{name} = arith.constant {offset} : i32").unwrap();
                    } else {
                        let (per, off) = (self.c(per_round), self.c(*offset));
                        writeln!(out, "{pad}{name}r = arith.muli %round, {per} : i32").unwrap();
                        writeln!(out, "{pad}{name} = arith.addi {name}r, {off} : i32").unwrap();
                    }
                }
                Stmt::Guard { cond, otherwise } => {
                    writeln!(out, "{pad}scf.if {cond} {{").unwrap();
                    self.render(out, &stmts[i + 1..], depth + 1);
                    if !otherwise.is_empty() {
                        writeln!(out, "{pad}}} else {{").unwrap();
                        self.render(out, otherwise, depth + 1);
                    }
                    writeln!(out, "{pad}}}").unwrap();
                    return;
                }
            }
        }
    }

    /// Features of a block's code as a whole: two waits with only
    /// side-effect-free ops between them.
    fn features_of_code(&mut self, stmts: &[Stmt]) {
        let mut after_wait = false;
        for stmt in stmts {
            match stmt {
                Stmt::Op(line) if line.starts_with("ccl.wait") => {
                    if after_wait {
                        self.feature(Feature::WaitRun);
                    }
                    after_wait = true;
                }
                Stmt::Op(line) if line.contains(" = arith.") || line.contains(" = memref.subview") => {}
                Stmt::Threshold { .. } => {}
                Stmt::Op(_) | Stmt::Guard { .. } => after_wait = false,
                Stmt::If { then, otherwise, .. } => {
                    self.features_of_code(then);
                    self.features_of_code(otherwise);
                    after_wait = false;
                }
                Stmt::For { body, .. } => {
                    self.features_of_code(body);
                    after_wait = false;
                }
            }
        }
    }

    // -- the host ------------------------------------------------------------

    /// The buffers every function takes: name and type.
    fn buffers(&self) -> Vec<(String, String)> {
        let mut list = Vec::new();
        for (i, _) in self.windows.iter().enumerate() {
            list.push((self.buf_name(Buf::Win(i)), self.buf_ty(Buf::Win(i))));
        }
        for (i, _) in self.plains.iter().enumerate() {
            list.push((self.buf_name(Buf::Plain(i)), self.buf_ty(Buf::Plain(i))));
        }
        if self.sig_len > 0 {
            list.push(("%sig".to_string(), format!("memref<{}xi32, #ccl.window>", self.sig_len)));
        }
        for (c, cell) in self.cells.iter().enumerate() {
            if cell.is_none() {
                list.push((self.cell_name(c), self.cell_ty(c)));
            }
        }
        if self.has_collective() && self.collective == Collective::AllReduce {
            list.push(("%acc".to_string(), self.acc_ty()));
        }
        if self.has_collective() && self.collective == Collective::AllToAllV {
            let p = self.ranks;
            for name in ["%snd", "%scnt", "%rcv"] {
                list.push((name.to_string(), format!("memref<{p}xi32, #ccl.window>")));
            }
            list.push(("%rcnt".to_string(), format!("memref<{p}xi32>")));
        }
        list
    }

    fn params(&self) -> String {
        self.buffers().iter().map(|(n, t)| format!("{n}: {t}")).collect::<Vec<_>>().join(", ")
    }

    fn args(&self) -> String {
        self.buffers().iter().map(|(n, _)| n.clone()).collect::<Vec<_>>().join(", ")
    }

    fn types(&self) -> String {
        self.buffers().iter().map(|(_, t)| t.clone()).collect::<Vec<_>>().join(", ")
    }

    fn launch(&mut self, out: &mut String, pad: &str, kernel: &str, round: &str) {
        let (args, types) = (self.args(), self.types());
        if self.submit {
            writeln!(out, "{pad}ccl.submit @{kernel}({args}, {round}) : ({types}, i32) -> ()").unwrap();
            self.feature(Feature::Submit);
        } else {
            let width = if !self.width_on_function && (self.width > 1 || self.rng.chance(30)) {
                format!(" {{ccl.launch_width = {} : i64}}", self.width)
            } else {
                String::new()
            };
            writeln!(out, "{pad}func.call @{kernel}({args}, {round}){width} : ({types}, i32) -> ()").unwrap();
        }
    }

    /// The collective's op (in a function that defines `%nblocks` first
    /// when it needs it).
    fn collective_op(&mut self) -> String {
        let p = self.ranks;
        match self.collective {
            Collective::Barrier => {
                self.feature(Feature::Barrier);
                "ccl.barrier".to_string()
            }
            Collective::AllReduce => {
                self.feature(Feature::AllReduce);
                let kind = self.rng.pick(&["sum", "max", "min"]).to_string();
                let src = self.buf_name(self.reduce_src);
                if matches!(self.reduce_src, Buf::Plain(_)) {
                    // Kernels write it with no marker that writes it back.
                    self.feature(Feature::PlainWriteReadElsewhere);
                    self.hazards.insert("a plain buffer read by a collective");
                }
                format!("ccl.all_reduce {kind} {src}, %acc : {}, {}", self.buf_ty(self.reduce_src), self.acc_ty())
            }
            Collective::AllToAllV => {
                self.feature(Feature::AllToAllV);
                let w = format!("memref<{p}xi32, #ccl.window>");
                format!(
                    "%nblocks = arith.constant {} : i32\n  ccl.all_to_all_v %snd, %scnt, %rcv, %rcnt, blocks %nblocks : {w}, {w}, {w}, memref<{p}xi32>, i32",
                    self.width
                )
            }
        }
    }

    /// The collective at the host (the op, or a call of the wrapper).
    fn collective(&mut self, out: &mut String, pad: &str) {
        if self.wrapper {
            writeln!(out, "{pad}func.call @sync({}) : ({}) -> ()", self.args(), self.types()).unwrap();
        } else {
            let op = self.collective_op().replace("\n  ", &format!("\n{pad}"));
            writeln!(out, "{pad}{op}").unwrap();
        }
    }

    /// After a kernel: the value each cell copy it used holds.
    fn settle_cells(&mut self) {
        let rounds = self.k.rounds as i64;
        for (key, u) in &self.k.cells {
            let value = if u.closed { u.last_set + 1000 * (rounds - 1) } else { u.start + rounds * u.net };
            self.cell_values.insert(*key, value);
        }
    }

    fn program(mut self, seed: u64) -> Litmus {
        if self.ranks == 3 {
            self.feature(Feature::ThreeRanks);
        }
        if self.width > 1 {
            self.feature(Feature::TwoBlocks);
        }
        for cell in &self.cells {
            self.features.insert(if cell.is_some() { Feature::CellSubview } else { Feature::CellBuffer });
        }
        let plan = self.plan;
        let (rounds, stages, after) = match plan {
            Plan::Once => (1, false, false),
            Plan::OnceThenCollective => (1, true, false),
            Plan::TwiceBare => (2, false, false),
            Plan::Twice | Plan::Loop => (2, true, true),
            Plan::Then => (1, true, false),
            Plan::CollectiveFirst => (1, false, true),
        };
        let mut kernels = self.kernel("k0", rounds, stages, after, None);
        self.settle_cells();
        if plan == Plan::Then {
            let published = std::mem::take(&mut self.k.published);
            kernels.push_str(&self.kernel("k1", 1, false, true, Some((published, rounds))));
            self.settle_cells();
        }
        if rounds > 1 {
            self.feature(Feature::TwoLaunches);
        }
        if after || plan == Plan::Then {
            self.feature(Feature::LaunchAfterCollective);
        }

        let mut host = String::new();
        let kind = self.rng.pick(&[
            "ccl.kind = \"orchestration\"",
            "ccl.kind = \"orchestration\"",
            "ccl.kind = \"graph\"",
            "ccl.level = \"host\", ccl.role = \"orchestrator\"",
        ]);
        writeln!(host, "func.func @main({}) attributes {{{kind}}} {{", self.params()).unwrap();
        writeln!(host, "  %r0 = arith.constant 0 : i32\n  %r1 = arith.constant 1 : i32").unwrap();
        match plan {
            Plan::Once => self.launch(&mut host, "  ", "k0", "%r0"),
            Plan::OnceThenCollective => {
                self.launch(&mut host, "  ", "k0", "%r0");
                self.collective(&mut host, "  ");
            }
            Plan::TwiceBare => {
                self.hazards.insert("two launches with no collective between them");
                self.launch(&mut host, "  ", "k0", "%r0");
                self.launch(&mut host, "  ", "k0", "%r1");
            }
            Plan::Twice => {
                self.launch(&mut host, "  ", "k0", "%r0");
                self.collective(&mut host, "  ");
                self.launch(&mut host, "  ", "k0", "%r1");
            }
            Plan::Loop => {
                writeln!(host, "  %lo = arith.constant 0 : index\n  %hi = arith.constant 2 : index\n  %step = arith.constant 1 : index").unwrap();
                writeln!(
                    host,
                    "  scf.for %r = %lo to %hi step %step {{\n    %round = arith.index_cast %r : index to i32"
                )
                .unwrap();
                self.launch(&mut host, "    ", "k0", "%round");
                self.collective(&mut host, "    ");
                writeln!(host, "  }}").unwrap();
                self.feature(Feature::LaunchInHostLoop);
            }
            Plan::Then => {
                self.launch(&mut host, "  ", "k0", "%r0");
                self.collective(&mut host, "  ");
                self.launch(&mut host, "  ", "k1", "%r0");
            }
            Plan::CollectiveFirst => {
                self.collective(&mut host, "  ");
                self.launch(&mut host, "  ", "k0", "%r0");
            }
        }
        writeln!(host, "  return\n}}").unwrap();

        let mut text = String::new();
        writeln!(text, "// ccl-gen --litmus {seed}: run with ccl-sim --ranks {}", self.ranks).unwrap();
        if !self.hazards.is_empty() {
            let hazards: Vec<&str> = self.hazards.iter().copied().collect();
            writeln!(text, "// may race or deadlock whatever the markers: {}", hazards.join("; ")).unwrap();
        }
        for helper in &self.helpers {
            text.push_str(helper);
        }
        text.push_str(&kernels);
        if self.wrapper && self.has_collective() {
            let op = self.collective_op();
            writeln!(
                text,
                "func.func @sync({}) attributes {{ccl.kind = \"orchestration\"}} {{\n  {op}\n  return\n}}",
                self.params()
            )
            .unwrap();
            self.feature(Feature::CollectiveInWrapper);
        }
        text.push_str(&host);
        Litmus { ranks: self.ranks, text, features: self.features }
    }
}

enum NotifyValue {
    Const(i64),
    /// An SSA value and its sign.
    Ssa(String, i64),
}

enum Expected {
    Threshold(i64),
    Ssa(String),
}

fn const_name(v: i64) -> String {
    if v < 0 {
        format!("%cm{}", -v)
    } else {
        format!("%c{v}")
    }
}

fn vector_name(len: usize, v: i64) -> String {
    if v < 0 {
        format!("%v{len}m{}", -v)
    } else {
        format!("%v{len}x{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_is_in_at_least_five_percent_of_seeds_0_to_999() {
        let coverage = coverage(0..1000);
        let below: Vec<&str> = coverage.below(5.0).iter().map(|f| f.name()).collect();
        assert!(below.is_empty(), "features in fewer than 5% of the programs: {below:?}\n{}", coverage.table());
    }

    #[test]
    fn the_same_seed_gives_the_same_program() {
        for seed in [0, 1, 77, 1 << 40, u64::MAX] {
            let (a, b) = (litmus_program(seed), litmus_program(seed));
            assert_eq!((a.ranks, &a.text, &a.features), (b.ranks, &b.text, &b.features), "seed {seed}");
        }
        assert_ne!(litmus_program(5).text, litmus_program(6).text);
    }

    /// The texts of seeds 0..200, hashed (FNV-1a): generation uses integer
    /// arithmetic and ordered maps only, so the digest is the same on every
    /// platform. A deliberate change of the generator changes it: update it
    /// then (the test prints the new one).
    #[test]
    fn the_programs_are_the_same_on_every_platform() {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for seed in 0..200 {
            for byte in litmus_program(seed).text.bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
        assert_eq!(hash, PINNED_DIGEST, "the litmus programs changed: the digest is now {hash:#018x}");
    }

    const PINNED_DIGEST: u64 = 0x49a3_d612_d115_3351;

    #[test]
    fn the_first_line_names_the_rank_count() {
        for seed in 0..200 {
            let litmus = litmus_program(seed);
            let first = litmus.text.lines().next().unwrap();
            assert_eq!(first, format!("// ccl-gen --litmus {seed}: run with ccl-sim --ranks {}", litmus.ranks));
            assert_eq!(litmus.features.contains(&Feature::ThreeRanks), litmus.ranks == 3);
        }
    }

    /// A feature a program claims is in its text, and (for the features an
    /// op or attribute shows) a feature its text shows is claimed.
    #[test]
    fn the_features_claimed_are_the_features_in_the_text() {
        let lines = |text: &str| text.lines().map(|l| l.trim().to_string()).collect::<Vec<_>>();
        for seed in 0..400 {
            let litmus = litmus_program(seed);
            let text = lines(&litmus.text);
            let has = |needle: &str| text.iter().any(|l| l.contains(needle));
            let line_is = |op: &str| text.iter().any(|l| l == op);
            let notify_down = text.iter().any(|l| {
                l.starts_with("ccl.notify atomic_add")
                    && l.split(',').nth(2).is_some_and(|v| v.trim().starts_with("%cm") || v.trim().starts_with("%neg"))
            });
            let select_of_views = text.iter().any(|l| l.contains("= arith.select") && l.contains(": memref<"));
            let signal_on_buffer = text.iter().any(|l| {
                (l.starts_with("ccl.notify") || l.starts_with("ccl.wait"))
                    && l.split_whitespace().nth(2) == Some("%sig,")
            });
            let exact: Vec<(Feature, bool)> = vec![
                (Feature::TileStore, has("ccl.tile_store")),
                (Feature::TensorWrite, has("ccl.tensor_write")),
                (Feature::Get, has("ccl.get ")),
                (Feature::RemoteStore, has("ccl.remote_store")),
                (Feature::Put, has("ccl.put ")),
                (Feature::Read, has("ccl.read ")),
                (Feature::TileLoad, has("ccl.tile_load")),
                (Feature::RemoteLoad, has("ccl.remote_load")),
                (Feature::RegionInvalidate, has("ccl.cacheinvalid %")),
                (Feature::WholeInvalidate, line_is("ccl.cacheinvalid")),
                (Feature::Fence, line_is("ccl.fence")),
                (Feature::NotifySet, has("ccl.notify set")),
                (Feature::NotifyAddNegative, notify_down),
                (Feature::WaitGe, has("ccl.wait ge")),
                (Feature::WaitEq, has("ccl.wait eq")),
                (Feature::SelectOfViews, select_of_views),
                (Feature::OtherViewOps, has("memref.cast") || has("memref.expand_shape")),
                (Feature::CellSubview, has("= memref.subview %sig")),
                (
                    Feature::CellBuffer,
                    has("%cell0: memref<1xi32, #ccl.window>")
                        || has("%cell1: memref<1xi32, #ccl.window>")
                        || has("%cell2: memref<1xi32, #ccl.window>"),
                ),
                (Feature::CellIsElementZero, signal_on_buffer),
                (Feature::Alloc, has("memref.alloc")),
                (Feature::CallInKernel, has("func.call @store")),
                (Feature::TwoBlocks, has("ccl.launch_width = 2")),
                (Feature::Submit, has("ccl.submit")),
                (Feature::Barrier, has("ccl.barrier")),
                (Feature::AllReduce, has("ccl.all_reduce")),
                (Feature::AllToAllV, has("ccl.all_to_all_v")),
                (Feature::CollectiveInWrapper, has("func.func @sync")),
                (Feature::LaunchInHostLoop, has("scf.for %r =")),
            ];
            for (feature, shown) in exact {
                assert_eq!(
                    litmus.features.contains(&feature),
                    shown,
                    "seed {seed}: {} claimed {} but the text shows it {}\n{}",
                    feature.name(),
                    litmus.features.contains(&feature),
                    shown,
                    litmus.text
                );
            }
            // Claimed, so in the text.
            let implied: Vec<(Feature, bool)> = vec![
                (Feature::NotifyAddPositive, has("ccl.notify atomic_add")),
                (Feature::Subview, has("memref.subview")),
                (Feature::ForLoop, has("scf.for %")),
                (Feature::PureWaitLoop, has("scf.for %wl")),
                (
                    Feature::IfOnMemory,
                    has("arith.cmpi sge, %s") || has("arith.cmpi eq, %r") || has("arith.cmpi eq, %t"),
                ),
                (Feature::IndexFromMemory, has("arith.index_cast %d")),
                (Feature::SignalCellGmRead, has("= ccl.read %cell") || has("= ccl.read %sig")),
                (Feature::MarkersAtRandom, has("ccl.fence") || has("ccl.cacheinvalid")),
                (Feature::TwoLaunches, has("%r1) ") || has("%r1)") || has("scf.for %r =")),
            ];
            for (feature, shown) in implied {
                if litmus.features.contains(&feature) {
                    assert!(shown, "seed {seed}: {} claimed but not in the text\n{}", feature.name(), litmus.text);
                }
            }
        }
    }

    #[test]
    fn the_table_has_a_line_per_feature() {
        let coverage = coverage(0..20);
        let table = coverage.table();
        assert_eq!(table.lines().count(), Feature::ALL.len() + 1);
        let names: BTreeSet<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), Feature::ALL.len(), "two features share a name");
        assert_eq!(coverage.programs, 20);
        assert!(coverage.count(Feature::IfOnRankOrBlock) == 20);
    }
}
