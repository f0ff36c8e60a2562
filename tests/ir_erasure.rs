//! Erasing ops from safe code: an erased op leaves the IR at once and is
//! destroyed only when the pass run ends, so erasing inside `ir::walk_nested`,
//! erasing twice, erasing an op still used, erasing the op the pass runs on
//! and reading an erased op are each an exact output or an internal-error
//! diagnostic, never a crash (each case runs in this process: a segfault
//! would end the test binary).

use cclir::passes::{
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo},
    ir::{self, Walk},
    pass_options,
};
use cclir::{dialect::names::Interned, Session};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef};

pass_options! {
    struct EraseOptions {
        mode: choice("mode", "What to erase", choices = [
            "next" => "in a walk, the fence right after a fence",
            "current" => "in a walk, a fence right after a fence, when the walk meets it",
            "both" => "in a walk, a fence and the op after it",
            "parent" => "in a walk, the scf.if around a fence, when the walk meets the fence",
            "twice" => "the first fence, twice",
            "used" => "an op whose result is used",
            "root" => "the function the pass runs on",
            "read-after" => "the first fence, then read it and its links",
            "move-root" => "the first fence, then move the function among the erased ops",
        ], default = "next"),
    }
}

struct Erase {
    mode: &'static str,
    names: Option<Interned>,
}

impl CclPass for Erase {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = Interned::cached(&mut self.names, func);
        let eraser = cx.eraser();
        let is_fence = |op: OperationRef<'_, '_>| ir::is_fence(names, op);
        let mut previous_was_fence = false;
        let mut first_fence = None;
        ir::walk_nested(func, |op| {
            first_fence = first_fence.or(is_fence(op).then_some(op));
            let next_is_fence = op.next_in_block().is_some_and(is_fence);
            match self.mode {
                "next" if is_fence(op) && next_is_fence => eraser.erase(op.next_in_block().unwrap()),
                "current" if is_fence(op) && previous_was_fence => eraser.erase(op),
                "both" if is_fence(op) => {
                    eraser.erase(op.next_in_block().unwrap());
                    eraser.erase(op);
                }
                "parent" if is_fence(op) && op.parent_operation() != Some(func) => {
                    eraser.erase(op.parent_operation().unwrap())
                }
                _ => {}
            }
            previous_was_fence = is_fence(op);
            Walk::Advance
        });
        let first = first_fence.expect("the input has a fence");
        match self.mode {
            "twice" => {
                eraser.erase(first);
                eraser.erase(first);
            }
            "used" => {
                let constant = ir::entry_block(func).unwrap().first_operation().unwrap();
                eraser.erase(constant);
            }
            "root" => eraser.erase(func),
            "move-root" => {
                eraser.erase(first);
                ir::move_to(func, Some(first), first.block().expect("the holder's body"));
            }
            "read-after" => {
                eraser.erase(first);
                // Out of the IR, still allocated: its name reads, and it is
                // in no block of the function.
                assert_eq!(ir::op_name(first), "ccl.fence");
                assert!(first.parent_operation().is_none_or(|parent| parent != func));
                assert!(first.next_in_block().is_none());
            }
            _ => {}
        }
        Ok(())
    }
}

static ERASE: PassInfo = PassInfo {
    argument: "test-erase",
    name: "TestErase",
    summary: "Erases ops in the ways a pass may get wrong",
    description: "Erases ops as its `mode` says, to show that no way of erasing from safe code crashes.",
    anchor: Anchor::Function,
    dependent_dialects: &[],
    options: EraseOptions::SPECS,
    statistics: &[],
    create: |values: OptionValues<'_>, _: &Counters| -> Box<dyn CclPass> {
        Box::new(Erase { mode: EraseOptions::from_values(values).mode, names: None })
    },
};

const INPUT: &str = "func.func @k(%c: i1) -> i32 {
  %x = arith.constant 1 : i32
  ccl.fence
  ccl.fence
  ccl.fence
  scf.if %c {
    ccl.fence
    ccl.fence
  }
  ccl.cacheinvalid
  ccl.fence
  return %x : i32
}
";

/// Runs `test-erase{mode=...}` on [`INPUT`]: the output, or the errors.
fn run(mode: &str) -> Result<String, String> {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| cclir::register_pass(&ERASE).expect("registers"));
    let session = Session::new();
    let mut program = session.parse(INPUT, "e.mlir").unwrap();
    let pipeline = session.pipeline(&format!("builtin.module(func.func(test-erase{{mode={mode}}}))")).unwrap();
    match session.run(&pipeline, &mut program) {
        Ok(()) => Ok(program.to_text()),
        Err(error) => Err(error.diagnostics().iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")),
    }
}

/// The ops of the printed function, one a line (`return`, as MLIR prints
/// `func.return`).
fn ops(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.rsplit(" = ").next().unwrap_or(line).trim())
        .filter(|line| !line.starts_with('}') && !line.starts_with("module"))
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Runs `mode` and checks the function's ops after it, top level and
/// nested, in order.
fn assert_ops_after(mode: &str, expected: &[&str]) {
    let text = run(mode).unwrap();
    let body: Vec<String> = ops(&text).into_iter().filter(|op| op != "func.func" && op != "return").collect();
    assert_eq!(body, expected, "{mode}:\n{text}");
}

#[test]
fn erasing_the_op_after_the_visited_one_goes_on_after_it() {
    // The first fence takes the second out; the walk goes on at the third,
    // which has no fence after it.
    let expected = ["arith.constant", "ccl.fence", "ccl.fence", "scf.if", "ccl.fence", "ccl.cacheinvalid", "ccl.fence"];
    assert_ops_after("next", &expected);
}

#[test]
fn erasing_the_visited_op_goes_on_after_it() {
    let expected = ["arith.constant", "ccl.fence", "scf.if", "ccl.fence", "ccl.cacheinvalid", "ccl.fence"];
    assert_ops_after("current", &expected);
}

#[test]
fn erasing_the_op_around_the_walk_leaves_its_regions() {
    let expected = ["arith.constant", "ccl.fence", "ccl.fence", "ccl.fence", "ccl.cacheinvalid", "ccl.fence"];
    assert_ops_after("parent", &expected);
}

#[test]
fn misuses_are_internal_errors() {
    let cases = [
        ("both", "a visit erased both the op it was given and the op after it"),
        ("twice", "the op is not nested in the op the pass runs on (or was erased already)"),
        ("used", "a result of 'arith.constant' is still used; replace its uses first"),
        ("root", "the op is not nested in the op the pass runs on"),
    ];
    for (mode, message) in cases {
        let errors = run(mode).expect_err(mode);
        assert!(
            errors.contains("internal error: pass 'test-erase' panicked") && errors.contains(message),
            "{mode}: {errors}"
        );
    }
}

#[test]
fn a_function_moved_among_the_erased_ops_is_not_destroyed() {
    let errors = run("move-root").expect_err("the run fails");
    assert!(errors.contains("the op the pass runs on was moved among the erased ops"), "{errors}");
}

#[test]
fn an_erased_op_reads_until_the_run_ends() {
    let text = run("read-after").unwrap();
    assert_eq!(text.matches("ccl.fence").count(), 5, "{text}");
}
