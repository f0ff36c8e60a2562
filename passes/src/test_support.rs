//! What the passes' unit tests share: a context with the `ccl` dialect
//! loaded, parsing that checks the verifier, and running one pass step by
//! hand to see what it declared changed.

use crate::framework::{Analysis, Counters, Host, OptionValues, PassContext, PassFailed, PassInfo, Report};
use cclir_dialect::names::Interned;
use melior::{
    ir::{operation::OperationLike, Module, OperationRef},
    Context,
};

/// A single-threaded context with every upstream dialect and ccl.
pub fn context() -> Context {
    cclir_dialect::create_context(false, false)
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
/// order on this thread; `parent` plays the analysis a pass on the parent
/// op cached, `cached` collects what the run caches; what the run erases
/// leaves the IR and is never destroyed (the tests' memory is not worth a
/// scope).
pub struct TestHost {
    pub reports: std::cell::RefCell<Vec<String>>,
    pub parent: Option<Analysis>,
    pub cached: std::cell::RefCell<Vec<Analysis>>,
    pub erasures: crate::ir::Erasures,
}

impl Default for TestHost {
    fn default() -> Self {
        Self {
            reports: Default::default(),
            parent: None,
            cached: Default::default(),
            erasures: crate::ir::Erasures::leaking(),
        }
    }
}

/// An eraser for tests that run a pass's pieces by hand (a leaked
/// [`TestHost`]'s).
pub fn eraser() -> crate::framework::Eraser<'static> {
    let host: &'static TestHost = Box::leak(Box::default());
    PassContext::new(host).eraser()
}

impl Host for TestHost {
    fn emit(&self, report: Report<'_>) {
        self.reports.borrow_mut().push(report.to_string());
    }

    fn parallel_for(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count).for_each(task);
    }

    fn cache_analysis(&self, value: Analysis) {
        self.cached.borrow_mut().push(value);
    }

    fn cached_parent_analysis(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.parent.as_deref()
    }

    fn run_pipeline(&self, _: OperationRef<'_, '_>, pipeline: &str) -> bool {
        // No pass manager here: what was asked is recorded, as a failure.
        self.reports.borrow_mut().push(format!("run_pipeline: {pipeline}"));
        false
    }

    fn erase(&self, op: OperationRef<'_, '_>) {
        self.erasures.erase(op);
    }
}

/// One run of `info` (default options) on `op` that must succeed: whether
/// it declared that it changed nothing, and the statistics after it.
pub fn run_pass(info: &PassInfo, op: OperationRef<'_, '_>) -> RunOutcome {
    let host = TestHost::default();
    let outcome = run_pass_with(info, op, &host).expect("the pass succeeds");
    assert!(host.reports.borrow().is_empty(), "{:?}", host.reports.borrow());
    outcome
}

/// One run of `info` (default options) on `op` with `host`, which keeps
/// what the run reported and cached.
pub fn run_pass_with(info: &PassInfo, op: OperationRef<'_, '_>, host: &TestHost) -> Result<RunOutcome, PassFailed> {
    let counters = Counters::new(info.statistics);
    let defaults = OptionValues::defaults(info.options);
    let mut pass = (info.create)(OptionValues(&defaults), &counters);
    let mut cx = PassContext::new(host);
    pass.run(op, &mut cx)?;
    Ok((cx.preserved_all(), counters.snapshot().into_iter().map(|(spec, value)| (spec.name, value)).collect()))
}

/// Whether a run declared that it changed nothing, and its statistics.
pub type RunOutcome = (bool, Vec<(&'static str, u64)>);
