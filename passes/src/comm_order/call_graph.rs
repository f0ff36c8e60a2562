//! The module's call graph (petgraph) over the lowered functions, its
//! strongly connected components, and the resolution of a wrapper (an
//! orchestration-like callee) to the InCore functions it reaches.
//!
//! An edge `f -> g` is a call-like op (`func.call`, `ccl.submit`) in a
//! function `f` that is not InCore naming a function `g` of the module:
//! calls inside InCore functions are opaque publishes whose callee is not
//! analysed, so InCore functions are the leaves resolution looks for.
//!
//! Every walk is iterative: the components come from Kosaraju's algorithm
//! on petgraph's explicit-stack DFS (Tarjan's, recursive in petgraph,
//! overflows the stack on a chain of 90,000 calls), in post-order (callees
//! first), and reachability is computed per component over that order.

use super::model::Module;
use crate::names::FunctionKind;
use petgraph::{
    algo::kosaraju_scc,
    graph::{DiGraph, NodeIndex},
    Direction,
};

pub struct CallGraph {
    graph: DiGraph<(), ()>,
    /// The components, callees first (petgraph's post-order).
    components: Vec<Vec<NodeIndex>>,
    component_of: Vec<usize>,
}

impl CallGraph {
    pub fn build(module: &Module) -> Self {
        let n = module.functions.len();
        let mut graph = DiGraph::with_capacity(n, n);
        for _ in 0..n {
            graph.add_node(());
        }
        // Each function's callees are sorted and unique, so the edges go in
        // (caller, callee) order, once each.
        for (index, function) in module.functions.iter().enumerate() {
            if function.kind != FunctionKind::InCore {
                for &callee in &function.callees {
                    graph.add_edge(NodeIndex::new(index), NodeIndex::new(callee), ());
                }
            }
        }
        let components = kosaraju_scc(&graph);
        let mut component_of = vec![0; n];
        for (index, members) in components.iter().enumerate() {
            for node in members {
                component_of[node.index()] = index;
            }
        }
        Self { graph, components, component_of }
    }

    pub fn callees(&self, f: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph.neighbors_directed(NodeIndex::new(f), Direction::Outgoing).map(|n| n.index())
    }

    /// For every function, the InCore functions it reaches through calls
    /// of non-InCore functions, transitively, restricted to those `keep`
    /// accepts; sorted. Components share one answer, computed callees first.
    pub fn reachable_kernels(&self, module: &Module, keep: impl Fn(usize) -> bool) -> Vec<std::rc::Rc<[usize]>> {
        let mut per_component: Vec<std::rc::Rc<[usize]>> = Vec::with_capacity(self.components.len());
        for (index, members) in self.components.iter().enumerate() {
            let mut reached = Vec::new();
            for member in members {
                for callee in self.callees(member.index()) {
                    if module.functions[callee].kind == FunctionKind::InCore {
                        if keep(callee) {
                            reached.push(callee);
                        }
                    } else if self.component_of[callee] != index {
                        reached.extend(per_component[self.component_of[callee]].iter().copied());
                    }
                }
            }
            reached.sort_unstable();
            reached.dedup();
            per_component.push(reached.into());
        }
        (0..module.functions.len()).map(|f| per_component[self.component_of[f]].clone()).collect()
    }

    /// Sets `marked[k]` for every InCore `k` reachable from `wrapper` (as
    /// `reachable_kernels` defines it), expanding each component at most
    /// once over all calls (`expanded` remembers): marking through every
    /// wrapper call of a module costs O(V + E) in all.
    pub fn mark_reachable(&self, module: &Module, wrapper: usize, marked: &mut [bool], expanded: &mut Vec<bool>) {
        expanded.resize(self.components.len(), false);
        let root = self.component_of[wrapper];
        if std::mem::replace(&mut expanded[root], true) {
            return;
        }
        let mut stack = vec![root];
        while let Some(component) = stack.pop() {
            for member in &self.components[component] {
                for callee in self.callees(member.index()) {
                    if module.functions[callee].kind == FunctionKind::InCore {
                        marked[callee] = true;
                    } else {
                        let target = self.component_of[callee];
                        if !std::mem::replace(&mut expanded[target], true) {
                            stack.push(target);
                        }
                    }
                }
            }
        }
    }
}
