//! The program's buffers, for the rules that look beyond one kernel
//! (docs/passes/verify-comm-order.md, "Beyond the rules"):
//!
//! - which buffer each memref argument of each function may be: every
//!   argument of a function nothing in the module calls is a buffer of its
//!   own (the execution model allocates each argument of the entry), every
//!   `memref.alloc` is one, and a called function's argument may be any
//!   buffer its callers pass (through views: `memref.subview` and the
//!   like, and either operand of an `arith.select`), to a fixpoint over
//!   the call sites; anything else (a block argument of a loop, a call's
//!   result) may be any buffer;
//! - each kernel's launch width (the largest of its calls': the call's
//!   `ccl.launch_width`, else the callee's, else 1; unknown through
//!   `ccl.submit`), which tells whether two accesses may be made from two
//!   block slots;
//! - every GM access of the kernels and every collective's operands, with
//!   the buffers they may touch: which plain-buffer writes another block
//!   may read (they must be written back and fenced before the kernel
//!   exposes them, as a window's), which lines a kernel reads first may
//!   have been made stale by another block's write (it needs the prologue
//!   when launched after another launch), and which buffers lines may be
//!   left dirty at a kernel's return (written back by a later launch's
//!   invalidate: plain-buffer writes).
//!
//! Another block: another rank's (a remote access, a collective), or this
//! rank's from another block slot. Two kernels each launched one block
//! wide run on slot 0, one cache; accesses whose offset in one buffer is
//! `c · block_id + k` in both, with spans below `|c|`, touch one element
//! from one slot only.

use super::memory::{Access, Aliases, Base, Reader, Sym};
use super::model::OpKey;
use crate::ir;
use cclir_dialect::{
    names::{FunctionKind, Interned, Name},
    ods::CclOp,
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, Value, ValueLike};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// The buffers a memref value may be (sorted root ids), or `None`: any.
pub type Roots = Option<SmallVec<[u32; 2]>>;

/// What a GM access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// A store of this block (`tile_store`, `tensor_write`, `get`'s
    /// destination); `plain` when the buffer is not window-bound.
    LocalWrite { plain: bool },
    /// A `remote_store` or `put`: the peer's memory.
    RemoteWrite,
    /// `read`, `tile_load`, `put`'s source: this rank's memory, through
    /// this block's cache.
    LocalRead,
    /// `remote_load`, `get`'s source: the peer's memory.
    RemoteRead,
    /// An operand of a collective: read and written in memory directly.
    Collective,
    /// A memref operand of a call inside a kernel: anything.
    Call,
}

/// One GM access of the program.
#[derive(Clone, Copy, Debug)]
struct Use<'c, 'a> {
    function: usize,
    op: OperationRef<'c, 'a>,
    touch: Touch,
    /// Which memref of the op (for `Reader`): its main access, or the
    /// source of a `put` / `get`.
    source: bool,
    memref: Value<'c, 'a>,
}

/// The program's buffers (see the module's documentation).
pub struct Buffers<'c, 'a> {
    /// The module's top-level functions, as the model numbers them.
    pub functions: Vec<OperationRef<'c, 'a>>,
    kinds: Vec<FunctionKind>,
    /// Per function, per argument: the buffers it may be.
    pub arg_roots: Vec<Vec<Roots>>,
    /// Per function, per argument: every call passes a buffer itself, not
    /// a view of one (so offsets in it are offsets in the buffer).
    arg_direct: Vec<Vec<bool>>,
    /// Per function: the widest launch of it (`None`: unknown).
    pub widths: Vec<Option<i128>>,
    /// The buffers whose lines may be left dirty at a kernel's return.
    pub leftovers: Roots,
    /// Whether each rank launches at most one kernel, once (then no
    /// launch finds lines an earlier one left: no leftovers).
    single_launch: bool,
    uses: Vec<Use<'c, 'a>>,
    allocations: FxHashMap<OpKey, u32>,
    /// (caller, callee) of every call-like op naming a function.
    calls: Vec<(usize, usize)>,
    markers: Markers,
}

impl<'c, 'a> Buffers<'c, 'a> {
    /// Analyses `module` (a program: its top-level functions), whose
    /// functions are `functions` with `kinds`, index for index with its
    /// model.
    pub fn of(
        names: &Interned,
        functions: Vec<OperationRef<'c, 'a>>,
        kinds: Vec<FunctionKind>,
        markers: Markers,
    ) -> Self {
        let by_name: FxHashMap<&str, usize> =
            functions.iter().enumerate().rev().filter_map(|(i, f)| ir::symbol_name(*f).map(|name| (name, i))).collect();
        let n = functions.len();
        let mut calls: Vec<(usize, OperationRef<'c, 'a>, usize)> = Vec::new();
        let mut uses = Vec::new();
        for (f, func) in functions.iter().enumerate() {
            ir::walk_nested(*func, |op| {
                collect(names, f, kinds[f], op, &by_name, &mut calls, &mut uses);
                ir::Walk::Advance
            });
        }
        let mut called = vec![false; n];
        for &(_, _, callee) in &calls {
            called[callee] = true;
        }
        let mut buffers = Buffers {
            arg_roots: functions.iter().map(|f| vec![Some(SmallVec::new()); argument_count(*f)]).collect(),
            arg_direct: functions.iter().map(|f| vec![true; argument_count(*f)]).collect(),
            widths: vec![Some(0); n],
            leftovers: Some(SmallVec::new()),
            single_launch: false,
            functions,
            kinds,
            uses,
            allocations: FxHashMap::default(),
            calls: calls.iter().map(|&(caller, _, callee)| (caller, callee)).collect(),
            markers,
        };
        let mut next_root = 0u32;
        // A function nothing calls is an entry: each argument its own
        // buffer.
        for (f, &is_called) in called.iter().enumerate() {
            if !is_called {
                for roots in buffers.arg_roots[f].iter_mut() {
                    *roots = Some(std::iter::once(next_root).collect());
                    next_root += 1;
                }
            }
        }
        // Allocations: a buffer each.
        for f in 0..n {
            ir::walk_nested(buffers.functions[f], |op| {
                let name = Name::of(op);
                if name == names.memref_alloc || name == names.memref_alloca {
                    buffers.allocations.insert(OpKey::of(op), next_root);
                    next_root += 1;
                }
                ir::Walk::Advance
            });
        }
        buffers.propagate(names, &calls);
        buffers.launch_widths(names, &calls, &called);
        buffers.single_launch = buffers.at_most_one_launch(names, &calls, &called);
        buffers.leftovers = buffers.plain_write_roots(names, markers, &FxHashSet::default());
        buffers
    }

    /// Whether each rank launches at most one kernel, once: one launch
    /// site (a call of a kernel, or a submit, outside kernels), directly in
    /// the single block of an entry function nothing calls, and no
    /// indirect call outside kernels. Then no launch runs after another on
    /// a rank, and no block slot's cache holds lines an earlier launch left.
    fn at_most_one_launch(
        &self,
        names: &Interned,
        calls: &[(usize, OperationRef<'c, 'a>, usize)],
        called: &[bool],
    ) -> bool {
        let mut indirect = false;
        for (f, func) in self.functions.iter().enumerate() {
            if self.is_kernel(f) {
                continue;
            }
            ir::walk_nested(*func, |op| {
                if ir::op_name(op) == "func.call_indirect" {
                    indirect = true;
                }
                ir::Walk::Advance
            });
        }
        let _ = names;
        let mut launches =
            calls.iter().filter(|&&(caller, _, callee)| !self.is_kernel(caller) && self.is_kernel(callee));
        let Some(&(caller, op, _)) = launches.next() else { return !indirect };
        if indirect || launches.next().is_some() || called[caller] {
            return false;
        }
        let func = self.functions[caller];
        let blocks: Vec<_> = ir::regions(func).flat_map(ir::blocks).collect();
        let parent = melior::ir::operation::OperationLike::block(&op).and_then(|b| b.parent_operation());
        blocks.len() == 1 && parent == Some(func)
    }

    /// The arguments' buffers, to the fixpoint over the call sites.
    fn propagate(&mut self, names: &Interned, calls: &[(usize, OperationRef<'c, 'a>, usize)]) {
        loop {
            let mut changed = false;
            for &(caller, call, callee) in calls {
                let first = if Name::of(call) == names.call { 0 } else { submit_first_argument(call) };
                let count = ir::operand_count(call).saturating_sub(first);
                for i in 0..count.min(self.arg_roots[callee].len()) {
                    let operand = ir::operand(call, first + i);
                    if !is_memref(operand) {
                        continue;
                    }
                    let (roots, direct) = self.resolve(names, caller, operand);
                    changed |= join_roots(&mut self.arg_roots[callee][i], &roots);
                    if !direct && self.arg_direct[callee][i] {
                        self.arg_direct[callee][i] = false;
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// The buffers `value` (in function `f`) may be, and whether it is one
    /// itself (not a view of one). An `arith.select` of views may be
    /// either operand's buffers.
    pub fn resolve(&self, names: &Interned, f: usize, value: Value<'c, 'a>) -> (Roots, bool) {
        let mut budget = 64;
        self.resolve_within(names, f, value, &mut budget)
    }

    /// [`Self::resolve`], following at most `budget` defining ops in all
    /// (a chain of selects branches).
    fn resolve_within(&self, names: &Interned, f: usize, value: Value<'c, 'a>, budget: &mut usize) -> (Roots, bool) {
        let mut value = value;
        let mut direct = true;
        while *budget > 0 {
            *budget -= 1;
            match ir::defining_op(value) {
                None => {
                    return match super::memory::function_argument(value) {
                        Some(index) if self.owns(f, value) => {
                            let roots = self.arg_roots[f].get(index as usize).cloned().unwrap_or(None);
                            let passed = self.arg_direct[f].get(index as usize).copied().unwrap_or(false);
                            (roots, direct && passed)
                        }
                        _ => (None, false),
                    };
                }
                Some(op) => {
                    let name = Name::of(op);
                    if name == names.memref_alloc || name == names.memref_alloca {
                        return (self.allocations.get(&OpKey::of(op)).map(|r| std::iter::once(*r).collect()), direct);
                    }
                    if ir::op_name(op) == "arith.select" && op.operand_count() == 3 {
                        let (a, _) = self.resolve_within(names, f, ir::operand(op, 1), budget);
                        let (b, _) = self.resolve_within(names, f, ir::operand(op, 2), budget);
                        let roots = a.zip(b).map(|(mut a, b)| {
                            for root in b {
                                if !a.contains(&root) {
                                    a.push(root);
                                }
                            }
                            a
                        });
                        return (roots, false);
                    }
                    if !names.is_view(name) || op.operand_count() == 0 {
                        return (None, false);
                    }
                    direct = false;
                    value = ir::operand(op, 0);
                }
            }
        }
        (None, false)
    }

    /// Whether `value`, an argument of some function's entry block, is an
    /// argument of function `f`.
    fn owns(&self, f: usize, value: Value<'c, 'a>) -> bool {
        let block = ir::owner_block(value);
        block.and_then(|b| b.parent_operation()).map(OpKey::of) == Some(OpKey::of(self.functions[f]))
    }

    fn launch_widths(&mut self, names: &Interned, calls: &[(usize, OperationRef<'c, 'a>, usize)], called: &[bool]) {
        let own = |f: OperationRef<'_, '_>| {
            ir::attribute_by_name(f, cclir_dialect::names::ATTR_LAUNCH_WIDTH).and_then(ir::int_attribute_value)
        };
        for (f, func) in self.functions.iter().enumerate() {
            if !called[f] {
                self.widths[f] = Some(own(*func).unwrap_or(1));
            }
        }
        for &(_, call, callee) in calls {
            let width = if Name::of(call) == names.call {
                let attr = ir::attribute_by_name(call, cclir_dialect::names::ATTR_LAUNCH_WIDTH)
                    .and_then(ir::int_attribute_value);
                Some(attr.or_else(|| own(self.functions[callee])).unwrap_or(1))
            } else {
                None
            };
            self.widths[callee] = match (self.widths[callee], width) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
    }

    /// The buffers written by plain-buffer stores of kernels whose lines
    /// may be left dirty at a return (the rules write them back only in
    /// whole-GM invalidates): a store followed, in its block or a block
    /// around it, by an invalidate that covers it (whole-GM, or of a
    /// memref it is a view of) is written back on every path to a return.
    /// `markers`: where the markers are yet to come, after a wait, call or
    /// submit (or a loop holding a wait) the rules put a whole-GM one.
    fn plain_write_roots(&self, names: &Interned, markers: Markers, written_back: &FxHashSet<OpKey>) -> Roots {
        let mut out: SmallVec<[u32; 2]> = SmallVec::new();
        if self.single_launch {
            return Some(out);
        }
        for u in &self.uses {
            if u.touch == (Touch::LocalWrite { plain: true })
                && !written_back.contains(&OpKey::of(u.op))
                && !written_back_later(names, u.op, u.memref, markers)
            {
                let (roots, _) = self.resolve(names, u.function, u.memref);
                let mut some = Some(out);
                join_roots(&mut some, &roots);
                match some {
                    Some(joined) => out = joined,
                    None => return None,
                }
            }
        }
        Some(out)
    }

    /// Reads the leftovers again, with `stores` written back on every path
    /// to a return (the minimal placement writes back each plain-buffer
    /// store another block reads: it must know the program as its output
    /// will be, so that a second run finds what the first did).
    pub fn assume_written_back(&mut self, names: &Interned, stores: &FxHashSet<OpKey>) {
        self.leftovers = self.plain_write_roots(names, self.markers, stores);
    }

    /// What one kernel's checks need to know of the others: which of its
    /// arguments may be one buffer, and which may hold leftover lines.
    pub fn aliases(&self, f: usize) -> Aliases {
        Aliases { roots: self.arg_roots[f].clone(), leftovers: self.leftovers.clone().map(|r| r.to_vec()), known: true }
    }

    /// The plain-buffer stores another block may read, each with one such
    /// read (or collective, or call; the one that needs most): they publish
    /// as a window's.
    pub fn published_plain_stores(&self, names: &Interned) -> FxHashMap<OpKey, PlainReader> {
        let reader = Reader::new(names);
        let mut out = FxHashMap::default();
        let mut access_cache: FxHashMap<(OpKey, bool), Option<Access>> = FxHashMap::default();
        let stores: Vec<&Use<'c, 'a>> =
            self.uses.iter().filter(|u| u.touch == (Touch::LocalWrite { plain: true })).collect();
        if stores.is_empty() {
            return out;
        }
        let readers: Vec<&Use<'c, 'a>> = self
            .uses
            .iter()
            .filter(|u| matches!(u.touch, Touch::LocalRead | Touch::RemoteRead | Touch::Collective | Touch::Call))
            .collect();
        let resolved: Vec<Roots> = readers.iter().map(|u| self.resolve(names, u.function, u.memref).0).collect();
        for store in stores {
            let (roots, _) = self.resolve(names, store.function, store.memref);
            for (read, read_roots) in readers.iter().zip(&resolved) {
                if !roots_meet(&roots, read_roots) {
                    continue;
                }
                let foreign = match read.touch {
                    Touch::LocalRead => {
                        !(self.one_slot(store.function, read.function)
                            || self.block_private(&reader, &mut access_cache, store, read))
                    }
                    _ => true,
                };
                if !foreign {
                    continue;
                }
                // Launches of one rank run one after another: another
                // kernel's read, and a collective's, come after the join.
                let concurrent = match read.touch {
                    Touch::LocalRead => read.function == store.function,
                    Touch::Collective => false,
                    _ => true,
                };
                let entry =
                    out.entry(OpKey::of(store.op)).or_insert(PlainReader { read: OpKey::of(read.op), concurrent });
                if concurrent && !entry.concurrent {
                    *entry = PlainReader { read: OpKey::of(read.op), concurrent };
                }
                if concurrent {
                    break;
                }
            }
        }
        out
    }

    /// A write by another block that may have made a line of `memref`
    /// (read in kernel `f` by `read`) stale: a store of another slot, a
    /// remote write, a call's operand. Collectives are left to the launch
    /// scan (a kernel launched after one needs the prologue anyway).
    ///
    /// Only when some launch may leave a line of that memory in its block
    /// slot's cache: a read of it (any kernel's, this one's included) that
    /// no invalidate covering it follows before the kernel returns.
    ///
    /// Returned with the kernels (by module index) that may leave a line of
    /// that memory: a launch of one must come before.
    pub fn stale_writer(&self, names: &Interned, f: usize, read: OperationRef<'c, 'a>) -> Option<(OpKey, Vec<bool>)> {
        let reader = Reader::new(names);
        let memref = ir::read_memref(names, read)?;
        let (roots, _) = self.resolve(names, f, memref);
        let mut leavers = vec![false; self.functions.len()];
        for u in &self.uses {
            if matches!(u.touch, Touch::LocalRead | Touch::RemoteRead | Touch::Call)
                && roots_meet(&roots, &self.resolve(names, u.function, u.memref).0)
                && (u.touch == Touch::Call || !written_back_later(names, u.op, u.memref, self.markers))
            {
                leavers[u.function] = true;
            }
        }
        if !leavers.iter().any(|&l| l) {
            return None;
        }
        let read_use = Use { function: f, op: read, touch: Touch::LocalRead, source: is_put(names, read), memref };
        let mut access_cache = FxHashMap::default();
        for write in &self.uses {
            if !matches!(write.touch, Touch::LocalWrite { .. } | Touch::RemoteWrite | Touch::Call) {
                continue;
            }
            let (write_roots, _) = self.resolve(names, write.function, write.memref);
            if !roots_meet(&roots, &write_roots) {
                continue;
            }
            let foreign = match write.touch {
                Touch::LocalWrite { .. } => {
                    !(self.one_slot(f, write.function)
                        || self.block_private(&reader, &mut access_cache, write, &read_use))
                }
                _ => true,
            };
            if foreign {
                return Some((OpKey::of(write.op), leavers));
            }
        }
        None
    }

    /// Whether every launch of kernels `a` and `b` is one block wide: they
    /// share block slot 0, one cache.
    fn one_slot(&self, a: usize, b: usize) -> bool {
        self.widths[a] == Some(1) && self.widths[b] == Some(1)
    }

    /// Whether two accesses of one buffer are each at `c · block_id + k`
    /// with the same `c` and `k` and spans below `|c|` (in arguments every
    /// call passes that one buffer for, itself: offsets in them are
    /// offsets in it): a block touches the element another block's access
    /// touches never.
    fn block_private(
        &self,
        reader: &Reader<'_>,
        cache: &mut FxHashMap<(OpKey, bool), Option<Access>>,
        a: &Use<'c, 'a>,
        b: &Use<'c, 'a>,
    ) -> bool {
        let mut get = |u: &Use<'c, 'a>| {
            cache
                .entry((OpKey::of(u.op), u.source))
                .or_insert_with(|| if u.source { reader.source_access(u.op) } else { reader.access(u.op) })
                .clone()
        };
        let (Some(x), Some(y)) = (get(a), get(b)) else { return false };
        let buffer = |f: usize, base: Base| match base {
            Base::Arg(i) if self.arg_direct[f].get(i as usize) == Some(&true) => {
                single_root(self.arg_roots[f].get(i as usize)?)
            }
            _ => None,
        };
        let (Some(bx), Some(by)) = (buffer(a.function, x.base), buffer(b.function, y.base)) else { return false };
        if bx != by {
            return false;
        }
        let per_block = |access: &Access| -> Option<(i128, i128, i128)> {
            let lo = access.lo.as_ref()?;
            match lo.terms.as_slice() {
                [(Sym::Block, c)] if *c != 0 => Some((*c, lo.constant, access.span?)),
                _ => None,
            }
        };
        match (per_block(&x), per_block(&y)) {
            (Some((c1, k1, s1)), Some((c2, k2, s2))) => c1 == c2 && k1 == k2 && s1.max(s2) < c1.abs(),
            _ => false,
        }
    }

    /// The InCore functions an InCore function calls (a call inside a
    /// kernel runs the callee in the caller's block), sorted.
    pub fn kernel_callees(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .calls
            .iter()
            .filter(|&&(caller, callee)| self.is_kernel(caller) && self.is_kernel(callee))
            .map(|&(_, callee)| callee)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The InCore functions that call an InCore function, sorted.
    pub fn kernel_callers(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .calls
            .iter()
            .filter(|&&(caller, callee)| self.is_kernel(caller) && self.is_kernel(callee))
            .map(|&(caller, _)| caller)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the markers are in.
    pub fn markers(&self) -> Markers {
        self.markers
    }

    /// Whether function `f` is InCore.
    pub fn is_kernel(&self, f: usize) -> bool {
        self.kinds[f] == FunctionKind::InCore
    }
}

fn is_put(names: &Interned, op: OperationRef<'_, '_>) -> bool {
    names.is(Name::of(op), cclir_dialect::ods::OpKind::Put) || names.is(Name::of(op), cclir_dialect::ods::OpKind::Get)
}

/// Whether the program's markers are in (the checker reads it) or yet to
/// come (the scan before the insertion reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Markers {
    Placed,
    ByTheRules,
}

/// Whether store `store` (into `memref`) is written back before its
/// kernel returns, on every path: an invalidate covering it comes later in
/// its block or in a block around it (see [`Buffers::plain_write_roots`]);
/// for a read, whether the line it leaves in the cache is dropped so.
fn written_back_later(names: &Interned, store: OperationRef<'_, '_>, memref: Value<'_, '_>, markers: Markers) -> bool {
    use cclir_dialect::ods::OpKind;
    let covers = |op: OperationRef<'_, '_>| {
        let name = Name::of(op);
        if names.is(name, OpKind::CacheInvalid) {
            return op.operand_count() == 0 || ir::contains_view(names, ir::operand(op, 0), memref);
        }
        markers == Markers::ByTheRules
            && (names.is(name, OpKind::Wait)
                || names.is(name, OpKind::Submit)
                || name == names.call
                || (names.is_loop(name) && {
                    let mut waits = false;
                    ir::walk_nested(op, |inner| {
                        waits |= names.is(Name::of(inner), OpKind::Wait);
                        ir::Walk::Advance
                    });
                    waits
                }))
    };
    let mut current = store;
    loop {
        let mut next = current.next_in_block();
        while let Some(op) = next {
            if covers(op) {
                return true;
            }
            next = op.next_in_block();
        }
        match current.parent_operation() {
            Some(parent) if Name::of(parent) != names.func => current = parent,
            _ => return false,
        }
    }
}

/// The call sites and GM accesses of one op of function `f`.
fn collect<'c, 'a>(
    names: &Interned,
    f: usize,
    kind: FunctionKind,
    op: OperationRef<'c, 'a>,
    by_name: &FxHashMap<&str, usize>,
    calls: &mut Vec<(usize, OperationRef<'c, 'a>, usize)>,
    uses: &mut Vec<Use<'c, 'a>>,
) {
    let name = Name::of(op);
    let kernel = kind == FunctionKind::InCore;
    let mut add = |touch, memref: Value<'c, 'a>, source| uses.push(Use { function: f, op, touch, source, memref });
    if name == names.call || names.is(name, cclir_dialect::ods::OpKind::Submit) {
        if let Some(&callee) = ir::callee_symbol(op).and_then(|s| by_name.get(s)) {
            calls.push((f, op, callee));
        }
        if kernel {
            for i in 0..ir::operand_count(op) {
                let operand = ir::operand(op, i);
                if is_memref(operand) {
                    add(Touch::Call, operand, false);
                }
            }
        }
        return;
    }
    let Some(op_kind) = names.kind(name) else { return };
    let Some(view) = CclOp::view(op_kind, op) else { return };
    use CclOp as C;
    match view {
        C::AllToAllV(_) | C::AllReduce(_) => {
            for i in 0..ir::operand_count(op) {
                let operand = ir::operand(op, i);
                if is_memref(operand) {
                    add(Touch::Collective, operand, false);
                }
            }
        }
        _ if !kernel => {}
        C::TileStore(store) => {
            add(Touch::LocalWrite { plain: !ir::is_window_bound(names, store.dst()) }, store.dst(), false)
        }
        C::TensorWrite(write) => {
            add(Touch::LocalWrite { plain: !ir::is_window_bound(names, write.dst()) }, write.dst(), false)
        }
        C::Get(get) => {
            add(Touch::LocalWrite { plain: !ir::is_window_bound(names, get.dst()) }, get.dst(), false);
            add(Touch::RemoteRead, get.src(), true);
        }
        C::RemoteStore(store) => add(Touch::RemoteWrite, store.dst(), false),
        C::Put(put) => {
            add(Touch::RemoteWrite, put.dst(), false);
            add(Touch::LocalRead, put.src(), true);
        }
        C::Read(read) => add(Touch::LocalRead, read.src(), false),
        C::TileLoad(load) => add(Touch::LocalRead, load.src(), false),
        C::RemoteLoad(load) => add(Touch::RemoteRead, load.src(), false),
        _ => {}
    }
}

/// The operand index of a `ccl.submit`'s first argument (its callee is an
/// attribute: every operand is an argument).
fn submit_first_argument(_submit: OperationRef<'_, '_>) -> usize {
    0
}

fn is_memref(value: Value<'_, '_>) -> bool {
    melior::ir::TypeLike::is_mem_ref(&value.r#type())
}

fn argument_count(func: OperationRef<'_, '_>) -> usize {
    ir::entry_block(func).map(|block| melior::ir::block::BlockLike::argument_count(&block)).unwrap_or(0)
}

/// Adds `more` to `into`; whether `into` grew.
fn join_roots(into: &mut Roots, more: &Roots) -> bool {
    match (into.as_mut(), more) {
        (None, _) => false,
        (Some(_), None) => {
            *into = None;
            true
        }
        (Some(set), Some(more)) => {
            let mut grew = false;
            for r in more {
                if let Err(at) = set.binary_search(r) {
                    set.insert(at, *r);
                    grew = true;
                }
            }
            grew
        }
    }
}

fn roots_meet(a: &Roots, b: &Roots) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x.iter().any(|r| y.binary_search(r).is_ok()),
        _ => true,
    }
}

fn single_root(roots: &Roots) -> Option<u32> {
    match roots {
        Some(set) if set.len() == 1 => Some(set[0]),
        _ => None,
    }
}

/// A read by another block of what a plain-buffer store wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainReader {
    pub read: OpKey,
    /// Whether it may run while the store's launch does (another block of
    /// that launch, another rank): then the write must be written back and
    /// fenced before a notify exposes it; else (a later launch, a
    /// collective) written back before the kernel returns, and the join
    /// lands it.
    pub concurrent: bool,
}

/// The set of kernels (by op) and stores of a program that the minimal
/// placement must add markers for, beyond the rules (`ccl-sink-comm-markers`
/// reads it from the analysis cache).
#[derive(Clone, Debug, Default)]
pub struct SoundPlacement {
    /// Per kernel (by op): which of its arguments may be one buffer, and
    /// which may hold leftover lines.
    pub aliases: FxHashMap<OpKey, Aliases>,
    /// Plain-buffer stores another block may read, and whether it may
    /// read while the store's launch runs (see [`PlainReader`]).
    pub published: FxHashMap<OpKey, bool>,
    /// Kernels that need the prologue beyond the rules' Phase B.
    pub prologues: FxHashSet<OpKey>,
    /// Kernels (with a body) another kernel calls: the minimal placement
    /// makes each return with nothing in flight (a fence before a return
    /// that needs one), so that
    pub called: FxHashSet<OpKey>,
    /// the calls of them (`func.call` ops in kernels) issue nothing in
    /// flight: a kernel alone cannot read its callees (MLIR changes them
    /// on other threads), but may count on this.
    pub quiet_calls: FxHashSet<OpKey>,
}
