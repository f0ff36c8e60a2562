//! The bridge between Rust passes and MLIR's pass manager, through the
//! registry a downstream crate uses for its own passes: a panic never
//! unwinds into MLIR (it becomes an internal-error diagnostic and a failed
//! pass), verify-each catches IR a Rust pass broke, and options are MLIR's.

use cclir::passes::pass_options;
use cclir::{
    passes::framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo},
    Session, Severity,
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike};

struct Panics;

impl CclPass for Panics {
    fn run(&mut self, _op: OperationRef<'_, '_>, _cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        panic!("deliberate failure in a test pass");
    }
}

static PANICS: PassInfo = PassInfo {
    argument: "test-panics",
    name: "TestPanics",
    summary: "panics",
    description: "A pass that panics, to show the bridge catches it.",
    anchor: Anchor::Function,
    dependent_dialects: &[],
    options: &[],
    statistics: &[],
    create: |_: OptionValues<'_>, _: &Counters| -> Box<dyn CclPass> { Box::new(Panics) },
};

/// Appends a `ccl.fence` with an operand it must not have (the dialect's
/// verifier rejects it) before the function's return.
struct BreaksIr;

impl CclPass for BreaksIr {
    fn run(&mut self, op: OperationRef<'_, '_>, _cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let body = op.region(0).unwrap().first_block().unwrap();
        let terminator = body.terminator().unwrap();
        let argument = body.argument(0).unwrap();
        let bad = melior::ir::operation::OperationBuilder::new("ccl.fence", op.location())
            .add_operands(&[argument.into()])
            .build()
            .unwrap();
        body.insert_operation_before(terminator, bad);
        Ok(())
    }
}

pass_options! {
    struct BreaksOptions {
        times: int("times", "How often to break the IR", default = 1, min = 1),
    }
}

static BREAKS: PassInfo = PassInfo {
    argument: "test-breaks-ir",
    name: "TestBreaksIr",
    summary: "breaks the IR",
    description: "A pass that leaves invalid IR, to show MLIR verifies after it.",
    anchor: Anchor::Function,
    dependent_dialects: &["ccl"],
    options: BreaksOptions::SPECS,
    statistics: &[],
    create: |_: OptionValues<'_>, _: &Counters| -> Box<dyn CclPass> { Box::new(BreaksIr) },
};

fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        cclir::register_pass(&PANICS).expect("registers");
        cclir::register_pass(&BREAKS).expect("registers");
    });
}

#[test]
fn panicking_pass_becomes_a_diagnostic() {
    register();
    let session = Session::new();
    let mut program = session.parse("func.func @f() {\n  return\n}\n", "p.mlir").unwrap();
    let pipeline = session.pipeline("builtin.module(func.func(test-panics))").unwrap();
    let error = session.run(&pipeline, &mut program).expect_err("the pass must fail");
    let internal = error.diagnostics().iter().find(|d| d.message.contains("internal error")).expect("reported");
    assert_eq!(internal.severity, Severity::Error);
    assert!(
        internal.message.contains("pass 'test-panics' panicked: deliberate failure in a test pass"),
        "{}",
        internal.message
    );
    assert_eq!(internal.loc.to_string(), "p.mlir:1:1");
    // The session still works afterwards.
    assert!(session.parse("module {}", "q.mlir").is_ok());
}

#[test]
fn verify_each_catches_broken_ir_from_a_rust_pass() {
    register();
    let session = Session::new();
    let mut program = session.parse("func.func @f(%a: i32) {\n  return\n}\n", "v.mlir").unwrap();
    let pipeline = session.pipeline("builtin.module(func.func(test-breaks-ir))").unwrap();
    let error = session.run(&pipeline, &mut program).expect_err("broken IR must fail the run");
    assert!(
        error.diagnostics().iter().any(|d| d.message == "'ccl.fence' op requires zero operands"),
        "{:#?}",
        error.diagnostics()
    );
}

#[test]
fn options_of_a_registered_pass_are_mlir_options() {
    register();
    let session = Session::new();
    let built = session.pipeline("builtin.module(func.func(test-breaks-ir{times=3}))").unwrap();
    assert_eq!(built.to_text(), "builtin.module(func.func(test-breaks-ir{times=3}))");
    let error = session.pipeline("builtin.module(func.func(test-breaks-ir{times=0}))").err().expect("rejected");
    assert!(error.to_string().contains("invalid value 0 for option 'times' of 'test-breaks-ir'"), "{error}");
    assert!(cclir::register_pass(&BREAKS).is_err(), "a second registration is refused");
}
