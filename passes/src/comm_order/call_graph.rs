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
//! first), and reachability is computed per component over that order, for
//! the components asked about only.

use super::model::Module;
use cclir_dialect::names::FunctionKind;
use petgraph::{
    algo::kosaraju_scc,
    graph::{DiGraph, NodeIndex},
    Direction,
};
use std::rc::Rc;

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

    /// For each function of `wrappers`, the InCore functions it reaches
    /// through calls of non-InCore functions, transitively, restricted to
    /// those `keep` accepts; sorted; `None` for the functions whose
    /// component none of `wrappers` is in. Only the components of `wrappers` get a set: they are solved
    /// callees first, and the walk from one stops at a component solved
    /// already and takes its set, so a chain of wrappers asked about at its
    /// top costs one walk, and one asked about at every level one step per
    /// level (materialising a set for every component would cost the sum of
    /// their sizes: quadratic on a chain that reaches a kernel per level).
    pub fn reachable_kernels(
        &self,
        module: &Module,
        wrappers: &[usize],
        keep: impl Fn(usize) -> bool,
    ) -> Vec<Option<Rc<[usize]>>> {
        let mut asked: Vec<usize> = wrappers.iter().map(|&f| self.component_of[f]).collect();
        // Component indices are in post-order: callees first.
        asked.sort_unstable();
        asked.dedup();
        let mut solved: Vec<Option<Rc<[usize]>>> = vec![None; self.components.len()];
        let mut visited = vec![usize::MAX; self.components.len()];
        let mut taken = vec![usize::MAX; module.functions.len()];
        for &root in &asked {
            let mut reached = Vec::new();
            let mut take = |kernel: usize, reached: &mut Vec<usize>| {
                if std::mem::replace(&mut taken[kernel], root) != root {
                    reached.push(kernel);
                }
            };
            visited[root] = root;
            let mut stack = vec![root];
            while let Some(component) = stack.pop() {
                if let (true, Some(set)) = (component != root, &solved[component]) {
                    for &kernel in set.iter() {
                        take(kernel, &mut reached);
                    }
                    continue;
                }
                for member in &self.components[component] {
                    for callee in self.callees(member.index()) {
                        if module.functions[callee].kind == FunctionKind::InCore {
                            if keep(callee) {
                                take(callee, &mut reached);
                            }
                        } else {
                            let next = self.component_of[callee];
                            if std::mem::replace(&mut visited[next], root) != root {
                                stack.push(next);
                            }
                        }
                    }
                }
            }
            reached.sort_unstable();
            solved[root] = Some(reached.into());
        }
        (0..module.functions.len()).map(|f| solved[self.component_of[f]].clone()).collect()
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
