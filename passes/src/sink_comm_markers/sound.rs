//! What the walk must know beyond one op to keep every move sound
//! (docs/passes/sink-comm-markers.md, "Sound by construction"): which
//! writes may overlap an earlier write of the block (a fence is never
//! carried past one, nor out of a loop such a pair spans), what an
//! invalidate may write back and drop (it is never carried past a write
//! that may overlap its write-back, nor past a read of a line it drops),
//! and what the program says of the kernel's buffers (which arguments may
//! be one buffer; what earlier launches may have left dirty).

use crate::comm_order::{
    memory::{may_overlap, Access, Aliases, Base, Reader},
    model::{self, OpKey},
};
use crate::verify_comm_order::inflight::{self, IrAccesses, Mode};
use cclir_dialect::names::{FunctionKind, Interned, Name};
use cclir_dialect::ods::OpKind;
use melior::ir::{operation::OperationLike, OperationRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;

/// The most events of a kernel whose writes' pairs are read one by one.
pub const PRECISE_EVENTS: usize = 2000;

/// What the program says of one kernel, found by `placement=minimal`'s
/// scan (a kernel alone knows nothing of it: [`Given::nothing`]).
#[derive(Clone, Copy)]
pub struct Given<'s> {
    /// Which of its arguments may be one buffer, which may hold lines
    /// earlier launches left.
    pub aliases: &'s Aliases,
    /// Its calls that return with nothing in flight.
    pub quiet_calls: Option<&'s FxHashSet<OpKey>>,
    /// Whether the kernel must return with nothing in flight (another
    /// kernel calls it, counting on that).
    pub quiet_returns: bool,
}

impl Given<'static> {
    /// Nothing known: any two arguments may be one buffer, any call may
    /// leave writes in flight.
    pub fn nothing() -> Self {
        static UNKNOWN: std::sync::LazyLock<Aliases> = std::sync::LazyLock::new(Aliases::unknown);
        Given { aliases: &UNKNOWN, quiet_calls: None, quiet_returns: false }
    }
}

impl<'s> Given<'s> {
    /// Whether call op `call` returns with nothing in flight.
    pub fn quiet(&self, call: OpKey) -> bool {
        self.quiet_calls.is_some_and(|quiet| quiet.contains(&call))
    }

    /// The accesses of `ops`' events, read with what is given.
    pub fn accesses<'o, 'n, 'c, 'a>(
        &self,
        ops: &'o model::EventOps<'c, 'a>,
        names: &'n Interned,
    ) -> IrAccesses<'o, 'n, 'c, 'a>
    where
        's: 'o,
    {
        let accesses = IrAccesses::new(ops, names, self.aliases.clone(), &[]);
        match self.quiet_calls {
            Some(quiet) => accesses.with_quiet_calls(quiet),
            None => accesses,
        }
    }
}

/// What the walk of one kernel knows of its memory.
pub struct Knowledge<'n> {
    names: &'n Interned,
    reader: Reader<'n>,
    aliases: Aliases,
    /// Ops issuing a write that may overlap a write issued before it on
    /// some path, fences ignored: a fence is never carried past one.
    pub conflicting: FxHashSet<OpKey>,
    /// The loops (and other repeated ops) such a pair spans the back edge
    /// of, when the kernel is read coarsely: a fence does not leave one.
    pub carried: FxHashSet<OpKey>,
    /// Pairs of such writes that meet around the back edge of a loop
    /// (`inflight::Report::wrapped`): (the loop, the earlier write's op
    /// or `None` for any, the later's). A fence leaves that loop only if
    /// one placed in its body is between them.
    pub wrapped: Vec<(OpKey, Option<OpKey>, OpKey)>,
    /// The buffers the kernel stores into (what a whole-GM invalidate may
    /// write back, with the lines earlier launches left).
    stored: Vec<Base>,
    cache: RefCell<FxHashMap<OpKey, Option<Access>>>,
}

impl<'n> Knowledge<'n> {
    /// Reads InCore function `func` as it is now. A kernel with more than
    /// [`PRECISE_EVENTS`] events is read coarsely (its pairs of writes cost
    /// the square): every op that issues a write in flight may overlap an
    /// earlier one, around every loop.
    pub fn of(func: OperationRef<'_, '_>, names: &'n Interned, given: Given<'_>) -> Self {
        let aliases = given.aliases.clone();
        let (function, ops) = model::lower_alone(func, names, FunctionKind::InCore, &FxHashSet::default());
        let mut wrapped = Vec::new();
        let (conflicting, carried) = if ops.len() > PRECISE_EVENTS {
            let mut conflicting = FxHashSet::default();
            let mut carried = FxHashSet::default();
            crate::ir::walk_nested(func, |op| {
                let name = Name::of(op);
                if names.is(name, OpKind::RemoteStore)
                    || names.is(name, OpKind::Put)
                    || names.is(name, OpKind::CacheInvalid)
                    || names.is(name, OpKind::Submit)
                    || name == names.call
                {
                    conflicting.insert(OpKey::of(op));
                }
                if op.region_count() > 0 {
                    carried.insert(OpKey::of(op));
                }
                crate::ir::Walk::Advance
            });
            (conflicting, carried)
        } else {
            let mut accesses = given.accesses(&ops, names);
            let report = inflight::conflicting(&function, &mut accesses, Mode::IgnoringFences);
            let conflicting =
                report.conflicting_ops.iter().filter_map(|order| ops.get(*order)).map(OpKey::of).collect();
            for &(construct, first, second) in &report.wrapped {
                let Some(later) = ops.get(second) else { continue };
                wrapped.push((construct, first.and_then(|first| ops.get(first)).map(OpKey::of), OpKey::of(later)));
            }
            (conflicting, FxHashSet::default())
        };
        let reader = Reader::new(names);
        let mut stored = Vec::new();
        crate::ir::walk_nested(func, |op| {
            let name = Name::of(op);
            if names.is(name, OpKind::TileStore) || names.is(name, OpKind::TensorWrite) || names.is(name, OpKind::Get) {
                let base = reader.access(op).map_or(Base::Opaque, |access| access.base);
                if !stored.contains(&base) {
                    stored.push(base);
                }
            }
            crate::ir::Walk::Advance
        });
        Knowledge {
            names,
            reader,
            aliases,
            conflicting,
            carried,
            wrapped,
            stored,
            cache: RefCell::new(FxHashMap::default()),
        }
    }

    fn access(&self, op: OperationRef<'_, '_>) -> Option<Access> {
        self.cache.borrow_mut().entry(OpKey::of(op)).or_insert_with(|| self.reader.access(op)).clone()
    }

    /// What `op` (an op that issues writes in flight: a remote write, an
    /// invalidate, a call) may write: `None` for anything.
    fn writes(&self, op: OperationRef<'_, '_>) -> Option<Vec<Access>> {
        let name = Name::of(op);
        if self.names.is(name, OpKind::CacheInvalid) {
            return Some(match op.operand_count() {
                0 => self.whole_write_back(),
                _ => vec![self.access(op)?],
            });
        }
        if self.names.is(name, OpKind::RemoteStore) || self.names.is(name, OpKind::Put) {
            return Some(vec![self.access(op)?]);
        }
        None
    }

    /// What a whole-GM invalidate may write back: any line of a buffer the
    /// kernel stores into, and the lines earlier launches left.
    fn whole_write_back(&self) -> Vec<Access> {
        let me = crate::comm_order::memory::Affine::sym(crate::comm_order::memory::Sym::Rank);
        let mut out: Vec<Access> = self
            .stored
            .iter()
            .map(|base| Access { rank: me.clone(), base: *base, lo: None, span: None, origins: Default::default() })
            .collect();
        if self.aliases.any_leftovers() {
            out.push(Access::leftover());
        }
        out
    }

    /// Whether the write-back `invalidate` (carried, not yet placed)
    /// starts may overlap what `write` (an op it would be carried past,
    /// with no fence between) writes.
    pub fn write_back_meets(&self, invalidate: OperationRef<'_, '_>, write: OperationRef<'_, '_>) -> bool {
        let (Some(ours), Some(theirs)) = (self.writes(invalidate), self.writes(write)) else { return true };
        ours.iter().any(|a| theirs.iter().any(|b| may_overlap(a, &[], b, &self.aliases)))
    }

    /// Whether `invalidate` (carried) drops a line GM read `read` may read
    /// (on any rank: an invalidate drops its target's lines of every
    /// rank's copy): carried past it, the read may hit a stale line the
    /// rules' placement had dropped.
    pub fn drops_line_of(&self, invalidate: OperationRef<'_, '_>, read: OperationRef<'_, '_>) -> bool {
        if invalidate.operand_count() == 0 {
            return true;
        }
        let Some(target) = self.access(invalidate) else { return true };
        let read_access = match self.reader.access(read) {
            Some(access)
                if !self.names.is(Name::of(read), OpKind::Put) && !self.names.is(Name::of(read), OpKind::Get) =>
            {
                Some(access)
            }
            _ => self.reader.source_access(read),
        };
        let Some(mut read_access) = read_access else { return true };
        read_access.rank = target.rank.clone();
        may_overlap(&target, &[], &read_access, &self.aliases)
    }
}
