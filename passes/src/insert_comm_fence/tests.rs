//! Unit tests of the pieces lit cannot see: the classification itself, the
//! wrapper resolver on recursive graphs, and the scan's cost bound.

use super::{
    call_graph::{CallGraph, WrapperResolver},
    kernel,
    orchestration::{classify_functions, run_on_module},
    purity::{Classifier, Memo, Purity},
};
use crate::{
    ir, names,
    names::{FunctionKind, Name},
    test_support::{context, function, interned, parse},
};
use melior::ir::{block::BlockLike, operation::OperationLike, Module};

/// The classes of the loops directly in `name`'s body, in order.
fn loop_classes(module: &Module<'_>, name: &str) -> Vec<Purity> {
    let func = function(module, name);
    let names = interned(module);
    let mut memo = Memo::default();
    let mut classifier = Classifier::new(&names, &mut memo);
    let entry = ir::entry_block(func).unwrap();
    ir::ops(entry)
        .filter(|op| names.is_loop(Name::of(*op)))
        .map(|op| classifier.op_class(op))
        .collect()
}

const SIG: &str = "memref<8xi32, #ccl.window>";

fn wait() -> String {
    format!(r#""ccl.wait"(%sig, %x) {{cmp = "ge"}} : ({SIG}, i32) -> ()"#)
}

#[test]
fn classification_of_loops() {
    let context = context();
    let w = wait();
    let source = format!(
        r#"
        func.func @f(%sig: {SIG}, %x: i32, %c: i1, %lb: index, %ub: index, %s: index, %j: index) {{
          scf.for %i = %lb to %ub step %s {{ {w} }}
          scf.for %i = %lb to %ub step %s {{ %y = arith.addi %x, %x : i32 }}
          scf.for %i = %lb to %ub step %s {{ {w} "ccl.notify"(%sig, %x, %x) {{op = "set"}} : ({SIG}, i32, i32) -> () }}
          scf.for %i = %lb to %ub step %s {{ scf.if %c {{ {w} }} }}
          scf.for %i = %lb to %ub step %s {{ scf.if %c {{ }} else {{ {w} }} }}
          %v = "ccl.read"(%sig, %j) : ({SIG}, index) -> i32
          %n = arith.index_cast %v : i32 to index
          scf.for %i = %lb to %n step %s {{ {w} }}
          %b = arith.cmpi eq, %v, %x : i32
          scf.for %i = %lb to %ub step %s {{ scf.if %b {{ {w} }} }}
          scf.while : () -> () {{ {w} scf.condition(%c) }} do {{ scf.yield }}
          scf.while : () -> () {{ {w} scf.condition(%b) }} do {{ scf.yield }}
          scf.parallel (%i) = (%lb) to (%n) step (%s) {{ {w} scf.reduce }}
          scf.forall (%i) in (%ub) {{ {w} }}
          return
        }}"#
    );
    let module = parse(&context, &source);
    use Purity::*;
    assert_eq!(
        loop_classes(&module, "f"),
        vec![
            PureWithWait, // wait
            Pure,         // arith only
            NotPure,      // a notify
            PureWithWait, // if without else that waits
            PureWithWait, // else waits
            NotPure,      // upper bound read from memory
            NotPure,      // if condition read from memory
            PureWithWait, // while waiting in its before region
            NotPure,      // while whose condition reads memory
            NotPure,      // parallel with a bound read from memory
            PureWithWait, // forall
        ]
    );
}

#[test]
fn reads_memory_is_iterative_and_stops_at_non_pure_ops() {
    let context = context();
    // A chain long enough to overflow a recursive walk's stack.
    let mut body = String::from("%v0 = \"ccl.read\"(%sig, %j) : (memref<8xi32, #ccl.window>, index) -> i32\n");
    let length = 20_000;
    for i in 1..=length {
        body.push_str(&format!("%v{i} = arith.addi %v{}, %x : i32\n", i - 1));
    }
    let source = format!(
        r#"func.func @f(%sig: {SIG}, %x: i32, %j: index, %t: vector<4xf32>) -> (i32, i32) {{
          {body}
          %tile = "ccl.tile_load"(%sig, %j) : ({SIG}, index) -> vector<4xi32>
          %e = vector.extract %tile[0] : i32 from vector<4xi32>
          return %v{length}, %e : i32, i32
        }}"#
    );
    let module = parse(&context, &source);
    let func = function(&module, "f");
    let entry = ir::entry_block(func).unwrap();
    let ret = entry.terminator().unwrap();
    let names = interned(&module);
    let mut memo = Memo::default();
    let mut classifier = Classifier::new(&names, &mut memo);
    assert!(classifier.reads_memory(ret.operand(0).unwrap()));
    // Through a non-side-effect-free op (vector.extract is not in the list)
    // and from a tile_load: not "reads memory" in the rule's sense.
    assert!(!classifier.reads_memory(ret.operand(1).unwrap()));
    // Block arguments never read memory.
    assert!(!classifier.reads_memory(entry.argument(1).unwrap().into()));
}

#[test]
fn wrapper_resolution_handles_cycles_and_memoises() {
    let context = context();
    let source = r#"
        func.func @k1() attributes {ccl.kind = "incore"} { return }
        func.func @k2() attributes {ccl.kind = "aic"} { func.call @k3() : () -> () return }
        func.func @k3() attributes {ccl.kind = "aiv"} { return }
        func.func @self() attributes {ccl.kind = "orchestration"} {
          func.call @self() : () -> ()
          func.call @k1() : () -> ()
          return
        }
        func.func @a() attributes {ccl.kind = "orchestration"} {
          func.call @b() : () -> ()
          func.call @k1() : () -> ()
          return
        }
        func.func @b() attributes {ccl.kind = "graph"} {
          func.call @c() : () -> ()
          "ccl.submit"() {callee = @a} : () -> ()
          return
        }
        func.func @c() attributes {ccl.kind = "group"} {
          func.call @k2() : () -> ()
          "ccl.submit"() {callee = @missing} : () -> ()
          return
        }
        func.func @none() attributes {ccl.kind = "orchestration"} { return }
    "#;
    let module = parse(&context, source);
    let functions = classify_functions(module.as_operation()).unwrap();
    let graph = CallGraph::build(&functions, &interned(&module));
    let mut resolver = WrapperResolver::new(&graph);
    let names_of = |graph: &CallGraph<'_, '_>, nodes: &[petgraph::graph::NodeIndex]| -> Vec<String> {
        nodes.iter().map(|n| ir::symbol_name(graph.function(*n)).unwrap().to_string()).collect()
    };
    let a = graph.node("a").unwrap();
    let b = graph.node("b").unwrap();
    let first = resolver.resolve(&graph, a);
    // k3 is only reachable through a kernel (k2): not resolved.
    assert_eq!(names_of(&graph, &first), vec!["k1", "k2"]);
    // b is in a's component: the same memoised answer.
    let second = resolver.resolve(&graph, b);
    assert!(std::rc::Rc::ptr_eq(&first, &second));
    let own = resolver.resolve(&graph, graph.node("self").unwrap());
    assert_eq!(names_of(&graph, &own), vec!["k1"]);
    let none = resolver.resolve(&graph, graph.node("none").unwrap());
    assert!(none.is_empty());
    assert_eq!(graph.kind(graph.node("c").unwrap()), FunctionKind::Other);

    // Marking agrees with resolution, and a second request expands nothing.
    let mut marked = vec![false; graph.node_count()];
    let mut marker = WrapperResolver::new(&graph);
    marker.mark_reachable(&graph, b, &mut marked);
    let flagged: Vec<String> = (0..graph.node_count())
        .filter(|i| marked[*i])
        .map(|i| ir::symbol_name(graph.function(petgraph::graph::NodeIndex::new(i))).unwrap().to_string())
        .collect();
    assert_eq!(flagged, vec!["k1", "k2"]);
    let mut untouched = vec![false; graph.node_count()];
    marker.mark_reachable(&graph, a, &mut untouched);
    assert!(untouched.iter().all(|m| !m), "a's component was expanded already");
}

/// `depth` nested scf.for loops, each body launching its own kernel before
/// the next loop, and one collective at the end of the outermost body: every
/// kernel is marked, with one visit per op in each of at most two modes.
fn nested_program(depth: usize) -> String {
    let mut kernels = String::new();
    let mut open = String::new();
    for level in 0..depth {
        kernels.push_str(&format!("func.func @k{level}() attributes {{ccl.kind = \"incore\"}} {{ return }}\n"));
        open.push_str(&format!("scf.for %i{level} = %lb to %ub step %s {{\n func.call @k{level}() : () -> ()\n"));
    }
    // The collective closes the outermost body, after the whole chain.
    let mut closing = "}\n".repeat(depth - 1);
    closing.push_str("\"ccl.barrier\"() : () -> ()\n}\n");
    format!(
        "{kernels}func.func @main(%lb: index, %ub: index, %s: index) attributes {{ccl.kind = \"orchestration\"}} {{\n{open}{closing}return\n}}\n"
    )
}

/// The other extreme: the collective is in the innermost body, and every
/// level launches a kernel before and after its inner loop.
fn nested_program_inner_collective(depth: usize) -> String {
    let mut kernels = String::new();
    let mut open = String::new();
    let mut closing = String::new();
    for level in 0..depth {
        kernels.push_str(&format!(
            "func.func @pre{level}() attributes {{ccl.kind = \"incore\"}} {{ return }}\n\
             func.func @post{level}() attributes {{ccl.kind = \"incore\"}} {{ return }}\n"
        ));
        open.push_str(&format!("scf.for %i{level} = %lb to %ub step %s {{\n func.call @pre{level}() : () -> ()\n"));
    }
    closing.push_str("\"ccl.barrier\"() : () -> ()\n");
    for level in (0..depth).rev() {
        closing.push_str("}\n");
        if level > 0 {
            closing.push_str(&format!("func.call @post{}() : () -> ()\n", level - 1));
        }
    }
    format!(
        "{kernels}func.func @main(%lb: index, %ub: index, %s: index) attributes {{ccl.kind = \"orchestration\"}} {{\n{open}{closing}return\n}}\n"
    )
}

#[test]
fn scan_cost_is_linear_with_an_innermost_collective() {
    let context = context();
    for depth in [1usize, 8, 64, 256] {
        let module = parse(&context, &nested_program_inner_collective(depth));
        let functions = classify_functions(module.as_operation()).unwrap();
        let outcome = run_on_module(module.as_operation(), &functions);
        // Every launched kernel is marked (loop-carried order): all pre
        // kernels and post0..post(depth-2); the last post kernel is unused.
        assert_eq!(outcome.marked.len(), 2 * depth - 1);
        // Per level: pre call, loop, yield, and (but the outermost) a post call.
        let ops = 4 * depth as u64 + 1;
        assert!(outcome.op_visits <= 2 * ops, "depth {depth}: {} visits for {ops} ops", outcome.op_visits);
        assert!(outcome.loops_rescanned <= depth as u64);
    }
}

#[test]
fn scan_cost_is_linear_in_nesting_depth() {
    let context = context();
    for depth in [1usize, 8, 64, 256] {
        let module = parse(&context, &nested_program(depth));
        let functions = classify_functions(module.as_operation()).unwrap();
        let outcome = run_on_module(module.as_operation(), &functions);
        assert_eq!(outcome.marked.len(), depth, "every kernel is marked at depth {depth}");
        assert_eq!(outcome.prologues_inserted, depth as u64);
        // Ops in @main: per level a call, a loop and a yield; one barrier, one return.
        let ops = 3 * depth as u64 + 2;
        assert!(outcome.op_visits <= 2 * ops, "depth {depth}: {} visits for {ops} ops", outcome.op_visits);
        // Each level's body is rescanned at most once.
        assert!(outcome.loops_rescanned <= depth as u64);
        // A second run finds the same kernels and inserts nothing.
        let again = run_on_module(module.as_operation(), &functions);
        assert_eq!(again.marked.len(), depth);
        assert_eq!(again.prologues_inserted, 0);
    }
}

#[test]
fn phase_a_plan_is_empty_after_apply() {
    let context = context();
    let w = wait();
    let source = format!(
        r#"func.func private @h()
        func.func @k(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: {SIG}, %x: i32,
                     %c: i1, %lb: index, %ub: index, %s: index) attributes {{ccl.kind = "incore"}} {{
          scf.for %i = %lb to %ub step %s {{
            "ccl.tile_store"(%t, %win, %i) : (vector<16xf32>, memref<64xf32, #ccl.window>, index) -> ()
            scf.if %c {{ {w} }} else {{ func.call @h() : () -> () }}
            scf.while : () -> () {{ {w} scf.condition(%c) }} do {{ scf.yield }}
            "ccl.put"(%win, %win, %x) : (memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, i32) -> ()
          }}
          {w}
          {w}
          return
        }}"#
    );
    let module = parse(&context, &source);
    let func = function(&module, "k");
    let names = interned(&module);
    let plan = kernel::plan(func, &names, &mut Memo::default());
    let inserted = kernel::apply(&plan);
    assert_eq!(inserted.region_invalidates, 1);
    // if-branch wait, call, the pure wait loop, the run of two waits.
    assert_eq!(inserted.whole_invalidates, 4);
    // store, call, put.
    assert_eq!(inserted.fences, 3);
    assert!(module.as_operation().verify());
    assert!(kernel::plan(func, &names, &mut Memo::default()).is_empty(), "a second plan finds nothing to insert");
}

#[test]
fn unknown_kinds_are_reported_in_module_order() {
    let context = context();
    let source = r#"
        func.func @a() attributes {ccl.kind = "device"} { return }
        func.func @b() attributes {ccl.kind = "incore"} { return }
        func.func @c() attributes {ccl.kind = unit} { return }
    "#;
    let module = parse(&context, source);
    let errors = classify_functions(module.as_operation()).unwrap_err();
    assert_eq!(errors.len(), 2);
    assert!(errors[0].message.starts_with("unknown ccl.kind \"device\"; accepted kinds: incore, aic, aiv"));
    assert!(errors[1].message.starts_with("unknown ccl.kind unit;"));
    assert!(errors.iter().all(|e| e.message.ends_with(&names::KINDS.join(", "))));
}

/// A kernel with one local publish, a kernel already complete, a
/// non-InCore helper and an orchestration function launching the first
/// kernel after a collective.
const CHANGES_PROGRAM: &str = r#"
    func.func @publish(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
      "ccl.tile_store"(%t, %win, %i) : (vector<16xf32>, memref<64xf32, #ccl.window>, index) -> ()
      return
    }
    func.func @done() attributes {ccl.kind = "aiv"} {
      "ccl.cacheinvalid"() : () -> ()
      "ccl.fence"() : () -> ()
      return
    }
    func.func @helper() { return }
    func.func @main(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
      "ccl.barrier"() : () -> ()
      func.call @publish(%t, %win, %i) : (vector<16xf32>, memref<64xf32, #ccl.window>, index) -> ()
      func.call @done() : () -> ()
      func.call @helper() : () -> ()
      return
    }
"#;

#[test]
fn a_run_declares_whether_it_changed_anything_and_a_rerun_changes_nothing() {
    use crate::test_support::run_pass;
    let context = context();
    let module = parse(&context, CHANGES_PROGRAM);
    let (preserved, first) = run_pass(&super::INFO, module.as_operation());
    assert!(!preserved);
    // Phase A: only @publish gets markers (after the store); Phase B: the
    // prologue of @publish; @done is marked but already has its prologue.
    let body: Vec<String> = crate::ir::ops(crate::ir::entry_block(function(&module, "publish")).unwrap())
        .map(|op| crate::ir::op_name(op).to_string())
        .collect();
    assert_eq!(body, ["ccl.cacheinvalid", "ccl.fence", "ccl.tile_store", "ccl.cacheinvalid", "ccl.fence", "func.return"]);
    assert_eq!(
        first,
        [
            ("region-invalidates", 1),
            ("whole-gm-invalidates", 0),
            ("fences", 1),
            ("prologues", 1),
            ("kernels-marked", 2),
            ("loops-rescanned", 0)
        ]
    );
    let text = module.as_operation().to_string();

    // A second run is a no-op: it preserves everything (so MLIR skips
    // verify-each), the IR is the same, and only the counters that count
    // findings (marks) move.
    let (preserved, again) = run_pass(&super::INFO, module.as_operation());
    assert!(preserved);
    assert_eq!(module.as_operation().to_string(), text);
    assert_eq!(
        again,
        [
            ("region-invalidates", 0),
            ("whole-gm-invalidates", 0),
            ("fences", 0),
            ("prologues", 0),
            ("kernels-marked", 2),
            ("loops-rescanned", 0)
        ]
    );
}

/// 10,000 calls of one wrapper (which reaches two kernels through a second
/// wrapper) after a collective: the wrapper is resolved once, not per call.
#[test]
fn many_calls_of_one_wrapper_resolve_it_once() {
    let context = context();
    let calls = "      func.call @wrapper() : () -> ()\n".repeat(10_000);
    let source = format!(
        r#"func.func @k1() attributes {{ccl.kind = "incore"}} {{ return }}
        func.func @k2() attributes {{ccl.kind = "aiv"}} {{ return }}
        func.func @inner() attributes {{ccl.kind = "orchestration"}} {{
          func.call @k2() : () -> ()
          return
        }}
        func.func @wrapper() attributes {{ccl.kind = "orchestration"}} {{
          func.call @k1() : () -> ()
          func.call @inner() : () -> ()
          return
        }}
        func.func @main() attributes {{ccl.kind = "orchestration"}} {{
          "ccl.barrier"() : () -> ()
{calls}          return
        }}"#
    );
    let module = parse(&context, &source);
    let functions = classify_functions(module.as_operation()).unwrap();
    let outcome = run_on_module(module.as_operation(), &functions);
    assert_eq!(outcome.marked, vec!["k1".to_string(), "k2".to_string()]);
    // @wrapper's component and @inner's: two expansions for 10,000 calls.
    assert_eq!(outcome.wrapper_expansions, 2);
}
