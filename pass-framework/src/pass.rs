//! What a pass is: its description ([`PassInfo`], [`PipelineInfo`]), the
//! trait it implements ([`CclPass`]), and what it sees of MLIR while it
//! runs ([`PassContext`] over a [`Host`]).

use crate::{Counters, OptionSpec, OptionValues, Report, StatisticSpec};
use melior::ir::OperationRef;
use std::{any::Any, fmt};

/// The operation a pass is anchored on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Module,
    Function,
    /// Op-agnostic: the pass runs on whatever op the pipeline nests it
    /// under (`builtin.module(p)` or `builtin.module(func.func(p))`).
    Any,
}

impl Anchor {
    /// The op name MLIR anchors the pass on; `None` for an op-agnostic one.
    pub fn op_name(self) -> Option<&'static str> {
        match self {
            Anchor::Module => Some("builtin.module"),
            Anchor::Function => Some("func.func"),
            Anchor::Any => None,
        }
    }
}

/// Marker for a failed pass run; the reason was reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassFailed;

/// A value a pass computed about the op it ran on, for the passes nested
/// under that op (MLIR's analysis manager keeps it).
pub type Analysis = Box<dyn Any + Send + Sync>;

/// What the tool layer gives a running pass: MLIR's diagnostic engine, its
/// thread pool and its analysis manager.
pub trait Host {
    /// Emits `report` through the diagnostic engine of its location's context.
    fn emit(&self, report: Report<'_>);
    /// Runs `task(i)` for every `i < count`, on the thread pool of the
    /// context the pass runs in (in order on this thread without threading).
    fn parallel_for(&self, count: usize, task: &(dyn Fn(usize) + Sync));
    /// Caches `value` as the analysis of the op the pass runs on, preserved
    /// by this run, until a later pass changes that op.
    fn cache_analysis(&self, value: Analysis);
    /// The analysis cached on the parent of the op the pass runs on, while
    /// it is valid.
    fn cached_parent_analysis(&self) -> Option<&(dyn Any + Send + Sync)>;
    /// Runs `pipeline` (`builtin.module(...)`, MLIR's textual form) on
    /// `op`, an op nested in the one the pass runs on, as MLIR's dynamic
    /// pipelines do; whether it succeeded (failures were reported).
    fn run_pipeline(&self, op: OperationRef<'_, '_>, pipeline: &str) -> bool;
    /// Erases `op`, nested in the op the pass runs on: out of the IR now,
    /// destroyed after the run (so no reference the pass still holds can
    /// reach freed memory). Panics if `op` is not nested in that op (or was
    /// erased already) or a result of it is still used.
    fn erase(&self, op: OperationRef<'_, '_>);
}

/// What a pass sees of the tool layer while it runs.
pub struct PassContext<'h> {
    host: &'h dyn Host,
    preserved_all: bool,
}

impl<'h> PassContext<'h> {
    pub fn new(host: &'h dyn Host) -> Self {
        Self { host, preserved_all: false }
    }

    pub fn report(&mut self, report: Report<'_>) {
        self.host.emit(report);
    }

    /// Emits `report` (an error) and returns the failure to propagate.
    pub fn fail(&mut self, report: Report<'_>) -> PassFailed {
        self.report(report);
        PassFailed
    }

    /// Declares that this run changed nothing, so MLIR keeps its analyses
    /// and skips verify-each after it.
    pub fn preserve_all(&mut self) {
        self.preserved_all = true;
    }

    pub fn preserved_all(&self) -> bool {
        self.preserved_all
    }

    /// Erases `op` ([`Eraser::erase`]).
    pub fn erase(&self, op: OperationRef<'_, '_>) {
        self.host.erase(op);
    }

    /// What erases ops for this run, for the parts of a pass that do not
    /// hold the context (a walk's state); it borrows nothing of the context.
    pub fn eraser(&self) -> Eraser<'h> {
        Eraser { host: self.host }
    }

    pub fn parallel_for(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        self.host.parallel_for(count, task);
    }

    /// `task(i)` for every `i < count`, run as [`PassContext::parallel_for`]
    /// runs them, collected in index order.
    pub fn parallel_map<T: Send>(&self, count: usize, task: impl Fn(usize) -> T + Sync) -> Vec<T> {
        let slots: Vec<std::sync::Mutex<Option<T>>> = (0..count).map(|_| std::sync::Mutex::new(None)).collect();
        self.parallel_for(count, &|index| {
            *slots[index].lock().unwrap_or_else(|poison| poison.into_inner()) = Some(task(index));
        });
        slots
            .into_iter()
            .map(|slot| slot.into_inner().unwrap_or_else(|poison| poison.into_inner()).expect("every task ran"))
            .collect()
    }

    /// Hands `value` to the passes nested under the op this pass runs on
    /// ([`PassContext::cached_parent_analysis`]), through MLIR's analysis
    /// manager: it stays valid until a pass changes the op.
    pub fn cache_analysis<T: Any + Send + Sync>(&mut self, value: T) {
        self.host.cache_analysis(Box::new(value));
    }

    /// Runs `pipeline` on `op`, nested in the op this pass runs on (MLIR's
    /// dynamic pipelines); the failure to propagate when it failed (MLIR
    /// reported why).
    pub fn run_pipeline(&mut self, op: OperationRef<'_, '_>, pipeline: &str) -> Result<(), PassFailed> {
        if self.host.run_pipeline(op, pipeline) {
            Ok(())
        } else {
            Err(PassFailed)
        }
    }

    /// What the pass that ran on the parent op cached, if it is still
    /// valid and a `T`.
    pub fn cached_parent_analysis<T: Any + Send + Sync>(&self) -> Option<&'h T> {
        self.host.cached_parent_analysis().and_then(|value| value.downcast_ref::<T>())
    }
}

/// Erases ops during a pass run ([`PassContext::eraser`]).
#[derive(Clone, Copy)]
pub struct Eraser<'h> {
    host: &'h dyn Host,
}

impl Eraser<'_> {
    /// Erases `op`, nested in the op the pass runs on, whose results have
    /// no uses left (replace them first): it leaves the IR at once (walks
    /// and links no longer reach it, and a walk in progress goes on after
    /// it), and is destroyed when the run ends, so the references to it the
    /// pass still holds stay valid until then: collect ops, then erase
    /// them, or erase as a walk meets them. Panics (an internal error of
    /// the pass) on an op erased already or not nested in the op the pass
    /// runs on.
    pub fn erase(self, op: OperationRef<'_, '_>) {
        self.host.erase(op);
    }
}

impl fmt::Debug for Eraser<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Eraser")
    }
}

/// A ccl pass. MLIR clones a pass for each thread it runs it on; each clone
/// gets its own object, made by [`PassInfo::create`] from the same options
/// and sharing the statistics counters.
pub trait CclPass: Send {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed>;
}

/// The description of a registered pass: everything MLIR's registry, the
/// pipeline parser and `--help` show comes from here.
pub struct PassInfo {
    /// The textual-pipeline name (`ccl-insert-comm-fence`).
    pub argument: &'static str,
    /// The name timing reports and IR dumps show (`CclInsertCommFence`).
    pub name: &'static str,
    /// One line for `--help` and `--list-passes`.
    pub summary: &'static str,
    /// What the pass does, in Markdown: the opening of its page in
    /// docs/passes/ ([`PassInfo::reference`]).
    pub description: &'static str,
    pub anchor: Anchor,
    /// Dialects the pass creates ops of (loaded before it runs).
    pub dependent_dialects: &'static [&'static str],
    pub options: &'static [OptionSpec],
    pub statistics: &'static [StatisticSpec],
    pub create: fn(OptionValues<'_>, &Counters) -> Box<dyn CclPass>,
}

impl PassInfo {
    /// The pass's reference in Markdown, as `mlir-tblgen -gen-pass-doc`
    /// makes one from `Passes.td`: the argument, the summary, the
    /// description, the options and the statistics. Each page in
    /// docs/passes/ opens with it.
    pub fn reference(&self) -> String {
        let mut text = format!("# `{}`\n\n_{}_\n\n{}\n", self.argument, self.summary, self.description.trim_end());
        if !self.options.is_empty() {
            text.push_str("\n## Options\n\n```\n");
            for option in self.options {
                text.push_str(&option.reference());
            }
            text.push_str("```\n");
        }
        if !self.statistics.is_empty() {
            text.push_str("\n## Statistics\n\n```\n");
            for statistic in self.statistics {
                text.push_str(&format!("{} : {}\n", statistic.name, statistic.description));
            }
            text.push_str("```\n");
        }
        text
    }
}

impl fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PassInfo").field("argument", &self.argument).finish()
    }
}

/// A named pipeline, with options: `build` turns option values into the
/// pipeline's elements (`ccl-admit-launch-width{max-blocks=8},...`).
pub struct PipelineInfo {
    pub argument: &'static str,
    pub summary: &'static str,
    pub options: &'static [OptionSpec],
    pub build: fn(OptionValues<'_>) -> String,
}

impl fmt::Debug for PipelineInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PipelineInfo").field("argument", &self.argument).finish()
    }
}
