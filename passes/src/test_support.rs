//! What the passes' unit tests share: a context with the `ccl` dialect
//! loaded, parsing that checks the verifier, and running one pass step by
//! hand to see what it declared changed.

use crate::{
    framework::{Changes, DiagnosticSink, PassContext, PassInfo, PassOptions, Statistics},
    names::Interned,
};
use melior::{
    ir::{operation::OperationLike, Module, OperationRef},
    Context,
};

/// A single-threaded context with every upstream dialect and ccl (the
/// root crate compiles the dialect; this crate only links it in tests).
pub fn context() -> Context {
    cclir::dialect::create_context(false, false)
}

pub fn parse<'c>(context: &'c Context, source: &str) -> Module<'c> {
    let module = Module::parse(context, source).expect("test IR parses");
    assert!(module.as_operation().verify(), "test IR verifies");
    module
}

/// The `func.func` called `name` at the top of `module`.
pub fn function<'c, 'a>(module: &'a Module<'c>, name: &str) -> OperationRef<'c, 'a> {
    crate::ir::SymbolTable::of_module(module.as_operation()).lookup_function(name).expect("function exists")
}

/// The interned names of `module`'s context.
pub fn interned(module: &Module<'_>) -> Interned {
    Interned::new(crate::ir::context_of(module.as_operation()))
}

/// What one run of step `step` of `info` (default options) on `op`
/// declared it changed, as op addresses, and the statistics after it.
pub fn run_step(info: &PassInfo, step: usize, op: OperationRef<'_, '_>, stats: &Statistics) -> Changes {
    let sink = DiagnosticSink::default();
    let mut pass = (info.steps[step].create)(&PassOptions::defaults(info));
    let mut cx = PassContext::new(stats, &sink);
    pass.run(op, &mut cx).expect("the step succeeds");
    assert!(!sink.has_errors());
    cx.take_changes()
}

/// The address `PassContext::changed` records for `op`.
pub fn address(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

/// The statistics of `stats` by name.
pub fn counts(stats: &Statistics) -> Vec<(&'static str, u64)> {
    stats.snapshot().into_iter().map(|(spec, value)| (spec.name, value)).collect()
}
