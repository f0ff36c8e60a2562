//! The module's call graph (petgraph), built once per run, and the memoised
//! resolution of a wrapper (an orchestration-like callee) to the InCore
//! functions it reaches.
//!
//! Nodes are the module's top-level `func.func`s, in module order. An edge
//! `f -> g` is a call-like op (`func.call`, `ccl.submit`) in `f` naming `g`.
//! Calls inside InCore functions are opaque publishes whose callee is not
//! analysed (DIALECT.md), so InCore functions have no outgoing edges: they
//! are the leaves resolution looks for. Calls to undefined symbols or to
//! symbols that are not functions add no edge.
//!
//! Resolution works on the strongly connected components (Tarjan, once per
//! graph): every function of a component reaches the same set, so the
//! answer is memoised per component, computed callees-first by an explicit
//! post-order walk of the component DAG. A recursive call graph is just a
//! component with more than one member (or a self-loop); nothing loops.
//! Phase B does not need the sets, only the marks: `mark_reachable` expands
//! each component once per run and never again, so marking through every
//! wrapper of the module costs O(V + E) however the wrappers share callees.

use crate::{
    ir, names,
    names::{FunctionKind, Interned, Name},
};
use melior::ir::{operation::OperationLike, OperationRef};
use petgraph::{
    algo::tarjan_scc,
    graph::{DiGraph, NodeIndex},
    Direction,
};
use rustc_hash::FxHashMap;
use std::rc::Rc;

pub struct CallGraph<'c, 'a> {
    graph: DiGraph<OperationRef<'c, 'a>, ()>,
    kinds: Vec<FunctionKind>,
    /// Whether each function carries `ccl.builtin_template_dir`, read once.
    builtin: Vec<bool>,
    by_name: FxHashMap<&'c str, NodeIndex>,
}

impl<'c, 'a> CallGraph<'c, 'a> {
    /// `functions` are the module's `func.func`s with their kinds, in module
    /// order. A callee resolves to a node when the module defines a function
    /// of that name (the verifier rejects a symbol defined twice).
    pub fn build(functions: &[(OperationRef<'c, 'a>, FunctionKind)], names: &Interned) -> Self {
        let mut graph = DiGraph::with_capacity(functions.len(), functions.len());
        let mut kinds = Vec::with_capacity(functions.len());
        let mut builtin = Vec::with_capacity(functions.len());
        let mut by_name = FxHashMap::with_capacity_and_hasher(functions.len(), Default::default());
        for &(func, kind) in functions {
            let node = graph.add_node(func);
            kinds.push(kind);
            builtin.push(func.has_attribute(names::ATTR_BUILTIN_TEMPLATE_DIR));
            if let Some(name) = ir::symbol_name(func) {
                by_name.entry(name).or_insert(node);
            }
        }
        let mut edges = Vec::new();
        for (index, &(func, kind)) in functions.iter().enumerate() {
            if kind == FunctionKind::InCore {
                continue;
            }
            ir::walk_nested(func, |op| {
                let name = Name::of(op);
                if name == names.call || name == names.submit {
                    if let Some(&target) = ir::callee_symbol(op).and_then(|callee| by_name.get(callee)) {
                        edges.push((NodeIndex::new(index), target));
                    }
                }
                ir::Walk::Advance
            });
        }
        edges.sort_unstable();
        edges.dedup();
        for (from, to) in edges {
            graph.add_edge(from, to, ());
        }
        Self { graph, kinds, builtin, by_name }
    }

    /// The node of the function called `name`.
    pub fn node(&self, name: &str) -> Option<NodeIndex> {
        self.by_name.get(name).copied()
    }

    pub fn kind(&self, node: NodeIndex) -> FunctionKind {
        self.kinds[node.index()]
    }

    /// A synthesized collective kernel (`ccl.builtin_template_dir`): calling
    /// it publishes.
    pub fn is_builtin(&self, node: NodeIndex) -> bool {
        self.builtin[node.index()]
    }

    pub fn function(&self, node: NodeIndex) -> OperationRef<'c, 'a> {
        self.graph[node]
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn callees(&self, node: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph.neighbors_directed(node, Direction::Outgoing)
    }
}

/// Memoised wrapper resolution over one call graph.
///
/// Two ways to ask: [`resolve`](Self::resolve) returns the set of kernels a
/// wrapper reaches (memoised per component; its cost includes the size of
/// each answer), and [`mark_reachable`](Self::mark_reachable) only sets
/// flags for them, expanding each component at most once per resolver, so
/// marking through any number of wrappers costs O(V + E) in total.
pub struct WrapperResolver {
    component_of: Vec<usize>,
    components: Vec<Vec<NodeIndex>>,
    /// The InCore functions each component reaches (sorted, deduplicated);
    /// `None` until asked. An empty answer is memoised too.
    memo: Vec<Option<Rc<[NodeIndex]>>>,
    /// Components whose reachable kernels `mark_reachable` has marked.
    expanded: Vec<bool>,
    /// How many components `mark_reachable` expanded (each at most once).
    pub expansions: u64,
}

impl WrapperResolver {
    pub fn new(graph: &CallGraph<'_, '_>) -> Self {
        let components = tarjan_scc(&graph.graph);
        let mut component_of = vec![0; graph.node_count()];
        for (index, members) in components.iter().enumerate() {
            for node in members {
                component_of[node.index()] = index;
            }
        }
        let memo = vec![None; components.len()];
        let expanded = vec![false; components.len()];
        Self { component_of, components, memo, expanded, expansions: 0 }
    }

    /// Sets `marked[k]` for every InCore function `k` reachable from
    /// `wrapper` (as `resolve` defines it). A component expanded by an
    /// earlier call is skipped: its kernels are marked already, and marks
    /// are never taken back.
    pub fn mark_reachable(&mut self, graph: &CallGraph<'_, '_>, wrapper: NodeIndex, marked: &mut [bool]) {
        let root = self.component_of[wrapper.index()];
        if self.expanded[root] {
            return;
        }
        self.expanded[root] = true;
        let mut stack = vec![root];
        while let Some(component) = stack.pop() {
            self.expansions += 1;
            for &member in &self.components[component] {
                for callee in graph.callees(member) {
                    if graph.kind(callee) == FunctionKind::InCore {
                        marked[callee.index()] = true;
                    } else {
                        let target = self.component_of[callee.index()];
                        if !self.expanded[target] {
                            self.expanded[target] = true;
                            stack.push(target);
                        }
                    }
                }
            }
        }
    }

    /// Every InCore function reachable from `wrapper` through calls,
    /// transitively (through functions of any non-InCore kind), in module
    /// order.
    pub fn resolve(&mut self, graph: &CallGraph<'_, '_>, wrapper: NodeIndex) -> Rc<[NodeIndex]> {
        let root = self.component_of[wrapper.index()];
        if let Some(known) = &self.memo[root] {
            return known.clone();
        }
        // Post-order over the component DAG: a component is computed once
        // all the components it calls are.
        let mut stack = vec![(root, false)];
        while let Some((component, expanded)) = stack.pop() {
            if self.memo[component].is_some() {
                continue;
            }
            if !expanded {
                stack.push((component, true));
                for &member in &self.components[component] {
                    for callee in graph.callees(member) {
                        let target = self.component_of[callee.index()];
                        if target != component
                            && graph.kind(callee) != FunctionKind::InCore
                            && self.memo[target].is_none()
                        {
                            stack.push((target, false));
                        }
                    }
                }
                continue;
            }
            let mut reached: Vec<NodeIndex> = Vec::new();
            for &member in &self.components[component] {
                for callee in graph.callees(member) {
                    if graph.kind(callee) == FunctionKind::InCore {
                        reached.push(callee);
                    } else {
                        let target = self.component_of[callee.index()];
                        if target != component {
                            let inner = self.memo[target].as_ref().expect("callees first");
                            reached.extend(inner.iter().copied());
                        }
                    }
                }
            }
            reached.sort_unstable();
            reached.dedup();
            self.memo[component] = Some(reached.into());
        }
        self.memo[root].clone().expect("computed")
    }
}
