//! What the passes' unit tests share: a context with the `ccl` dialect
//! loaded, parsing that checks the verifier, and running one pass step by
//! hand to see what it declared changed.

use crate::{
    framework::{Counters, Host, OptionValues, PassContext, PassInfo, Report},
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
    let body = crate::ir::regions(module.as_operation()).flat_map(crate::ir::blocks);
    body.flat_map(crate::ir::ops).find(|op| crate::ir::symbol_name(*op) == Some(name)).expect("function exists")
}

/// The interned names of `module`'s context.
pub fn interned(module: &Module<'_>) -> Interned {
    Interned::new(crate::ir::context_of(module.as_operation()))
}

/// What a pass run reported, as text, and its thread pool: the tasks in
/// order on this thread.
#[derive(Default)]
pub struct TestHost {
    pub reports: std::cell::RefCell<Vec<String>>,
}

impl Host for TestHost {
    fn emit(&self, report: Report<'_>) {
        self.reports.borrow_mut().push(report.to_string());
    }

    fn parallel_for(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count).for_each(task);
    }
}

/// One run of `info` (default options) on `op` that must succeed: whether
/// it declared that it changed nothing, and the statistics after it.
pub fn run_pass(info: &PassInfo, op: OperationRef<'_, '_>) -> (bool, Vec<(&'static str, u64)>) {
    let counters = Counters::new(info.statistics);
    let defaults = OptionValues::defaults(info.options);
    let mut pass = (info.create)(OptionValues(&defaults), &counters);
    let host = TestHost::default();
    let mut cx = PassContext::new(&host);
    pass.run(op, &mut cx).expect("the pass succeeds");
    assert!(host.reports.borrow().is_empty(), "{:?}", host.reports.borrow());
    (cx.preserved_all(), counters.snapshot().into_iter().map(|(spec, value)| (spec.name, value)).collect())
}
