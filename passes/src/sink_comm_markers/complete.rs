//! `placement=minimal` starts from what the program needs, not from the
//! rules (docs/passes/sink-comm-markers.md, "Beyond the rules"): before
//! the walk, the markers the checker's rules beyond the origin's ask of
//! this kernel and the rules' placement lacks (a prologue where a launch
//! may read a stale line, the write-back of a plain-buffer write another
//! block reads); after it, an invalidate before each GM read that may read
//! back a remote write of the block through a stale line, and a fence
//! before each write that may overlap one still in flight. Each goes only where the checker would otherwise
//! reject the kernel, so where the rules were enough nothing is added.

use super::sound::Given;
use crate::comm_order::{buffers::SoundPlacement, model};
use crate::insert_comm_fence::prologue;
use crate::ir;
use crate::verify_comm_order::{
    inflight::{self, Mode},
    kernel::{self, Missing, SinkKind, SourceKind},
};
use cclir_dialect::{
    names::{FunctionKind, Interned, Name},
    ods::{CclOp, OpKind},
};
use melior::ir::{operation::OperationLike, OperationRef, Value};
use rustc_hash::FxHashSet;

/// The prologue and plain-buffer write-backs kernel `func` needs; how many
/// marker ops were added.
pub fn before(func: OperationRef<'_, '_>, names: &Interned, sound: &SoundPlacement) -> u64 {
    let mut added = 0;
    if sound.prologues.contains(&ir::OpKey::of(func)) && prologue::insert_into(names, func) {
        added += 2;
    }
    let published: FxHashSet<ir::OpKey> = sound.published.keys().copied().collect();
    if published.is_empty() {
        return added;
    }
    let (function, ops) = model::lower_alone(func, names, FunctionKind::InCore, &published);
    let report = kernel::check(&function);
    // Per store: whether it needs its fence too (another block of the
    // launch may read it after a notify), or its write-back only (a later
    // launch or a collective reads it after the return).
    let mut needs: Vec<(ir::OpKey, bool)> = Vec::new();
    for v in &report.violations {
        let Some(&concurrent) = sound.published.get(&v.source) else { continue };
        if v.source_kind != SourceKind::Local {
            continue;
        }
        let wanted = match v.sink_kind {
            SinkKind::Return => v.missing == Missing::Invalidate,
            _ => concurrent,
        };
        if wanted {
            match needs.iter_mut().find(|(key, _)| *key == v.source) {
                Some(need) => need.1 |= concurrent,
                None => needs.push((v.source, concurrent)),
            }
        }
    }
    // A later reader (a later launch, a collective after the return) needs
    // the write-back only: the join waits for every write in flight of
    // the launch's blocks (SEMANTICS.md, "Launches"), so it has landed
    // before anything after the launch reads it. Another block of the
    // launch, after a notify, needs the fence too.
    for (store, concurrent) in needs {
        let Some(op) = ops.get(order_of(&function, store)) else { continue };
        let Some(dst) = store_destination(names, op) else { continue };
        let location = op.location();
        let invalidate = ir::insert_after(op, ir::create_cache_invalid(location, Some(dst)));
        added += 1;
        if concurrent {
            ir::insert_after(invalidate, ir::create_fence(location));
            added += 1;
        }
    }
    added
}

/// What the walk's output needs of the rules beyond the origin's in the
/// kernel's writes: an invalidate right before each GM read that may read
/// back a remote write of the block (or what a call wrote) through a line
/// its cache still holds (`inflight::Report::read_backs`: the rules'
/// placement has no marker for it), of what the read reads when that
/// covers every such write, else whole-GM; then a fence right before each
/// op that issues a write that may overlap one still in flight (the rules'
/// placement leaves some: a wait's invalidate has no fence), found after
/// the invalidates (they may start write-backs). How many markers.
pub fn after_walk(func: OperationRef<'_, '_>, names: &Interned, given: Given<'_>) -> u64 {
    let analyse = || {
        let (function, ops) = model::lower_alone(func, names, FunctionKind::InCore, &FxHashSet::default());
        let mut accesses = given.accesses(&ops, names);
        let report = inflight::conflicting(&function, &mut accesses, Mode::Fences);
        (report, ops)
    };
    let (mut report, mut ops) = analyse();
    let mut added = 0;
    if !report.read_backs.is_empty() {
        let mut reads: Vec<u32> = report.read_backs.iter().map(|r| r.read).collect();
        reads.sort_unstable();
        reads.dedup();
        for order in reads {
            let Some(op) = ops.get(order) else { continue };
            let covered = report.read_back_covered.get(&order).copied().unwrap_or(false);
            let target = if covered { ir::read_memref(names, op) } else { None };
            ir::insert_before(op, ir::create_cache_invalid(op.location(), target));
            added += 1;
        }
        (report, ops) = analyse();
    }
    let mut sites: Vec<u32> = report.conflicting_ops.iter().copied().collect();
    sites.sort_unstable();
    for order in sites {
        let Some(op) = ops.get(order) else { continue };
        ir::insert_before(op, ir::create_fence(op.location()));
        added += 1;
    }
    added
}

/// A fence before each `func.return` of kernel `func` that another kernel
/// calls, where a write of the kernel may still be in flight
/// (`inflight::leaves_in_flight`): the callers count on calls of it
/// issuing nothing in flight (`SoundPlacement::quiet_calls`); how many.
pub fn quiet_returns(func: OperationRef<'_, '_>, names: &Interned, given: Given<'_>) -> u64 {
    if !given.quiet_returns {
        return 0;
    }
    let (function, _) = model::lower_alone(func, names, FunctionKind::InCore, &FxHashSet::default());
    if !inflight::leaves_in_flight(&function, &|call, _| !given.quiet(call)) {
        return 0;
    }
    let mut added = 0;
    for block in ir::regions(func).flat_map(ir::blocks) {
        // The last op and the one before it (no link back in the C API).
        let (mut before, mut last) = (None, None);
        for op in ir::ops(block) {
            before = last.replace(op);
        }
        let Some(last) = last.filter(|&op| Name::of(op) == names.func_return) else { continue };
        let fenced = before.is_some_and(|op| ir::is_fence(names, op));
        if !fenced {
            ir::insert_before(last, ir::create_fence(last.location()));
            added += 1;
        }
    }
    added
}

/// The order of the event of `op` in `function`.
fn order_of(function: &model::Function, op: ir::OpKey) -> u32 {
    fn find(region: &model::Region, op: ir::OpKey) -> Option<u32> {
        region.blocks.iter().flat_map(|b| &b.nodes).find_map(|node| match node {
            model::Node::Event(event) => (event.op == op).then_some(event.order),
            node => node.regions().into_iter().find_map(|r| find(r, op)),
        })
    }
    function.body.as_ref().and_then(|body| find(body, op)).unwrap_or(u32::MAX)
}

/// The destination of a store (`tile_store`, `tensor_write`, `get`).
pub(super) fn store_destination<'c, 'a>(names: &Interned, op: OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
    let kind = names.kind(Name::of(op))?;
    match CclOp::view(kind, op)? {
        CclOp::TileStore(store) => Some(store.dst()),
        CclOp::TensorWrite(write) => Some(write.dst()),
        CclOp::Get(get) if names.is(Name::of(op), OpKind::Get) => Some(get.dst()),
        _ => None,
    }
}
