//! Phase B: post-collective consumers. Scans every orchestration-like
//! function with the flag `seen` ("a publish happened on some path before
//! here"), marks the InCore callees of call-like ops met while `seen` holds
//! (resolving wrappers through the call graph), then gives each marked
//! kernel the prologue `ccl.cacheinvalid()` + `ccl.fence`. Orchestration IR
//! is only read.
//!
//! Cost. The flag only grows along a fold, so a scan entered with
//! `seen = true` keeps it true everywhere below: it marks every call-like op
//! of the region and returns true, and running it twice on one region does
//! nothing new. Such regions are remembered (`saturated`) and skipped the
//! next time. A sequential loop rescans its body only when the body
//! published and `seen` was false on entry, and the rescan runs with
//! `seen = true`, so it triggers no rescan below it. Each region is thus
//! scanned at most once with `seen = false` at entry and at most once with
//! `seen = true`, and each op is visited at most twice: linear in the size
//! of the program, whatever the nesting depth.

use super::call_graph::{CallGraph, WrapperResolver};
use crate::{
    framework::Report,
    ir, names,
    names::{FunctionKind, Interned, Name},
};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike, RegionRef};
use rustc_hash::FxHashSet;

/// What one Phase B run found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The marked InCore functions, by symbol name, in module order.
    pub marked: Vec<String>,
    /// The functions that got a prologue, as indices into the function
    /// list the run was given, in module order.
    pub prologued: Vec<usize>,
    pub prologues_inserted: u64,
    pub loops_rescanned: u64,
    /// How many times the scan visited an op (the cost bound: at most twice
    /// the number of ops in scan targets).
    pub op_visits: u64,
    /// How many call-graph components wrapper resolution expanded: each at
    /// most once per run, however many calls reach it.
    pub wrapper_expansions: u64,
}

struct Scanner<'g, 'c, 'a> {
    names: &'g Interned,
    graph: &'g CallGraph<'c, 'a>,
    resolver: WrapperResolver,
    marked: Vec<bool>,
    /// Regions already scanned with `seen = true` at entry.
    saturated: FxHashSet<usize>,
    loops_rescanned: u64,
    op_visits: u64,
}

impl<'g, 'c, 'a> Scanner<'g, 'c, 'a> {
    fn scan_region(&mut self, region: RegionRef<'_, '_>, seen: bool) -> bool {
        let key = ir::region_key(region);
        if seen && self.saturated.contains(&key) {
            return true;
        }
        // Structured regions have one block: no list is made for them.
        let result = match region.first_block().map(|block| (block, block.next_in_region())) {
            None => seen,
            Some((block, None)) => self.scan_block(block, seen),
            // Unstructured control flow (several blocks, `cf` branches): the
            // block order is not the execution order, so treat the region
            // like a sequential loop body: fold, and rescan once if needed.
            Some(_) => {
                let many: Vec<BlockRef<'_, '_>> = ir::blocks(region).collect();
                let first = many.iter().fold(seen, |s, block| self.scan_block(*block, s));
                if first && !seen {
                    self.loops_rescanned += 1;
                    many.iter().for_each(|block| {
                        self.scan_block(*block, true);
                    });
                    self.saturated.insert(key);
                }
                first
            }
        };
        if seen {
            self.saturated.insert(key);
        }
        result
    }

    /// Folds the block left to right; returns the final `seen`.
    fn scan_block(&mut self, block: BlockRef<'_, '_>, seen: bool) -> bool {
        ir::ops(block).fold(seen, |s, op| self.scan_op(op, s))
    }

    /// Scans `op`'s regions in order, threading `seen` through them.
    fn scan_regions_in_sequence(&mut self, op: OperationRef<'_, '_>, seen: bool) -> bool {
        ir::regions(op).fold(seen, |s, region| self.scan_region(region, s))
    }

    /// A sequential loop: scan the body (all regions in order); if it
    /// published and `seen` was false, scan it once more with `seen = true`.
    fn scan_sequential_loop(&mut self, op: OperationRef<'_, '_>, seen: bool) -> bool {
        let result = self.scan_regions_in_sequence(op, seen);
        if result && !seen {
            self.loops_rescanned += 1;
            self.scan_regions_in_sequence(op, true);
        }
        result
    }

    fn scan_op(&mut self, op: OperationRef<'_, '_>, seen: bool) -> bool {
        self.op_visits += 1;
        let names = self.names;
        let name = Name::of(op);
        if name == names.call || name == names.submit {
            if seen {
                self.mark_callee(op);
            }
            seen || self.is_publish(op, name)
        } else if name == names.all_to_all_v || name == names.all_reduce || name == names.barrier {
            true
        } else if name == names.scf_if || name == names.scf_index_switch {
            // Branches: each with the incoming flag; an empty else region
            // scans to the incoming flag. scf.index_switch is the same shape.
            ir::regions(op).fold(seen, |any, region| self.scan_region(region, seen) || any)
        } else if name == names.scf_execute_region {
            self.scan_regions_in_sequence(op, seen)
        } else if name == names.scf_for || name == names.scf_while {
            // scf.while: the before region then the after region.
            self.scan_sequential_loop(op, seen)
        } else if name == names.scf_parallel || name == names.scf_forall {
            // Iterations are unordered: scan once, never rescan.
            self.scan_regions_in_sequence(op, seen)
        } else if op.region_count() > 0 {
            // Any other op with regions may repeat them (affine.for, ...):
            // treat it as a sequential loop, which can only mark more.
            self.scan_sequential_loop(op, seen)
        } else {
            seen
        }
    }

    /// A publish op in a scan target: any `ccl.submit`, a collective
    /// (handled in `scan_op`), or a `func.call` to a function carrying
    /// `ccl.builtin_template_dir`.
    fn is_publish(&self, op: OperationRef<'_, '_>, name: Name) -> bool {
        if name == self.names.submit {
            return true;
        }
        name == self.names.call
            && ir::callee_symbol(op).and_then(|callee| self.graph.node(callee)).is_some_and(|node| self.graph.is_builtin(node))
    }

    /// An InCore callee is marked; a wrapper marks every InCore function it
    /// reaches; any other callee (or an unresolved one) marks nothing.
    fn mark_callee(&mut self, op: OperationRef<'_, '_>) {
        let Some(node) = ir::callee_symbol(op).and_then(|name| self.graph.node(name)) else {
            return;
        };
        match self.graph.kind(node) {
            FunctionKind::InCore => self.marked[node.index()] = true,
            FunctionKind::Orchestration => self.resolver.mark_reachable(self.graph, node, &mut self.marked),
            FunctionKind::Other => {}
        }
    }
}

/// The module's top-level functions with their kinds, or the located
/// errors of every unknown `ccl.kind`, in module order.
pub fn classify_functions<'c, 'a>(
    module: OperationRef<'c, 'a>,
) -> Result<Vec<(OperationRef<'c, 'a>, FunctionKind)>, Vec<Report<'c>>> {
    let mut functions = Vec::new();
    let mut errors = Vec::new();
    for block in ir::regions(module).flat_map(ir::blocks) {
        for op in ir::ops(block) {
            if ir::op_name(op) != names::FUNC {
                continue;
            }
            match ir::function_kind(op) {
                Ok(kind) => functions.push((op, kind)),
                Err(unknown) => errors.push(Report::error_at(op, unknown.to_string())),
            }
        }
    }
    if errors.is_empty() {
        Ok(functions)
    } else {
        Err(errors)
    }
}

/// Phase B on a module whose kinds are valid: scan, mark, insert prologues.
pub fn run_on_module<'c, 'a>(
    module: OperationRef<'c, 'a>,
    functions: &[(OperationRef<'c, 'a>, FunctionKind)],
) -> Outcome {
    let names = Interned::new(ir::context_of(module));
    let graph = CallGraph::build(functions, &names);
    let resolver = WrapperResolver::new(&graph);
    let mut scanner = Scanner {
        names: &names,
        graph: &graph,
        resolver,
        marked: vec![false; functions.len()],
        saturated: FxHashSet::default(),
        loops_rescanned: 0,
        op_visits: 0,
    };
    for &(func, kind) in functions {
        if kind != FunctionKind::Orchestration {
            continue;
        }
        if let Some(body) = ir::regions(func).next() {
            scanner.scan_region(body, false);
        }
    }
    let mut outcome =
        Outcome {
            loops_rescanned: scanner.loops_rescanned,
            op_visits: scanner.op_visits,
            wrapper_expansions: scanner.resolver.expansions,
            ..Outcome::default()
        };
    for (index, &(func, _)) in functions.iter().enumerate() {
        if !scanner.marked[index] {
            continue;
        }
        outcome.marked.push(ir::symbol_name(func).unwrap_or_default().to_string());
        if insert_prologue(&names, func) {
            outcome.prologues_inserted += 1;
            outcome.prologued.push(index);
        }
    }
    outcome
}

/// Puts `ccl.cacheinvalid()` + `ccl.fence` at the start of `func`'s entry
/// block unless its first two ops already are these. A declaration has no
/// body and gets nothing. Returns whether it inserted.
pub fn insert_prologue(names: &Interned, func: OperationRef<'_, '_>) -> bool {
    let Some(entry) = ir::entry_block(func) else {
        return false;
    };
    let mut first = ir::ops(entry);
    let present = first.next().is_some_and(|op| ir::is_whole_cache_invalid(names, op))
        && first.next().is_some_and(|op| ir::is_fence(names, op));
    if present {
        return false;
    }
    let location = func.location();
    ir::insert_at_start(entry, vec![ir::create_cache_invalid(location, None), ir::create_fence(location)]);
    true
}

