//! What a ccl pass is, independent of any driver: its description (name,
//! anchor, typed options, typed statistics), the trait it implements, and
//! what it reports.
//!
//! These types live beside the FFI layer, below the passes: the passes
//! crate describes its passes with them (and re-exports this module as
//! `cclir_passes::framework`), and the pass bridge ([`crate::ffi::bridge`])
//! turns every [`PassInfo`] into one C++ `mlir::Pass` registered with MLIR,
//! so MLIR's pipeline parser, `--help`, `--list-passes` and
//! `--dump-pass-pipeline` know it like an upstream pass. Neither needs the
//! other's crate.

use melior::ir::{operation::OperationLike, Location, OperationRef};
use std::{
    any::Any,
    fmt,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
};

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// The type and default of one option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool {
        default: bool,
    },
    /// A signed integer no smaller than `min`.
    Int {
        default: i64,
        min: i64,
    },
    /// One of `choices`, named in pipelines (`placement=minimal`); its
    /// value is the index of the choice. `helps` says what each means.
    Choice {
        default: usize,
        choices: &'static [&'static str],
        helps: &'static [&'static str],
    },
}

/// One option of a pass or named pipeline, as MLIR's `Pass::Option`
/// declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: OptionKind,
}

impl OptionSpec {
    /// `-name : help (type, default)`, the choices on lines of their own.
    fn reference(&self) -> String {
        match self.kind {
            OptionKind::Bool { default } => format!("-{} : {} (default: {default})\n", self.name, self.help),
            OptionKind::Int { default, min } => {
                format!("-{} : {} (an integer, at least {min}; default: {default})\n", self.name, self.help)
            }
            OptionKind::Choice { default, choices, helps } => {
                let mut text = format!("-{} : {} (default: {})\n", self.name, self.help, choices[default]);
                for (choice, help) in choices.iter().zip(helps) {
                    text.push_str(&format!("    {choice} : {help}\n"));
                }
                text
            }
        }
    }

    fn default_value(&self) -> i64 {
        match self.kind {
            OptionKind::Bool { default } => default as i64,
            OptionKind::Int { default, .. } => default,
            OptionKind::Choice { default, .. } => default as i64,
        }
    }
}

/// The index of `name` in `choices`, at compile time (a default that is
/// not one of the choices does not compile).
pub const fn choice_index(choices: &[&str], name: &str) -> usize {
    let mut index = 0;
    while index < choices.len() {
        let (a, b) = (choices[index].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut i = 0;
            while i < a.len() && a[i] == b[i] {
                i += 1;
            }
            if i == a.len() {
                return index;
            }
        }
        index += 1;
    }
    panic!("the default of a choice option must be one of its choices")
}

/// Option values as MLIR parsed them, one per declared option, in
/// declaration order (a bool is 0 or 1).
#[derive(Clone, Copy, Debug)]
pub struct OptionValues<'v>(pub &'v [i64]);

impl OptionValues<'_> {
    /// The defaults of `specs`.
    pub fn defaults(specs: &[OptionSpec]) -> Vec<i64> {
        specs.iter().map(OptionSpec::default_value).collect()
    }

    pub fn int(&self, index: usize) -> i64 {
        self.0[index]
    }

    pub fn bool(&self, index: usize) -> bool {
        self.0[index] != 0
    }

    /// The name of the chosen value of choice option `index` of `specs`.
    pub fn choice(&self, index: usize, specs: &[OptionSpec]) -> &'static str {
        match specs[index].kind {
            OptionKind::Choice { choices, default, .. } => {
                choices.get(self.0[index] as usize).copied().unwrap_or(choices[default])
            }
            _ => panic!("option {} is not a choice", specs[index].name),
        }
    }
}

/// Checks values MLIR parsed against what `specs` accept (MLIR checks the
/// type, this the range), with a message naming the pass and the option.
pub fn check_options(owner: &str, specs: &[OptionSpec], values: OptionValues<'_>) -> Result<(), String> {
    for (index, spec) in specs.iter().enumerate() {
        match spec.kind {
            OptionKind::Int { min, .. } => {
                let value = values.int(index);
                if value < min {
                    return Err(format!(
                        "invalid value {value} for option '{}' of '{owner}': expected an integer >= {min}",
                        spec.name
                    ));
                }
            }
            OptionKind::Choice { choices, .. } => {
                // MLIR's parser accepts only the names; the index is in range.
                let value = values.int(index);
                if usize::try_from(value).map_or(true, |v| v >= choices.len()) {
                    return Err(format!(
                        "invalid value {value} for option '{}' of '{owner}': expected one of {}",
                        spec.name,
                        choices.join(", ")
                    ));
                }
            }
            OptionKind::Bool { .. } => {}
        }
    }
    Ok(())
}

/// A pass's options as a struct with one typed field per option: a typo in
/// a field name fails to compile.
///
/// ```ignore
/// pass_options! {
///     pub struct AdmitOptions {
///         max_blocks: int("max-blocks", "Reject a launch width above N (0: no limit)", default = 0, min = 0),
///         lower_dynamic: bool("lower-dynamic", "Expand dynamic cal ops into arith", default = false),
///         placement: choice("placement", "Where markers go", choices = ["rules" => "...", "minimal" => "..."], default = "rules"),
///     }
/// }
/// ```
#[macro_export]
macro_rules! pass_options {
    (@ty int) => { i64 };
    (@ty bool) => { bool };
    (@ty choice) => { &'static str };
    (@kind int, $default:expr, $min:expr, []) => { $crate::framework::OptionKind::Int { default: $default, min: $min } };
    (@kind bool, $default:expr, $min:expr, []) => { $crate::framework::OptionKind::Bool { default: $default } };
    (@kind choice, $default:expr, $min:expr, [$($choice:literal => $choice_help:literal),*]) => {
        $crate::framework::OptionKind::Choice {
            default: $crate::framework::choice_index(&[$($choice),*], $default),
            choices: &[$($choice),*],
            helps: &[$($choice_help),*],
        }
    };
    (@get int, $values:expr, $index:expr) => { $values.int($index) };
    (@get bool, $values:expr, $index:expr) => { $values.bool($index) };
    (@get choice, $values:expr, $index:expr) => { $values.choice($index, Self::SPECS) };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $field:ident : $kind:ident ( $arg:literal, $help:literal $(, choices = [$($choice:literal => $choice_help:literal),* $(,)?])?, default = $default:expr $(, min = $min:expr)? ) ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis struct $name {
            $( pub $field: $crate::pass_options!(@ty $kind), )*
        }

        impl $name {
            /// The options, in declaration order.
            pub const SPECS: &'static [$crate::framework::OptionSpec] = &[
                $( $crate::framework::OptionSpec {
                    name: $arg,
                    help: $help,
                    kind: $crate::pass_options!(@kind $kind, $default, 0 $(+ $min)?, [$($($choice => $choice_help),*)?]),
                }, )*
            ];

            /// The typed values of MLIR's parse.
            #[allow(unused_assignments, unused_variables, unused_mut)]
            pub fn from_values(values: $crate::framework::OptionValues<'_>) -> Self {
                let mut index = 0usize;
                $(
                    let $field = $crate::pass_options!(@get $kind, values, index);
                    index += 1;
                )*
                Self { $( $field, )* }
            }
        }
    };
}

// ---------------------------------------------------------------------------
// Statistics (Debian's MLIR compiles pass statistics out, so ours are Rust-side)
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatisticSpec {
    pub name: &'static str,
    pub description: &'static str,
}

/// The counters of one pass instance of a pipeline, one per declared
/// statistic. The clones MLIR makes of a pass for its threads share them,
/// so their counts add up.
#[derive(Clone, Debug)]
pub struct Counters {
    specs: &'static [StatisticSpec],
    values: Arc<[AtomicU64]>,
}

impl Counters {
    pub fn new(specs: &'static [StatisticSpec]) -> Self {
        Self { specs, values: specs.iter().map(|_| AtomicU64::new(0)).collect() }
    }

    /// Each statistic with its value, in declaration order.
    pub fn snapshot(&self) -> Vec<(StatisticSpec, u64)> {
        self.specs.iter().zip(self.values.iter()).map(|(s, v)| (*s, v.load(Ordering::Relaxed))).collect()
    }

    /// The counter of statistic `index`.
    pub fn counter(&self, index: usize) -> Counter {
        Counter { values: self.values.clone(), index }
    }
}

/// One statistic of a pass, shared by its clones.
#[derive(Clone, Debug)]
pub struct Counter {
    values: Arc<[AtomicU64]>,
    index: usize,
}

impl Counter {
    pub fn add(&self, n: u64) {
        if n > 0 {
            self.values[self.index].fetch_add(n, Ordering::Relaxed);
        }
    }

    pub fn get(&self) -> u64 {
        self.values[self.index].load(Ordering::Relaxed)
    }
}

/// A pass's statistics as a struct with one [`Counter`] per statistic: a
/// typo in a field name fails to compile.
///
/// ```ignore
/// pass_statistics! {
///     pub struct FenceStats {
///         fences: "fences", "ccl.fence inserted",
///     }
/// }
/// ```
#[macro_export]
macro_rules! pass_statistics {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $field:ident : $arg:literal, $description:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis struct $name {
            $( pub $field: $crate::framework::Counter, )*
        }

        impl $name {
            /// The statistics, in report order.
            pub const SPECS: &'static [$crate::framework::StatisticSpec] = &[
                $( $crate::framework::StatisticSpec { name: $arg, description: $description }, )*
            ];

            /// The typed view of an instance's counters (made from `SPECS`).
            #[allow(unused_assignments, unused_variables, unused_mut)]
            pub fn bind(counters: &$crate::framework::Counters) -> Self {
                let mut index = 0usize;
                $(
                    let $field = counters.counter(index);
                    index += 1;
                )*
                Self { $( $field, )* }
            }
        }
    };
}

// ---------------------------------------------------------------------------
// What a pass reports
// ---------------------------------------------------------------------------

pub use crate::diagnostics::Severity;

/// A diagnostic a pass emits: at an MLIR location (so MLIR renders it with
/// the source line, and `--verify-diagnostics` matches it), with notes.
#[derive(Clone, Debug)]
pub struct Report<'c> {
    pub severity: Severity,
    pub location: Location<'c>,
    pub message: String,
    pub notes: Vec<(Location<'c>, String)>,
}

impl<'c> Report<'c> {
    pub fn error(location: Location<'c>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Error, location, message: message.into(), notes: Vec::new() }
    }

    /// An error at `op`.
    pub fn error_at(op: OperationRef<'c, '_>, message: impl Into<String>) -> Self {
        Self::error(op.location(), message)
    }

    pub fn with_note(mut self, location: Location<'c>, message: impl Into<String>) -> Self {
        self.notes.push((location, message.into()));
        self
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.severity, self.message)?;
        for (_, note) in &self.notes {
            write!(f, "\n  note: {note}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Passes
// ---------------------------------------------------------------------------

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
