//! The three-state pure-wait-loop classification of Phase A (rule 5) and the
//! "reads memory" test it relies on.
//!
//! Every answer is memoised per op (or per value), so classifying every loop
//! of a function, outermost first, costs time linear in the function's size
//! however deeply the loops nest.

use crate::ir;
use cclir_dialect::{
    names::{has_side_effect_free_name, Interned, Name},
    ods::OpKind,
};
use melior::ir::{operation::OperationLike, BlockRef, OperationRef, RegionRef, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The class of an op, block or region. The order is the join order: a
/// block's class is the maximum of its ops' classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Purity {
    /// No side effect at all.
    Pure,
    /// Only side-effect-free ops and `ccl.wait`s (at least one).
    PureWithWait,
    /// Anything else.
    NotPure,
}

impl Purity {
    pub fn join(self, other: Purity) -> Purity {
        self.max(other)
    }
}

/// What a [`Classifier`] remembers. Kept by the caller across functions
/// so the maps keep their capacity: a fresh set per function was regrown
/// from nothing for every kernel.
#[derive(Default)]
pub struct Memo {
    /// Classes of region-bearing ops (others are classified in O(1)).
    classes: FxHashMap<ir::OpKey, Purity>,
    /// `reads_memory` per value.
    reads: FxHashMap<ir::ValueKey, bool>,
    /// Per region-bearing op: whether a value used inside it reads memory.
    uses_read: FxHashMap<ir::OpKey, bool>,
}

/// Memoised classification of one function's ops.
pub struct Classifier<'n> {
    names: &'n Interned,
    memo: &'n mut Memo,
}

impl<'n> Classifier<'n> {
    /// A classifier for one function; `memo` is emptied first (it is keyed
    /// by addresses, which other IR may reuse).
    pub fn new(names: &'n Interned, memo: &'n mut Memo) -> Self {
        memo.classes.clear();
        memo.reads.clear();
        memo.uses_read.clear();
        Self { names, memo }
    }

    /// The class of `op` (docs/semantics.md, Phase A rule 5).
    pub fn op_class(&mut self, op: OperationRef<'_, '_>) -> Purity {
        let names = self.names;
        let name = Name::of(op);
        // Waits and the five control-flow ops are never side-effect-free, so
        // they are told apart by name first; the side-effect test (which may
        // ask MLIR for the block's terminator) runs only for other ops.
        if names.is(name, OpKind::Wait) {
            return Purity::PureWithWait;
        }
        if !(names.is_loop(name) || name == names.scf_if) {
            return if ir::is_side_effect_free(op) { Purity::Pure } else { Purity::NotPure };
        }
        if let Some(class) = self.memo.classes.get(&ir::OpKey::of(op)) {
            return *class;
        }
        let class = if name == names.scf_if {
            // Operand 0 is the condition. An empty else region is the
            // then-block's class; with an else, the join of both, which
            // reads the same.
            if op.operand(0).map(|c| self.reads_memory(c)).unwrap_or(false) {
                Purity::NotPure
            } else {
                self.regions_class(op)
            }
        } else if name == names.scf_for {
            // lower bound, upper bound, step; then the iter_args inits.
            if self.any_reads(op, 0..op.operand_count().min(3)) {
                Purity::NotPure
            } else {
                self.regions_class(op)
            }
        } else if name == names.scf_parallel || name == names.scf_forall {
            // Segments 0..3 are lower bounds, upper bounds and steps (for
            // scf.forall: the dynamic ones; static ones are attributes).
            let mut bounds = (0..3).filter_map(|segment| ir::operand_segment(op, segment)).flatten();
            if bounds.any(|i| op.operand(i).map(|v| self.reads_memory(v)).unwrap_or(false)) {
                Purity::NotPure
            } else {
                self.regions_class(op)
            }
        } else {
            // scf.while
            let before_reads = ir::regions(op).next().map(|r| self.region_uses_read(r)).unwrap_or(false);
            if before_reads {
                Purity::NotPure
            } else {
                self.regions_class(op)
            }
        };
        self.memo.classes.insert(ir::OpKey::of(op), class);
        class
    }

    fn any_reads(&mut self, op: OperationRef<'_, '_>, range: std::ops::Range<usize>) -> bool {
        range.into_iter().any(|i| op.operand(i).map(|v| self.reads_memory(v)).unwrap_or(false))
    }

    /// The join of all of `op`'s regions (an empty region is Pure).
    fn regions_class(&mut self, op: OperationRef<'_, '_>) -> Purity {
        join_until_not_pure(ir::regions(op), |region| self.region_class(region))
    }

    pub fn region_class(&mut self, region: RegionRef<'_, '_>) -> Purity {
        join_until_not_pure(ir::blocks(region), |block| self.block_class(block))
    }

    /// NotPure if any op is, else PureWithWait if any op is, else Pure.
    pub fn block_class(&mut self, block: BlockRef<'_, '_>) -> Purity {
        join_until_not_pure(ir::ops(block), |op| self.op_class(op))
    }

    /// Whether `value` is computed, through side-effect-free ops only, from
    /// a `ccl.read`. Block arguments do not read memory. Iterative (a long
    /// chain of arith ops cannot exhaust the stack) and memoised (a DAG of
    /// shared operands is walked once).
    pub fn reads_memory(&mut self, value: Value<'_, '_>) -> bool {
        let root = ir::ValueKey::of(value);
        if let Some(known) = self.memo.reads.get(&root) {
            return *known;
        }
        // (value, operands expanded?); most chains are short.
        let mut stack: SmallVec<[(Value<'_, '_>, bool); 32]> = SmallVec::new();
        stack.push((value, false));
        while let Some((current, expanded)) = stack.pop() {
            let key = ir::ValueKey::of(current);
            if self.memo.reads.contains_key(&key) {
                continue;
            }
            let Some(def) = ir::defining_op(current) else {
                self.memo.reads.insert(key, false);
                continue;
            };
            let name = Name::of(def);
            if self.names.is(name, OpKind::Read) {
                self.memo.reads.insert(key, true);
                continue;
            }
            if !has_side_effect_free_name(def) {
                self.memo.reads.insert(key, false);
                continue;
            }
            if expanded {
                let any = def
                    .operands()
                    .any(|operand| self.memo.reads.get(&ir::ValueKey::of(operand)).copied().unwrap_or(false));
                self.memo.reads.insert(key, any);
                continue;
            }
            stack.push((current, true));
            for operand in def.operands() {
                if !self.memo.reads.contains_key(&ir::ValueKey::of(operand)) {
                    stack.push((operand, false));
                }
            }
        }
        self.memo.reads[&root]
    }

    /// Whether `region` "reads memory" (the `before` region of an
    /// `scf.while`): it holds a `ccl.read`, or an op in it (at any depth)
    /// uses a value that reads memory. Memoised per nested region-bearing op,
    /// so nested whiles do not rewalk each other.
    pub fn region_uses_read(&mut self, region: RegionRef<'_, '_>) -> bool {
        let mut found = false;
        for block in ir::blocks(region) {
            for op in ir::ops(block) {
                if self.op_uses_read(op) {
                    found = true;
                }
            }
        }
        found
    }

    fn op_uses_read(&mut self, op: OperationRef<'_, '_>) -> bool {
        if self.names.is(Name::of(op), OpKind::Read) {
            return true;
        }
        if let Some(known) = self.memo.uses_read.get(&ir::OpKey::of(op)) {
            return *known;
        }
        let operands_read = self.any_reads(op, 0..op.operand_count());
        if op.region_count() == 0 {
            return operands_read;
        }
        let mut inner = false;
        for region in ir::regions(op) {
            if self.region_uses_read(region) {
                inner = true;
            }
        }
        let result = operands_read || inner;
        self.memo.uses_read.insert(ir::OpKey::of(op), result);
        result
    }
}

/// The join of the classes of `items`, Pure when there are none; stops at
/// the first NotPure (nothing can lift it).
fn join_until_not_pure<T>(items: impl Iterator<Item = T>, mut class_of: impl FnMut(T) -> Purity) -> Purity {
    let mut class = Purity::Pure;
    for item in items {
        class = class.join(class_of(item));
        if class == Purity::NotPure {
            break;
        }
    }
    class
}
