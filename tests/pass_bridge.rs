//! The bridge between Rust passes and MLIR's pass manager: a panic never
//! unwinds into MLIR (it becomes an internal-error diagnostic and a failed
//! pass), and verify-each catches IR a Rust pass broke, through the same
//! path ccl-opt uses.

use cclir::passes::framework::{
    Anchor, CclPass, DiagnosticSink, PassContext, PassFailed, PassOptions, PassStep, Severity, Statistics,
};
use melior::ir::{operation::OperationLike, OperationRef};

struct Panics;

impl CclPass for Panics {
    fn run(&mut self, _op: OperationRef<'_, '_>, _cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        panic!("deliberate failure in a test pass");
    }
}

fn create(_: &PassOptions) -> Box<dyn CclPass> {
    Box::new(Panics)
}

static STEP: PassStep = PassStep { name: "TestPanics", anchor: Anchor::Function, create };
static INFO: cclir::passes::framework::PassInfo = cclir::passes::framework::PassInfo {
    argument: "test-panics",
    summary: "panics",
    description: "",
    options: &[],
    statistics: &[],
    steps: &[],
};

#[test]
fn panicking_pass_becomes_a_diagnostic() {
    cclir::panic::install_quiet_hook();
    let session = cclir::Session::new();
    let program = session.parse("func.func @f() {\n  return\n}\n", "p.mlir").unwrap();
    let manager = cclir::ffi::pass_manager_on(session.context(), "builtin.module");
    let sink: DiagnosticSink = session.sink().clone();
    cclir::ffi::add_rust_pass(
        manager.as_operation_pass_manager().nested_under("func.func"),
        &STEP,
        INFO.argument,
        "panics",
        PassOptions::defaults(&INFO),
        Statistics::new(&[]),
        sink.clone(),
        Default::default(),
    );
    let op = unsafe { OperationRef::from_raw(program.operation().to_raw()) };
    assert!(!cclir::ffi::run_pass_manager(&manager, op), "the pass must fail");
    let diagnostics = sink.take();
    let internal = diagnostics.iter().find(|d| d.message.contains("internal error")).expect("reported");
    assert_eq!(internal.severity, Severity::Error);
    assert!(internal.message.contains("pass 'TestPanics' panicked: deliberate failure in a test pass"), "{}", internal.message);
    assert_eq!(internal.loc.to_string(), "p.mlir:1:1");
    // The session still works afterwards.
    assert!(session.parse("module {}", "q.mlir").is_ok());
}

/// Appends a `ccl.fence` with an operand it must not have (the IRDL
/// verifier rejects it) at the end of the function body.
struct BreaksIr;

impl CclPass for BreaksIr {
    fn run(&mut self, op: OperationRef<'_, '_>, _cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        use melior::ir::{block::BlockLike, operation::OperationBuilder, RegionLike};
        let body = op.region(0).unwrap().first_block().unwrap();
        let terminator = body.terminator().unwrap();
        let argument = body.argument(0).unwrap();
        let bad = OperationBuilder::new("ccl.fence", op.location()).add_operands(&[argument.into()]).build().unwrap();
        body.insert_operation_before(terminator, bad);
        Ok(())
    }
}

fn create_breaks(_: &PassOptions) -> Box<dyn CclPass> {
    Box::new(BreaksIr)
}

static BREAKS_STEP: PassStep = PassStep { name: "TestBreaksIr", anchor: Anchor::Function, create: create_breaks };

#[test]
fn verify_each_catches_broken_ir_from_a_rust_pass() {
    let session = cclir::Session::new();
    let program = session.parse("func.func @f(%a: i32) {\n  return\n}\n", "v.mlir").unwrap();
    let op = unsafe { OperationRef::from_raw(program.operation().to_raw()) };
    for self_verify in [true, false] {
        let manager = cclir::ffi::pass_manager_on(session.context(), "builtin.module");
        // Either path: the framework's own check (Rust-only pipelines) or MLIR's.
        cclir::ffi::enable_verifier(&manager, !self_verify);
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(self_verify));
        cclir::ffi::add_rust_pass(
            manager.as_operation_pass_manager().nested_under("func.func"),
            &BREAKS_STEP,
            "test-breaks-ir",
            "",
            PassOptions::defaults(&INFO),
            Statistics::new(&[]),
            session.sink().clone(),
            flag,
        );
        assert!(!cclir::ffi::run_pass_manager(&manager, op), "broken IR must fail the run");
        let diagnostics = session.sink().take();
        assert!(
            diagnostics.iter().any(|d| d.message == "op expects exactly 0 operands, but got 1"),
            "self_verify={self_verify}: {diagnostics:#?}"
        );
    }
}
