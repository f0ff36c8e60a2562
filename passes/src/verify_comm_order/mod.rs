//! `ccl-verify-comm-order`: the compile-time safety net for "data before
//! signal" (docs/semantics.md). A checker, not a rewriter: it changes nothing,
//! reports every violation of a run as a located error with a note at the
//! other end of the offending path, then fails.
//!
//! * [`model`] lowers the module to a small tree of the ops that matter;
//! * [`lattice`] is the abstract domain (pending obligations, stage
//!   relations and region summaries);
//! * [`kernel`] checks one InCore function (publishes to notify/return,
//!   waits to GM reads, and whether the entry reaches a GM read without a
//!   whole-GM invalidate);
//! * [`orchestration`] checks Phase B (kernels launched after a publish);
//! * `oracle` is a slow, obviously-exhaustive reference of the kernel
//!   rules, for tests only (`cfg(test)`, or the `test-oracles` feature).
//!
//! The guide is docs/passes/verify-comm-order.md.

pub mod kernel;
pub mod lattice;
pub mod launches;
/// Only for tests (the unit tests, and the property tests through the
/// `test-oracles` feature): not in the shipped library.
#[cfg(any(test, feature = "test-oracles"))]
pub mod oracle;

use crate::comm_order::model::{self, Bodies, Module, OpKey};
use crate::ir::Exclusive;
use crate::{
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report},
    pass_options, pass_statistics,
};
use cclir_dialect::names::symbol_ref;
use cclir_dialect::names::FunctionKind;
use cclir_dialect::names::Interned;
use kernel::{KernelReport, Missing, SinkKind, SourceKind, Violation};
use launches::LaunchViolation;
use melior::ir::{operation::OperationLike, OperationRef};

pass_options! {
    /// The checker's options.
    pub struct VerifyOptions {
        max_errors: int("max-errors", "Report at most this many violations (0: all of them); one last error counts the rest", default = 0, min = 0),
    }
}

pass_statistics! {
    /// What one run checked and found.
    pub struct VerifyStatistics {
        kernels: "kernels-checked", "InCore functions checked",
        scan_targets: "scan-targets-checked", "Orchestration-like functions scanned (Phase B)",
        launches: "launches-checked", "Call-like ops met after a publish in a scan target",
        violations: "violations", "Violations reported (one per offending pair)",
        delta_walks: "loop-delta-walks", "Second walks of a loop body for obligations carried by a back edge",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-verify-comm-order",
    name: "CclVerifyCommOrder",
    summary: "Check data-before-signal ordering (markers, waits, post-collective prologues); change nothing",
    description: "The hardware toolchain never checks \"data before signal\": a missing marker is\n\
        a silent data race, not a build error. This pass is the compile-time safety\n\
        net. It is a checker, not a rewriter: it changes nothing (the output is\n\
        byte-identical to the input), reports **every** violation of the run as a\n\
        located error with a note at the other end of the offending path, then fails\n\
        (exit code 1 under `ccl-opt`). Everything `ccl-insert-comm-fence` produces\n\
        passes it; `ccl-pipeline` runs it last.",
    anchor: Anchor::Module,
    dependent_dialects: &[],
    options: VerifyOptions::SPECS,
    statistics: VerifyStatistics::SPECS,
    create,
};

fn create(values: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    let options = VerifyOptions::from_values(values);
    Box::new(VerifyCommOrder { max_errors: options.max_errors as usize, stats: VerifyStatistics::bind(counters) })
}

/// Everything one run found, before it becomes diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    pub kernels_checked: u64,
    pub scan_targets: u64,
    pub launches_checked: u64,
    pub delta_walks: u64,
    /// Per InCore function (module order), its violations.
    pub kernel_violations: Vec<(usize, Violation)>,
    pub launch_violations: Vec<LaunchViolation>,
}

impl Findings {
    pub fn violation_count(&self) -> usize {
        self.kernel_violations.len() + self.launch_violations.len()
    }
}

/// Runs both checks on a lowered module (every body lowered).
pub fn analyse(module: &Module) -> Findings {
    let reports = module
        .functions
        .iter()
        .map(|function| (function.kind == FunctionKind::InCore).then(|| kernel::check(function)))
        .collect();
    combine(module, reports)
}

/// Runs both checks on a module lowered with `Bodies::NotInCore`: each
/// kernel is lowered and checked as its own task on the context's thread
/// pool (a kernel's rules read only that kernel), then Phase B runs here.
pub fn analyse_in_parallel(
    program: OperationRef<'_, '_>,
    module: &Module,
    names: &Interned,
    cx: &PassContext<'_>,
) -> Findings {
    let kernels: Vec<usize> =
        (0..module.functions.len()).filter(|&i| module.functions[i].kind == FunctionKind::InCore).collect();
    let functions = model::function_ops(program, names);
    let tasks = Exclusive::new(kernels.iter().map(|&f| functions[f]).collect());
    let checked = cx.parallel_map(kernels.len(), |task| {
        let func = tasks.take(task).expect("one task per kernel");
        kernel::check(&model::lower_body(module, kernels[task], func, names))
    });
    let mut reports: Vec<Option<KernelReport>> = vec![None; module.functions.len()];
    for (index, report) in kernels.into_iter().zip(checked) {
        reports[index] = Some(report);
    }
    combine(module, reports)
}

/// The findings of the kernel reports (in module order, `None` for the
/// functions that are not InCore) and of Phase B.
fn combine(module: &Module, reports: Vec<Option<KernelReport>>) -> Findings {
    let mut findings = Findings::default();
    let mut unprotected: Vec<Option<OpKey>> = vec![None; module.functions.len()];
    for (index, report) in reports.into_iter().enumerate() {
        let Some(report) = report else { continue };
        findings.kernels_checked += 1;
        findings.delta_walks += report.delta_walks;
        unprotected[index] = report.unprotected_read.map(|(_, op)| op);
        findings.kernel_violations.extend(report.violations.into_iter().map(|v| (index, v)));
    }
    let phase_b = launches::check(module, &unprotected);
    findings.scan_targets = phase_b.scan_targets;
    findings.launches_checked = phase_b.launches_checked;
    findings.launch_violations = phase_b.violations;
    findings
}

/// The pass.
pub struct VerifyCommOrder {
    /// 0: no limit.
    pub max_errors: usize,
    stats: VerifyStatistics,
}

/// The module lowered and checked: its findings, or the functions of
/// unknown kind. Lowering and the walks recurse once per nesting level of
/// the IR, within the stack the tool layer runs passes on (ccl-opt's
/// reserved 8 GiB; the library bounds nesting at parse time).
type Checked<'c> = Result<(Module, Findings), Vec<model::BadKind<'c>>>;

fn check<'c>(op: OperationRef<'c, '_>, cx: &PassContext<'_>) -> Checked<'c> {
    let module = model::lower_module_in_parallel(op, Bodies::NotInCore, cx)?;
    let names = Interned::new(crate::ir::context_of(op));
    let findings = analyse_in_parallel(op, &module, &names, cx);
    Ok((module, findings))
}

impl CclPass for VerifyCommOrder {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // A checker: it never changes the IR.
        cx.preserve_all();
        // Each nested module is a program of its own, checked as if alone;
        // `max-errors` bounds the violations shown over all of them.
        let mut total = 0;
        let mut shown = 0;
        let mut failed = false;
        for program in crate::ir::programs(op) {
            let (module, findings) = match check(program, cx) {
                Ok(checked) => checked,
                Err(bad) => {
                    for kind in bad {
                        cx.report(Report::error(kind.location, kind.message));
                    }
                    failed = true;
                    continue;
                }
            };
            let stats = &self.stats;
            stats.kernels.add(findings.kernels_checked);
            stats.scan_targets.add(findings.scan_targets);
            stats.launches.add(findings.launches_checked);
            stats.delta_walks.add(findings.delta_walks);
            let count = findings.violation_count();
            stats.violations.add(count as u64);
            let limit = if self.max_errors == 0 { count } else { count.min(self.max_errors - shown) };
            for report in reports(program, &module, &findings, limit) {
                cx.report(report);
            }
            total += count;
            shown += limit;
        }
        if shown < total {
            cx.report(Report::error_at(
                op,
                format!(
                    "{} more communication-order violations not shown (max-errors={})",
                    total - shown,
                    self.max_errors
                ),
            ));
        }
        if failed || total > 0 {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}

/// The error message of a kernel violation.
pub fn kernel_message(v: &Violation) -> String {
    let sink = match v.sink_kind {
        SinkKind::Notify => "a ccl.notify",
        SinkKind::Return => "the function's return",
        SinkKind::GmRead => "a GM read",
    };
    match (v.source_kind, v.missing) {
        (SourceKind::Local, Missing::Invalidate) => {
            format!("local publish reaches {sink} without ccl.cacheinvalid of the written window followed by ccl.fence")
        }
        (SourceKind::Local, _) => {
            format!("local publish reaches {sink} without ccl.fence after the ccl.cacheinvalid of its window")
        }
        (SourceKind::Remote, _) => format!("remote publish reaches {sink} without ccl.fence"),
        (SourceKind::Opaque, Missing::Invalidate) => {
            format!("opaque publish reaches {sink} without whole-GM ccl.cacheinvalid() followed by ccl.fence")
        }
        (SourceKind::Opaque, _) => {
            format!("opaque publish reaches {sink} without ccl.fence after the whole-GM ccl.cacheinvalid()")
        }
        (SourceKind::Wait, _) => format!("ccl.wait reaches {sink} without a whole-GM ccl.cacheinvalid() after it"),
    }
}

fn kernel_note(v: &Violation, sink: OperationRef<'_, '_>) -> String {
    match v.sink_kind {
        SinkKind::Notify => "the ccl.notify it reaches".to_string(),
        SinkKind::Return => "the return it reaches".to_string(),
        SinkKind::GmRead => format!("the GM read ({}) it reaches", crate::ir::op_name(sink)),
    }
}

/// The first `limit` diagnostics of a run on `program` (the module the
/// findings are of, unchanged since): kernel violations per function in
/// module order, then Phase B violations in scan order.
pub fn reports<'c>(
    program: OperationRef<'c, '_>,
    module: &Module,
    findings: &Findings,
    limit: usize,
) -> Vec<Report<'c>> {
    let kernel_violations = &findings.kernel_violations[..findings.kernel_violations.len().min(limit)];
    let left = limit.saturating_sub(kernel_violations.len());
    let launch_violations = &findings.launch_violations[..findings.launch_violations.len().min(left)];
    let keys: Vec<OpKey> = kernel_violations
        .iter()
        .flat_map(|(_, v)| [v.source, v.sink])
        .chain(launch_violations.iter().flat_map(|v| [v.call, v.read, v.publish]))
        .collect();
    let ops = model::find_ops(program, &keys);
    let op = |key: OpKey| *ops.get(&key).expect("a violation's ops are in the program it was found in");
    let loc = |key: OpKey| op(key).location();
    let mut out = Vec::with_capacity(kernel_violations.len() + launch_violations.len());
    for (_, v) in kernel_violations {
        out.push(Report::error(loc(v.source), kernel_message(v)).with_note(loc(v.sink), kernel_note(v, op(v.sink))));
    }
    for v in launch_violations {
        let kernel = symbol_ref(&module.functions[v.kernel].name);
        let message = match v.wrapper {
            None => format!(
                "InCore function {kernel} is launched after a publish but reads GM before a whole-GM \
                 ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence"
            ),
            Some(wrapper) => format!(
                "call to {} launches InCore function {kernel} after a publish, but {kernel} reads GM before a \
                 whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence",
                symbol_ref(&module.functions[wrapper].name)
            ),
        };
        out.push(
            Report::error(loc(v.call), message)
                .with_note(loc(v.read), format!("the first GM read of {kernel} it reaches"))
                .with_note(loc(v.publish), "the publish it runs after"),
        );
    }
    out
}
