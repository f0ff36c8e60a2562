//! `ccl-verify-comm-order`: the compile-time safety net for "data before
//! signal" (SEMANTICS.md). A checker, not a rewriter: it changes nothing,
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
//! * [`oracle`] is a slow, obviously-exhaustive reference of the kernel
//!   rules, for tests.
//!
//! The guide is docs/passes/verify-comm-order.md.

pub mod kernel;
pub mod lattice;
pub mod model;
pub mod oracle;
pub mod orchestration;

use crate::{
    framework::{
        Anchor, CclPass, Diagnostic, OptionSpec, OptionType, PassContext, PassFailed, PassInfo, PassOptions,
        PassStep, SourceLoc, StatisticSpec,
    },
    names::FunctionKind,
};
use kernel::{Missing, SinkKind, SourceKind, Violation};
use melior::ir::OperationRef;
use model::{Module, OpHandle};
use orchestration::LaunchViolation;

/// Statistic names.
pub mod stat {
    pub const KERNELS: &str = "kernels-checked";
    pub const SCAN_TARGETS: &str = "scan-targets-checked";
    pub const LAUNCHES: &str = "launches-checked";
    pub const VIOLATIONS: &str = "violations";
    pub const DELTA_WALKS: &str = "loop-delta-walks";
}

static STATISTICS: &[StatisticSpec] = &[
    StatisticSpec { name: stat::KERNELS, description: "InCore functions checked" },
    StatisticSpec { name: stat::SCAN_TARGETS, description: "Orchestration-like functions scanned (Phase B)" },
    StatisticSpec { name: stat::LAUNCHES, description: "Call-like ops met after a publish in a scan target" },
    StatisticSpec { name: stat::VIOLATIONS, description: "Violations reported (one per offending pair)" },
    StatisticSpec {
        name: stat::DELTA_WALKS,
        description: "Second walks of a loop body for obligations carried by a back edge",
    },
];

fn create(options: &PassOptions) -> Box<dyn CclPass> {
    Box::new(VerifyCommOrder { max_errors: options.int(MAX_ERRORS).max(0) as usize })
}

const MAX_ERRORS: &str = "max-errors";

static OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: MAX_ERRORS,
    help: "Report at most this many violations (0: all of them); one last error counts the rest",
    ty: OptionType::Int { min: 0 },
    default: "0",
}];

static STEPS: &[PassStep] = &[PassStep { name: "CclVerifyCommOrder", anchor: Anchor::Module, create }];

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-verify-comm-order",
    summary: "Check data-before-signal ordering (markers, waits, post-collective prologues); change nothing",
    description: "Flow-sensitive over structured control flow (both branches, zero or more loop iterations, back \
                  edges): in InCore functions every path from a local publish of window W to a ccl.notify or the \
                  return passes ccl.cacheinvalid(W) (or whole-GM) then ccl.fence; from a remote publish, a fence; \
                  from an opaque publish, whole-GM ccl.cacheinvalid() then ccl.fence; every path from a ccl.wait \
                  to a GM read passes a whole-GM ccl.cacheinvalid(). In orchestration-like functions every InCore \
                  function launched after a publish (directly or through wrappers) invalidates whole-GM before its \
                  first GM read. Each violation is an error at the source with a note at the sink; all are \
                  reported, then the pass fails.",
    options: OPTIONS,
    statistics: STATISTICS,
    steps: STEPS,
};

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

/// Runs both checks on a lowered module.
pub fn analyse(module: &Module) -> Findings {
    let mut findings = Findings::default();
    let mut unprotected: Vec<Option<OpHandle>> = vec![None; module.functions.len()];
    for (index, function) in module.functions.iter().enumerate() {
        if function.kind != FunctionKind::InCore {
            continue;
        }
        findings.kernels_checked += 1;
        let report = kernel::check(function);
        findings.delta_walks += report.delta_walks;
        unprotected[index] = report.unprotected_read.map(|(_, op)| op);
        findings.kernel_violations.extend(report.violations.into_iter().map(|v| (index, v)));
    }
    let phase_b = orchestration::check(module, &unprotected);
    findings.scan_targets = phase_b.scan_targets;
    findings.launches_checked = phase_b.launches_checked;
    findings.launch_violations = phase_b.violations;
    findings
}

/// The pass.
pub struct VerifyCommOrder {
    /// 0: no limit.
    pub max_errors: usize,
}

/// The checker's stack: lowering and the walks recurse once per nesting
/// level, and MLIR parses nests thousands deep, so the check runs on a
/// thread of its own with room for them (reserved, not committed, memory).
const STACK_BYTES: usize = 1 << 30;

/// What one run reports, made on the checker's thread.
struct Outcome {
    diagnostics: Vec<Diagnostic>,
    stats: Vec<(&'static str, u64)>,
    failed: bool,
}

/// A module handle that may cross to the checker's thread: the pass
/// manager's thread waits for it, so nothing else touches the IR meanwhile.
struct ModuleHandle(OpHandle);
unsafe impl Send for ModuleHandle {}

impl CclPass for VerifyCommOrder {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // A checker: it never changes the IR, so verify-each has nothing to do.
        cx.preserve_all();
        let handle = ModuleHandle(op.to_raw().ptr as usize);
        let max_errors = self.max_errors;
        let joined = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("ccl-verify-comm-order".to_string())
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let handle = handle;
                    check_module(handle.0, max_errors)
                })
                .map(|thread| thread.join())
        });
        let outcome = match joined {
            Ok(Ok(outcome)) => outcome,
            // A panic is the framework's to report as an internal error.
            Ok(Err(payload)) => std::panic::resume_unwind(payload),
            // No thread to be had: check on this one.
            Err(_) => check_module(op.to_raw().ptr as usize, max_errors),
        };
        for (name, value) in outcome.stats {
            cx.stats.add(name, value);
        }
        for diagnostic in outcome.diagnostics {
            cx.report(diagnostic);
        }
        if outcome.failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}

fn check_module(handle: OpHandle, max_errors: usize) -> Outcome {
    // SAFETY: the module the pass runs on, alive and unchanged for the run.
    let op = unsafe { model::op_ref(handle) };
    let module = match model::lower_module(op) {
        Ok(module) => module,
        Err(bad) => {
            return Outcome {
                diagnostics: bad.into_iter().map(|kind| Diagnostic::error(loc(kind.op), kind.message)).collect(),
                stats: Vec::new(),
                failed: true,
            }
        }
    };
    let findings = analyse(&module);
    let total = findings.violation_count();
    let shown = if max_errors == 0 { total } else { total.min(max_errors) };
    let mut diagnostics = diagnostics(&module, &findings, shown);
    if shown < total {
        diagnostics.push(Diagnostic::error(
            SourceLoc::of(&op),
            format!("{} more communication-order violations not shown ({MAX_ERRORS}={max_errors})", total - shown),
        ));
    }
    Outcome {
        diagnostics,
        stats: vec![
            (stat::KERNELS, findings.kernels_checked),
            (stat::SCAN_TARGETS, findings.scan_targets),
            (stat::LAUNCHES, findings.launches_checked),
            (stat::DELTA_WALKS, findings.delta_walks),
            (stat::VIOLATIONS, total as u64),
        ],
        failed: total > 0,
    }
}

fn loc(handle: OpHandle) -> SourceLoc {
    // SAFETY: handles come from lowering the module this run is checking,
    // which nothing has changed since.
    let op = unsafe { model::op_ref(handle) };
    SourceLoc::of(&op)
}

fn op_name(handle: OpHandle) -> String {
    let op = unsafe { model::op_ref(handle) };
    crate::ir::op_name(op).to_string()
}

/// The error message of a kernel violation.
pub fn kernel_message(v: &Violation) -> String {
    let sink = match v.sink_kind {
        SinkKind::Notify => "a ccl.notify",
        SinkKind::Return => "the function's return",
        SinkKind::GmRead => "a GM read",
    };
    match (v.source_kind, v.missing) {
        (SourceKind::Local, Missing::Invalidate) => format!(
            "local publish reaches {sink} without ccl.cacheinvalid of the written window followed by ccl.fence"
        ),
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

fn kernel_note(v: &Violation) -> String {
    match v.sink_kind {
        SinkKind::Notify => "the ccl.notify it reaches".to_string(),
        SinkKind::Return => "the return it reaches".to_string(),
        SinkKind::GmRead => format!("the GM read ({}) it reaches", op_name(v.sink)),
    }
}

/// The first `limit` diagnostics of a run: kernel violations per function
/// in module order, then Phase B violations in scan order.
pub fn diagnostics(module: &Module, findings: &Findings, limit: usize) -> Vec<Diagnostic> {
    let mut out = Vec::with_capacity(findings.violation_count().min(limit));
    for (_, v) in findings.kernel_violations.iter().take(limit) {
        out.push(Diagnostic::error(loc(v.source), kernel_message(v)).with_note(loc(v.sink), kernel_note(v)));
    }
    let left = limit.saturating_sub(out.len());
    for v in findings.launch_violations.iter().take(left) {
        let kernel = &module.functions[v.kernel].name;
        let message = match v.wrapper {
            None => format!(
                "InCore function @{kernel} is launched after a publish but reads GM before a whole-GM \
                 ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence"
            ),
            Some(wrapper) => format!(
                "call to @{} launches InCore function @{kernel} after a publish, but @{kernel} reads GM before a \
                 whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence",
                module.functions[wrapper].name
            ),
        };
        out.push(
            Diagnostic::error(loc(v.call), message)
                .with_note(loc(v.read), format!("the first GM read of @{kernel} it reaches"))
                .with_note(loc(v.publish), "the publish it runs after"),
        );
    }
    out
}
