//! The shared model on programs built to stress it: kinds (empty strings
//! included), wrappers that publish, recursive and very deep call graphs
//! (rings of wrappers against the naive oracle), CFG regions, and the
//! scan's cost bound.

use super::{
    call_graph::CallGraph,
    model::{self, lower_module, Bodies, Module},
    oracle, scan,
};
use crate::{
    insert_comm_fence::prologue::{self, Marked},
    test_support::{context, parse},
};
use cclir_dialect::names;

/// The Phase B outcome on `source`, and the model it ran on.
fn mark(source: &str) -> (Marked, Module) {
    let context = context();
    let module = parse(&context, source);
    let model = lower_module(module.as_operation(), Bodies::NotInCore).expect("known kinds");
    (prologue::mark(&model), model)
}

fn marked_names(source: &str) -> Vec<String> {
    let (marked, model) = mark(source);
    marked.marked.iter().map(|&f| model.functions[f].name.clone()).collect()
}

const KERNELS: &str = r#"
    func.func @consume() attributes {ccl.kind = "incore"} { return }
    func.func @other() attributes {ccl.kind = "aiv"} { return }
"#;

#[test]
fn unknown_kinds_are_reported_in_module_order() {
    let context = context();
    let source = r#"
        func.func @a() attributes {ccl.kind = "device"} { return }
        func.func @b() attributes {ccl.kind = "incore"} { return }
        func.func @c() attributes {ccl.kind = unit} { return }
        func.func @d() attributes {ccl.kind = ""} { return }
    "#;
    let module = parse(&context, source);
    let errors = lower_module(module.as_operation(), Bodies::All).unwrap_err();
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    let accepted = names::KINDS.join(", ");
    assert_eq!(
        messages,
        [
            format!("unknown ccl.kind \"device\"; accepted kinds: {accepted}"),
            format!("unknown ccl.kind unit; accepted kinds: {accepted}"),
            format!("unknown ccl.kind \"\"; accepted kinds: {accepted}"),
        ]
    );
}

#[test]
fn empty_strings_are_values_like_any_other() {
    // An empty level or role makes nothing a scan target; a function named
    // @"" is an ordinary kernel.
    let source = r#"
        func.func @""() attributes {ccl.kind = "incore"} { return }
        func.func @host() attributes {ccl.level = "", ccl.role = "orchestrator"} {
          ccl.barrier
          func.call @""() : () -> ()
          return
        }
        func.func @role() attributes {ccl.level = "host", ccl.role = ""} {
          ccl.barrier
          func.call @""() : () -> ()
          return
        }
        func.func @main() attributes {ccl.level = "host", ccl.role = "orchestrator"} {
          ccl.barrier
          func.call @""() : () -> ()
          return
        }
    "#;
    assert_eq!(marked_names(source), [""]);
    let (marked, _) = mark(source);
    assert_eq!(marked.scan.scan_targets, 1, "only @main is orchestration-like");
}

#[test]
fn a_wrapper_that_publishes_is_a_publish() {
    // One, two and three hops from the collective to the consumer's call.
    for hops in 1..=3 {
        let mut wrappers = String::new();
        for level in 0..hops {
            let body =
                if level == 0 { "ccl.barrier".to_string() } else { format!("func.call @w{}() : () -> ()", level - 1) };
            wrappers.push_str(&format!(
                "func.func @w{level}() attributes {{ccl.kind = \"orchestration\"}} {{\n  {body}\n  return\n}}\n"
            ));
        }
        let source = format!(
            "{KERNELS}{wrappers}func.func @main() attributes {{ccl.kind = \"graph\"}} {{\n  func.call @other() : () -> ()\n  func.call @w{}() : () -> ()\n  func.call @consume() : () -> ()\n  return\n}}\n",
            hops - 1
        );
        assert_eq!(marked_names(&source), ["consume"], "{hops} hops");
    }
    // A wrapper that does not publish is not one.
    let source = format!(
        "{KERNELS}func.func @quiet() attributes {{ccl.kind = \"orchestration\"}} {{ func.call @other() : () -> () return }}\n\
         func.func @main() attributes {{ccl.kind = \"orchestration\"}} {{ func.call @quiet() : () -> () func.call @consume() : () -> () return }}\n"
    );
    assert!(marked_names(&source).is_empty());
}

#[test]
fn recursive_wrappers_reach_their_fixpoint() {
    // @a and @b call each other; only @b publishes, on one branch. Both
    // summaries end true, so a consumer after a call of @a is marked.
    let source = format!(
        "{KERNELS}func.func @a(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           func.call @b(%c) : (i1) -> ()\n  return\n}}\n\
         func.func @b(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           scf.if %c {{ func.call @a(%c) : (i1) -> () }} else {{ ccl.barrier }}\n  return\n}}\n\
         func.func @main(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           func.call @a(%c) : (i1) -> ()\n  func.call @consume() : () -> ()\n  return\n}}\n"
    );
    assert_eq!(marked_names(&source), ["consume"]);
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
          ccl.submit @a() : () -> ()
          return
        }
        func.func @c() attributes {ccl.kind = "group"} {
          func.call @k2() : () -> ()
          ccl.submit @missing() : () -> ()
          return
        }
        func.func @none() attributes {ccl.kind = "orchestration"} { return }
        func.func private @missing()
    "#;
    let module = parse(&context, source);
    let model = lower_module(module.as_operation(), Bodies::NotInCore).unwrap();
    let graph = CallGraph::build(&model);
    let index = |name: &str| model.by_name[name];
    let names_of =
        |kernels: &[usize]| -> Vec<String> { kernels.iter().map(|&k| model.functions[k].name.clone()).collect() };
    let all: Vec<usize> = (0..model.functions.len()).collect();
    let reach = graph.reachable_kernels(&model, &all, |_| true);
    let of = |name: &str| reach[index(name)].clone().expect("asked about");
    // k3 is only reachable through a kernel (k2): not resolved.
    assert_eq!(names_of(&of("a")), ["k1", "k2"]);
    // b is in a's component: the same answer, shared.
    assert!(std::rc::Rc::ptr_eq(&of("a"), &of("b")));
    assert_eq!(names_of(&of("self")), ["k1"]);
    assert!(of("none").is_empty());
    // Asked about c alone, only c's component (and no caller's) is solved.
    let alone = graph.reachable_kernels(&model, &[index("c")], |_| true);
    assert_eq!(names_of(alone[index("c")].as_deref().expect("asked about")), ["k2"]);
    assert!(alone[index("a")].is_none() && alone[index("self")].is_none());

    // Marking agrees with resolution, and a second request expands nothing.
    let mut marked = vec![false; model.functions.len()];
    let mut expanded = Vec::new();
    graph.mark_reachable(&model, index("b"), &mut marked, &mut expanded);
    let flagged: Vec<usize> = (0..marked.len()).filter(|&i| marked[i]).collect();
    assert_eq!(names_of(&flagged), ["k1", "k2"]);
    let mut untouched = vec![false; model.functions.len()];
    graph.mark_reachable(&model, index("a"), &mut untouched, &mut expanded);
    assert!(untouched.iter().all(|m| !m), "a's component was expanded already");
}

#[test]
fn a_call_chain_100000_deep_is_walked_without_recursion() {
    let depth = 100_000;
    let mut source = String::from(
        "func.func @consume() attributes {ccl.kind = \"incore\"} { return }\n\
         func.func @w0() attributes {ccl.kind = \"orchestration\"} { ccl.barrier return }\n",
    );
    for level in 1..depth {
        source.push_str(&format!(
            "func.func @w{level}() attributes {{ccl.kind = \"orchestration\"}} {{ func.call @w{}() : () -> () return }}\n",
            level - 1
        ));
    }
    source.push_str(&format!(
        "func.func @main() attributes {{ccl.kind = \"orchestration\"}} {{ func.call @w{}() : () -> () func.call @consume() : () -> () return }}\n",
        depth - 1
    ));
    let (marked, model) = mark(&source);
    assert_eq!(marked.marked, [model.by_name["consume"]]);
    assert_eq!(marked.scan.scan_targets, depth as u64 + 1);
}

#[test]
fn branches_are_followed_along_their_edges() {
    // The kernel launched in the entry block, before any publish, is not
    // marked (the entry block has no predecessors); the one in the loop
    // block is (the back edge brings the publish around); the one in the
    // exit block after the loop is too.
    let source = format!(
        "{KERNELS}func.func @early() attributes {{ccl.kind = \"incore\"}} {{ return }}\n\
         func.func @main(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           func.call @early() : () -> ()\n\
           cf.br ^loop\n\
         ^loop:\n\
           func.call @other() : () -> ()\n\
           ccl.barrier\n\
           cf.cond_br %c, ^loop, ^exit\n\
         ^exit:\n\
           func.call @consume() : () -> ()\n\
           return\n\
         }}\n"
    );
    assert_eq!(marked_names(&source), ["consume", "other"]);
    // A diamond: the publish on one side reaches the join.
    let diamond = format!(
        "{KERNELS}func.func @main(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           cf.cond_br %c, ^left, ^right\n\
         ^left:\n  ccl.barrier\n  cf.br ^join\n\
         ^right:\n  func.call @other() : () -> ()\n  cf.br ^join\n\
         ^join:\n  func.call @consume() : () -> ()\n  return\n\
         }}\n"
    );
    assert_eq!(marked_names(&diamond), ["consume"]);
}

/// `depth` nested scf.for loops, each body launching its own kernel before
/// the next loop, and one collective at the end of the outermost body: every
/// kernel is marked, with one visit per event in each of at most two modes.
fn nested_program(depth: usize) -> String {
    let mut kernels = String::new();
    let mut open = String::new();
    for level in 0..depth {
        kernels.push_str(&format!("func.func @k{level}() attributes {{ccl.kind = \"incore\"}} {{ return }}\n"));
        open.push_str(&format!("scf.for %i{level} = %lb to %ub step %s {{\n func.call @k{level}() : () -> ()\n"));
    }
    // The collective closes the outermost body, after the whole chain.
    let mut closing = "}\n".repeat(depth - 1);
    closing.push_str("ccl.barrier\n}\n");
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
    closing.push_str("ccl.barrier\n");
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
fn scan_cost_is_linear_in_nesting_depth() {
    for depth in [1usize, 8, 64, 256] {
        let (marked, _) = mark(&nested_program(depth));
        assert_eq!(marked.marked.len(), depth, "every kernel is marked at depth {depth}");
        // Events in @main: a call per level, one barrier, one return.
        let events = depth as u64 + 2;
        assert!(marked.scan.op_visits <= 2 * events, "depth {depth}: {} visits for {events}", marked.scan.op_visits);
        // Each level's body is rescanned at most once.
        assert!(marked.scan.rescans <= depth as u64);
    }
    for depth in [1usize, 8, 64, 256] {
        let (marked, _) = mark(&nested_program_inner_collective(depth));
        // Every launched kernel is marked (loop-carried order): all pre
        // kernels and post0..post(depth-2); the last post kernel is unused.
        assert_eq!(marked.marked.len(), 2 * depth - 1);
        let events = 2 * depth as u64 + 1;
        assert!(marked.scan.op_visits <= 2 * events, "depth {depth}: {} visits for {events}", marked.scan.op_visits);
        assert!(marked.scan.rescans <= depth as u64);
    }
}

/// 10,000 calls of one wrapper (which reaches two kernels through a second
/// wrapper) after a collective: the wrapper is resolved once, not per call.
#[test]
fn many_calls_of_one_wrapper_resolve_it_once() {
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
          ccl.barrier
{calls}          return
        }}"#
    );
    let (marked, model) = mark(&source);
    let names: Vec<&str> = marked.marked.iter().map(|&f| model.functions[f].name.as_str()).collect();
    assert_eq!(names, ["k1", "k2"]);
    // @wrapper's component and @inner's: two expansions for 10,000 calls.
    assert_eq!(marked.wrapper_expansions, 2);
}

/// The fast Phase B (summaries, launches, marked kernels) against the
/// naive oracle on `source`; the oracle's answer.
fn agrees_with_oracle(source: &str) -> oracle::PhaseB {
    struct Collect(std::collections::BTreeSet<(usize, u32, Option<usize>)>);
    impl scan::Launches for Collect {
        fn launch(&mut self, caller: usize, call: &model::Event, callee: Option<usize>, _: model::OpKey) {
            self.0.insert((caller, call.order, callee));
        }
    }
    let (marked, model) = mark(source);
    let slow = oracle::phase_b(&model);
    assert_eq!(scan::summaries(&model), slow.summaries, "summaries:\n{source}");
    let mut launches = Collect(Default::default());
    scan::scan_module(&model, &mut launches);
    assert_eq!(launches.0, slow.launches, "launches:\n{source}");
    assert_eq!(marked.marked, slow.marked, "marked kernels:\n{source}");
    slow
}

/// A ring of `n` wrappers `@w0 -> @w1 -> ... -> @w0`: each calls the next
/// wrapper and its own kernel (`kernel_first`: in the other order), and
/// `@w{publisher}` runs a barrier first.
fn wrapper_ring(n: usize, publisher: usize, kernel_first: bool) -> String {
    let mut source = String::new();
    for i in 0..n {
        source.push_str(&format!("func.func @k{i}() attributes {{ccl.kind = \"incore\"}} {{ return }}\n"));
    }
    for i in 0..n {
        let barrier = if i == publisher { "ccl.barrier\n" } else { "" };
        let next = format!("func.call @w{}() : () -> ()\n", (i + 1) % n);
        let kernel = format!("func.call @k{i}() : () -> ()\n");
        let calls = if kernel_first { format!("{kernel}{next}") } else { format!("{next}{kernel}") };
        source.push_str(&format!(
            "func.func @w{i}() attributes {{ccl.kind = \"orchestration\"}} {{\n{barrier}{calls}return\n}}\n"
        ));
    }
    source
}

#[test]
fn rings_of_wrappers_agree_with_the_oracle() {
    for n in 1..=9 {
        for publisher in [0, n / 2, n - 1] {
            for kernel_first in [false, true] {
                let slow = agrees_with_oracle(&wrapper_ring(n, publisher, kernel_first));
                assert!(slow.summaries.iter().filter(|&&s| s).count() == n, "every wrapper of the ring publishes");
            }
        }
    }
    // Without a barrier nothing publishes, around the ring or not.
    let quiet = wrapper_ring(5, usize::MAX, false);
    let slow = agrees_with_oracle(&quiet);
    assert!(slow.summaries.iter().all(|s| !s) && slow.marked.is_empty());
}

#[test]
fn a_publish_that_reaches_no_exit_is_no_summary() {
    // @spin's barrier is in a block that only branches to itself: its scan
    // ends clear. @leave's barrier block can exit: its scan ends set.
    let source = format!(
        "{KERNELS}func.func @spin(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           cf.cond_br %c, ^loop, ^exit\n\
         ^loop:\n  ccl.barrier\n  func.call @other() : () -> ()\n  cf.br ^loop\n\
         ^exit:\n  return\n\
         }}\n\
         func.func @leave(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           cf.br ^loop\n\
         ^loop:\n  func.call @spin(%c) : (i1) -> ()\n  ccl.barrier\n  cf.cond_br %c, ^loop, ^exit\n\
         ^exit:\n  return\n\
         }}\n\
         func.func @main(%c: i1) attributes {{ccl.kind = \"orchestration\"}} {{\n\
           func.call @spin(%c) : (i1) -> ()\n  func.call @consume() : () -> ()\n\
           func.call @leave(%c) : (i1) -> ()\n  func.call @consume() : () -> ()\n  return\n\
         }}\n"
    );
    let slow = agrees_with_oracle(&source);
    let (_, model) = mark(&source);
    let summary = |name: &str| slow.summaries[model.by_name[name]];
    assert!(!summary("spin") && summary("leave") && summary("main"));
    // @other is launched after @spin's barrier, inside @spin; @consume
    // after @leave.
    assert_eq!(marked_names(&source), ["consume", "other"]);
}

/// 20,000 wrappers in a ring (one runs a barrier): the summaries are solved
/// in one pass over the calls, each wrapper is scanned once, and every
/// kernel is marked. Solving them by rounds of scans would take a round per
/// wrapper of the ring, about 4e8 op visits here.
#[test]
fn a_ring_of_20000_wrappers_is_scanned_once() {
    let n = 20_000;
    let (marked, _) = mark(&wrapper_ring(n, 0, false));
    assert_eq!(marked.marked.len(), n);
    assert_eq!(marked.scan.scan_targets, n as u64);
    // Each wrapper's call of the next publishes.
    assert_eq!(marked.scan.wrapper_publishes, n as u64);
    // Two calls and a return per wrapper, and a barrier: each visited once.
    assert_eq!(marked.scan.op_visits, 3 * n as u64 + 1);
    // The whole ring is one component, expanded once.
    assert_eq!(marked.wrapper_expansions, 1);
}

/// 20,000 wrappers in a chain, each calling the next and a kernel that
/// reads GM without the prologue, launched once at the top after a
/// collective: 20,000 violations, resolved by one walk down the chain. (A
/// set of reachable kernels for every wrapper of the chain would hold 2e8
/// entries.)
#[test]
fn a_chain_of_20000_failing_wrappers_is_resolved_once() {
    let n = 20_000;
    let mut source = String::new();
    for level in 0..n {
        source.push_str(&format!(
            "func.func @k{level}(%m: memref<4xi32>, %i: index) attributes {{ccl.kind = \"incore\"}} {{\n\
               %v = ccl.read %m[%i] : memref<4xi32> -> i32\n  return\n}}\n"
        ));
        let next = if level + 1 < n {
            format!("func.call @w{}(%m, %i) : (memref<4xi32>, index) -> ()\n", level + 1)
        } else {
            String::new()
        };
        source.push_str(&format!(
            "func.func @w{level}(%m: memref<4xi32>, %i: index) attributes {{ccl.kind = \"orchestration\"}} {{\n\
               {next}func.call @k{level}(%m, %i) : (memref<4xi32>, index) -> ()\n  return\n}}\n"
        ));
    }
    source.push_str(
        "func.func @main(%m: memref<4xi32>, %i: index) attributes {ccl.kind = \"orchestration\"} {\n\
           ccl.barrier\n  func.call @w0(%m, %i) : (memref<4xi32>, index) -> ()\n  return\n}\n",
    );
    let context = context();
    let module = parse(&context, &source);
    let model = lower_module(module.as_operation(), Bodies::All).expect("known kinds");
    let findings = crate::verify_comm_order::analyse(&model);
    let main = model.by_name["main"];
    assert_eq!(findings.launch_violations.len(), n);
    assert!(findings.launch_violations.iter().all(|v| v.caller == main && v.wrapper == Some(model.by_name["w0"])));
}
