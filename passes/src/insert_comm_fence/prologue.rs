//! Phase B of the insert pass: every InCore function launched, directly or
//! through wrappers, on a path after a publish in an orchestration-like
//! function (the shared scan, `comm_order::scan`) gets the prologue
//! `ccl.cacheinvalid()` + `ccl.fence` at the start of its entry block.
//! Orchestration IR is only read.

use crate::{
    comm_order::{
        call_graph::CallGraph,
        model::{Event, Module, OpKey},
        scan::{scan_module, Launches, ScanStats},
    },
    ir,
};
use cclir_dialect::names::{FunctionKind, Interned};
use melior::ir::OperationRef;

/// What the scan found.
#[derive(Clone, Debug, Default)]
pub struct Marked {
    /// The marked InCore functions (indices into the model), in module order.
    pub marked: Vec<usize>,
    pub scan: ScanStats,
    /// Call-graph components wrapper resolution expanded: each at most once
    /// per run, however many calls reach it.
    pub wrapper_expansions: u64,
}

struct Marker<'m> {
    module: &'m Module,
    graph: &'m CallGraph,
    marked: Vec<bool>,
    expanded: Vec<bool>,
}

impl Launches for Marker<'_> {
    fn launch(&mut self, _caller: usize, _call: &Event, callee: Option<usize>, _publish: OpKey) {
        let Some(callee) = callee else { return };
        match self.module.functions[callee].kind {
            FunctionKind::InCore => self.marked[callee] = true,
            FunctionKind::Orchestration => {
                self.graph.mark_reachable(self.module, callee, &mut self.marked, &mut self.expanded)
            }
            FunctionKind::Other => {}
        }
    }
}

/// The kernels the scan of `module` marks.
pub fn mark(module: &Module) -> Marked {
    let graph = CallGraph::build(module);
    let mut marker =
        Marker { module, graph: &graph, marked: vec![false; module.functions.len()], expanded: Vec::new() };
    let scan = scan_module(module, &mut marker);
    Marked {
        marked: (0..module.functions.len()).filter(|&f| marker.marked[f]).collect(),
        scan,
        wrapper_expansions: marker.expanded.iter().filter(|&&e| e).count() as u64,
    }
}

/// Puts the prologue into each marked kernel whose first two ops are not
/// already the prologue (a declaration gets nothing); returns how many.
/// `functions` are the module's function ops, index for index with its
/// model.
pub fn insert(names: &Interned, functions: &[OperationRef<'_, '_>], marked: &[usize]) -> u64 {
    marked.iter().filter(|&&f| insert_into(names, functions[f])).count() as u64
}

/// Puts the prologue into kernel `func` unless its first two ops are the
/// prologue already or it is a declaration; whether it did.
pub fn insert_into(names: &Interned, func: OperationRef<'_, '_>) -> bool {
    let Some(entry) = ir::entry_block(func) else { return false };
    let mut first = ir::ops(entry);
    let present = first.next().is_some_and(|op| ir::is_whole_cache_invalid(names, op))
        && first.next().is_some_and(|op| ir::is_fence(names, op));
    if !present {
        let location = melior::ir::operation::OperationLike::location(&func);
        ir::insert_at_start(entry, vec![ir::create_cache_invalid(location, None), ir::create_fence(location)]);
    }
    !present
}
