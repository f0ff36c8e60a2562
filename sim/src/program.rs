//! The simulator's own form of a ccl program: functions compiled from MLIR
//! into flat code with jumps (structured control flow becomes branches),
//! registers for SSA values, and a site table that maps every memory or
//! signal op back to its source location. Owned data, so the model checker
//! can share it across threads without the MLIR context.

use cclir_support::diagnostics::SourceLoc;

pub use crate::ops::{BinOp, CastOp, Pred, Reduce, Scalar, Wrap};

pub type Reg = u32;
pub type FuncId = u32;
pub type SiteId = u32;
pub type Label = usize;

/// The type of a value as the interpreter needs it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Scalar(Scalar),
    Vector {
        element: Scalar,
        len: usize,
    },
    /// A memref: its element type, static shape and whether it lives in the
    /// window memory space (dynamic sizes are `None`).
    MemRef {
        element: Scalar,
        shape: Vec<Option<i64>>,
    },
    /// Anything else (a function argument the program never uses, say).
    Other(String),
}

/// A compile-time constant or a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Static(i64),
    Reg(Reg),
}

/// How a view op derives its view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// `memref.subview`: offsets, sizes, strides per source dimension; the
    /// dimensions of size 1 that a rank-reducing subview drops.
    Subview { offsets: Vec<Operand>, sizes: Vec<Operand>, strides: Vec<Operand>, dropped: Vec<usize> },
    /// `memref.collapse_shape`: groups of source dimensions.
    Collapse { groups: Vec<Vec<usize>> },
    /// `memref.expand_shape`: for each source dimension, the result sizes.
    Expand { groups: Vec<Vec<i64>> },
    /// `memref.cast`: the same view.
    Same,
}

/// The ops of the `ccl` dialect that touch memory or signals, and the
/// collectives: the steps other blocks can observe.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CclOp {
    TileStore { tile: Reg, dst: Reg, indices: Vec<Reg> },
    TensorWrite { dst: Reg, value: Reg, indices: Vec<Reg> },
    Get { dst: Reg, src: Reg, peer: Reg },
    RemoteStore { tile: Reg, dst: Reg, peer: Reg },
    Put { dst: Reg, src: Reg, peer: Reg },
    RemoteLoad { result: Reg, src: Reg, peer: Reg, ty: Ty },
    TileLoad { result: Reg, src: Reg, indices: Vec<Reg>, len: usize },
    Read { result: Reg, src: Reg, indices: Vec<Reg> },
    Notify { signal: Reg, peer: Reg, value: Reg, add: bool },
    Wait { signal: Reg, expected: Reg, equal: bool },
    Fence,
    CacheInvalid { target: Option<Reg> },
    AllToAllV { send: Reg, send_counts: Reg, recv: Reg, recv_counts: Reg },
    AllReduce { src: Reg, dst: Reg, reduce: Reduce },
    Barrier,
}

impl CclOp {
    /// Collectives run once all ranks' hosts reach them.
    pub fn is_collective(&self) -> bool {
        matches!(self, CclOp::AllToAllV { .. } | CclOp::AllReduce { .. } | CclOp::Barrier)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    Rank,
    BlockId,
    CommSize,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    Const {
        dst: Reg,
        value: crate::value::Val,
    },
    /// Parallel moves `(dst, src)` (block arguments, loop-carried values).
    Move {
        moves: Vec<(Reg, Reg)>,
    },
    Binary {
        dst: Reg,
        op: BinOp,
        lhs: Reg,
        rhs: Reg,
        ty: Scalar,
        wrap: Wrap,
    },
    Cast {
        dst: Reg,
        src: Reg,
        op: CastOp,
        from: Scalar,
        to: Scalar,
    },
    Cmp {
        dst: Reg,
        pred: Pred,
        lhs: Reg,
        rhs: Reg,
        ty: Scalar,
    },
    Select {
        dst: Reg,
        cond: Reg,
        on_true: Reg,
        on_false: Reg,
    },
    Jump {
        target: Label,
    },
    Branch {
        cond: Reg,
        on_true: Label,
        on_false: Label,
    },
    Switch {
        value: Reg,
        cases: Vec<(i64, Label)>,
        default: Label,
    },
    /// A call: in a host thread, a call of an InCore function launches it
    /// (`width` blocks); anywhere else it runs in the calling thread.
    Call {
        site: SiteId,
        callee: FuncId,
        args: Vec<Reg>,
        results: Vec<Reg>,
        width: Option<u64>,
        submit: bool,
    },
    Return {
        values: Vec<Reg>,
    },
    View {
        dst: Reg,
        src: Reg,
        kind: ViewKind,
    },
    Alloc {
        dst: Reg,
        site: SiteId,
        element: Scalar,
        shape: Vec<i64>,
    },
    /// `memref.dealloc`: this rank's copy of the buffer is freed.
    Dealloc {
        src: Reg,
    },
    Query {
        dst: Reg,
        what: Query,
        ty: Scalar,
    },
    CalBlocks {
        site: SiteId,
        dst: Reg,
        p: Reg,
        l: Reg,
        ty: Scalar,
    },
    Ccl {
        site: SiteId,
        op: CclOp,
    },
    /// A loop's step must be positive (`scf.for`, `scf.parallel`,
    /// `scf.forall`): a zero or negative step is undefined in MLIR.
    CheckStep {
        step: Reg,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    InCore,
    Orchestration,
    Other,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    /// The `func.func` op.
    pub site: SiteId,
    pub kind: Kind,
    pub launch_width: Option<u64>,
    pub params: Vec<Reg>,
    pub param_types: Vec<Ty>,
    pub registers: u32,
    pub code: Vec<Instr>,
    /// Per instruction, the op it was compiled from (where its runtime
    /// errors are reported).
    pub sites: Vec<SiteId>,
    /// The loops of the function, as ranges of code, innermost last among
    /// those that nest.
    pub loops: Vec<LoopSpan>,
}

/// The code of one loop op: its header up to its back edge.
#[derive(Clone, Copy, Debug)]
pub struct LoopSpan {
    pub start: u32,
    pub end: u32,
    pub site: SiteId,
}

impl Func {
    /// The innermost loop whose code holds `pc`.
    pub fn loop_at(&self, pc: u32) -> Option<&LoopSpan> {
        self.loops.iter().filter(|l| l.start <= pc && pc < l.end).min_by_key(|l| l.end - l.start)
    }
}

/// Where an op comes from: its name, source position, and the protocol step
/// its location names (the lowering's ops carry one).
#[derive(Clone, Debug)]
pub struct Site {
    pub op: String,
    pub loc: SourceLoc,
    pub step: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Program {
    pub funcs: Vec<Func>,
    pub sites: Vec<Site>,
    pub entry: FuncId,
    /// Block slots per rank (the widest launch).
    pub slots: u64,
    /// Where the widest launch is (`None`: every launch is one block).
    pub widest: Option<SiteId>,
    /// The names of the entry's arguments as the source text spells them
    /// (`rows` for `%rows`), where the text was available.
    pub entry_arg_names: Vec<Option<String>>,
}

impl Program {
    pub fn site(&self, site: SiteId) -> &Site {
        &self.sites[site as usize]
    }
}
