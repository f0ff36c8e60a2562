//! Unit tests of the pieces lit cannot see: the classification itself, the
//! wrapper resolver on recursive graphs, and the scan's cost bound.

use super::{
    kernel,
    purity::{Classifier, Memo, Purity},
};
use crate::{
    ir,
    test_support::{context, function, interned, parse},
};
use cclir_dialect::names::Name;
use melior::ir::{block::BlockLike, operation::OperationLike, Module};

/// The classes of the loops directly in `name`'s body, in order.
fn loop_classes(module: &Module<'_>, name: &str) -> Vec<Purity> {
    let func = function(module, name);
    let names = interned(module);
    let mut memo = Memo::default();
    let mut classifier = Classifier::new(&names, &mut memo);
    let entry = ir::entry_block(func).unwrap();
    ir::ops(entry).filter(|op| names.is_loop(Name::of(*op))).map(|op| classifier.op_class(op)).collect()
}

const SIG: &str = "memref<8xi32, #ccl.window>";

fn wait() -> String {
    format!("ccl.wait ge %sig, %x : {SIG}, i32")
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
          scf.for %i = %lb to %ub step %s {{ {w} ccl.notify set %sig, %x, %x : {SIG}, i32, i32 }}
          scf.for %i = %lb to %ub step %s {{ scf.if %c {{ {w} }} }}
          scf.for %i = %lb to %ub step %s {{ scf.if %c {{ }} else {{ {w} }} }}
          %v = ccl.read %sig[%j] : {SIG} -> i32
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
    let mut body = String::from("%v0 = ccl.read %sig[%j] : memref<8xi32, #ccl.window> -> i32\n");
    let length = 20_000;
    for i in 1..=length {
        body.push_str(&format!("%v{i} = arith.addi %v{}, %x : i32\n", i - 1));
    }
    let source = format!(
        r#"func.func @f(%sig: {SIG}, %x: i32, %j: index, %t: vector<4xf32>) -> (i32, i32) {{
          {body}
          %tile = ccl.tile_load %sig[%j] : {SIG} -> vector<4xi32>
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
fn phase_a_plan_is_empty_after_apply() {
    let context = context();
    let w = wait();
    let source = format!(
        r#"func.func private @h()
        func.func @k(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %sig: {SIG}, %x: i32,
                     %c: i1, %lb: index, %ub: index, %s: index) attributes {{ccl.kind = "incore"}} {{
          scf.for %i = %lb to %ub step %s {{
            ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
            scf.if %c {{ {w} }} else {{ func.call @h() : () -> () }}
            scf.while : () -> () {{ {w} scf.condition(%c) }} do {{ scf.yield }}
            ccl.put %win, %win, %x : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, i32
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

/// A kernel with one local publish, a kernel already complete, a
/// non-InCore helper and an orchestration function launching the first
/// kernel after a collective.
const CHANGES_PROGRAM: &str = r#"
    func.func @publish(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
      ccl.tile_store %t, %win[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
      return
    }
    func.func @done() attributes {ccl.kind = "aiv"} {
      ccl.cacheinvalid
      ccl.fence
      return
    }
    func.func @helper() { return }
    func.func @main(%t: vector<16xf32>, %win: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
      ccl.barrier
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
    assert_eq!(
        body,
        ["ccl.cacheinvalid", "ccl.fence", "ccl.tile_store", "ccl.cacheinvalid", "ccl.fence", "func.return"]
    );
    assert_eq!(
        first,
        [
            ("region-invalidates", 1),
            ("whole-gm-invalidates", 0),
            ("fences", 1),
            ("prologues", 1),
            ("kernels-marked", 2),
            ("loops-rescanned", 0),
            ("wrapper-publishes", 0)
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
            ("loops-rescanned", 0),
            ("wrapper-publishes", 0)
        ]
    );
}

#[test]
fn the_split_passes_hand_the_marks_over_and_insert_what_the_module_pass_does() {
    use super::nested::{FIND_INFO, KERNEL_INFO};
    use crate::test_support::{run_pass, run_pass_with, TestHost};
    let context = context();
    let expected = parse(&context, CHANGES_PROGRAM);
    run_pass(&super::INFO, expected.as_operation());

    let module = parse(&context, CHANGES_PROGRAM);
    let scan = TestHost::default();
    let (preserved, found) = run_pass_with(&FIND_INFO, module.as_operation(), &scan).expect("the scan succeeds");
    assert!(preserved, "the scan changes nothing");
    assert_eq!(found, [("kernels-marked", 2), ("loops-rescanned", 0), ("wrapper-publishes", 0)]);
    let marks = scan.cached.borrow_mut().pop().expect("the scan caches its marks");
    let kernels = TestHost { parent: Some(marks), ..TestHost::default() };
    let mut prologues = 0;
    for name in ["publish", "done", "helper", "main"] {
        let (_, stats) =
            run_pass_with(&KERNEL_INFO, function(&module, name), &kernels).expect("the insertions succeed");
        prologues += stats.iter().find(|(stat, _)| *stat == "prologues").map_or(0, |&(_, count)| count);
    }
    assert_eq!(prologues, 1, "@publish gets one; @done has its own");
    assert_eq!(module.as_operation().to_string(), expected.as_operation().to_string());

    // Without the marks, a kernel is refused and anything else left alone.
    let bare = TestHost::default();
    let fresh = parse(&context, CHANGES_PROGRAM);
    assert!(run_pass_with(&KERNEL_INFO, function(&fresh, "helper"), &bare).expect("no marks needed").0);
    assert!(run_pass_with(&KERNEL_INFO, function(&fresh, "publish"), &bare).is_err());
    assert!(bare.reports.borrow()[0].contains("needs 'ccl-find-post-collective-kernels'"), "{:?}", bare.reports);
}
