//! A panic inside a Rust pass never unwinds into MLIR: the framework's
//! callback catches it, reports an internal error at the op, and fails the
//! pass; the process goes on.

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
