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
//! * [`sync`] checks that the synchronisation orders every two accesses of
//!   one location, one a write, in the run on `ranks` ranks (the races no
//!   marker fixes);
//! * `oracle` is a slow, obviously-exhaustive reference of the kernel
//!   rules, for tests only (`cfg(test)`, or the `test-oracles` feature).
//!
//! The guide is docs/passes/verify-comm-order.md.

pub mod inflight;
pub mod kernel;
pub mod lattice;
pub mod launches;
/// Only for tests (the unit tests, and the property tests through the
/// `test-oracles` feature): not in the shipped library.
#[cfg(any(test, feature = "test-oracles"))]
pub mod oracle;
pub mod sync;
mod walk;

use crate::check_signals::program::{At, ItemKind};
use crate::comm_order::{
    buffers::{Buffers, Markers, PlainReader},
    memory::Aliases,
    model::{self, Bodies, Module, OpKey},
    scan::ScanRules,
};
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
use rustc_hash::{FxHashMap, FxHashSet};

pass_options! {
    /// The checker's options.
    pub struct VerifyOptions {
        max_errors: int("max-errors", "Report at most this many violations (0: all of them); one last error counts the rest", default = 0, min = 0),
        sync: bool("sync", "Prove that the synchronisation orders every two accesses of one location, one a write, in the run on `ranks` ranks (off: the markers alone, no race-freedom verdict)", default = true),
        ranks: int("ranks", "The rank count of the run whose synchronisation is checked, as ccl-sim --ranks P", default = 2, min = 1),
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
        runs: "runs-checked", "Runs of an entry whose synchronisation was checked",
        unordered: "unordered-pairs", "Pairs of accesses the synchronisation may leave unordered (one per pair of ops)",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-verify-comm-order",
    name: "CclVerifyCommOrder",
    summary: "Check data-before-signal ordering (markers, waits, post-collective prologues) and that the synchronisation orders every conflicting access; change nothing",
    description: "The hardware toolchain never checks \"data before signal\": a missing marker is\n\
        a silent data race, not a build error. This pass is the compile-time safety\n\
        net. It is a checker, not a rewriter: it changes nothing (the output is\n\
        byte-identical to the input), reports **every** violation of the run as a\n\
        located error with a note at the other end of the offending path, then fails\n\
        (exit code 1 under `ccl-opt`). Everything `ccl-insert-comm-fence` produces\n\
        passes its marker rules; `ccl-pipeline` runs it last. With `sync` (the\n\
        default) it also writes out the entry's run on `ranks` ranks, as `ccl-sim`\n\
        runs it, and proves that notifies, waits, launches and collectives order\n\
        every two accesses of one location by different blocks, one a write: the\n\
        races no marker fixes. A pair it cannot prove ordered is an error at both\n\
        accesses; a run it cannot write out is an error too (no conclusion).",
    anchor: Anchor::Module,
    dependent_dialects: &[],
    options: VerifyOptions::SPECS,
    statistics: VerifyStatistics::SPECS,
    create,
};

fn create(values: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    let options = VerifyOptions::from_values(values);
    Box::new(VerifyCommOrder {
        max_errors: options.max_errors as usize,
        ranks: options.sync.then_some(options.ranks as u32),
        stats: VerifyStatistics::bind(counters),
    })
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
    /// Beyond the rules (docs/semantics.md, the Soundness paragraph):
    /// per InCore function, two writes that may be in flight together.
    pub inflight: Vec<(usize, inflight::Violation)>,
    /// Beyond the rules: per InCore function, a write of the block (the
    /// remote write, or the call) and a later GM read that may read it
    /// back through a line the block's cache still holds.
    pub read_backs: Vec<(usize, (inflight::Write, OpKey))>,
    /// Plain-buffer stores another block reads (they publish as a
    /// window's), each with one such read.
    pub plain_readers: FxHashMap<OpKey, PlainReader>,
    /// Launches after a publish the rules' Phase B does not see.
    pub sound_launches: Vec<LaunchViolation>,
    /// Launches after another launch that read a line another block's
    /// write may have made stale in their block slot's cache, each with
    /// that write.
    pub stale_launches: Vec<(LaunchViolation, OpKey)>,
}

impl Findings {
    pub fn violation_count(&self) -> usize {
        self.kernel_violations.len()
            + self.launch_violations.len()
            + self.inflight.len()
            + self.read_backs.len()
            + self.sound_launches.len()
            + self.stale_launches.len()
    }
}

/// Runs the rules' checks on a lowered module (every body lowered): the
/// kernel rules and Phase B, without what needs the IR (the rules beyond
/// them: [`analyse_in_parallel`]).
pub fn analyse(module: &Module) -> Findings {
    let reports: Vec<Option<KernelReport>> = module
        .functions
        .iter()
        .map(|function| (function.kind == FunctionKind::InCore).then(|| kernel::check(function)))
        .collect();
    combine(module, &reports)
}

/// Runs every check on a module lowered with `Bodies::NotInCore`: each
/// kernel is lowered and checked as its own task on the context's thread
/// pool (a kernel's rules read only that kernel, and what the program says
/// of its buffers, found first), then the launch checks run here.
pub fn analyse_in_parallel(
    program: OperationRef<'_, '_>,
    module: &Module,
    names: &Interned,
    cx: &PassContext<'_>,
) -> Findings {
    let kernels: Vec<usize> =
        (0..module.functions.len()).filter(|&i| module.functions[i].kind == FunctionKind::InCore).collect();
    let functions = model::function_ops(program, names);
    let kinds = module.functions.iter().map(|f| f.kind).collect();
    let buffers = Buffers::of(names, functions.clone(), kinds, Markers::Placed);
    let plain_readers = buffers.published_plain_stores(names);
    let published: FxHashSet<OpKey> = plain_readers.keys().copied().collect();
    let aliases: Vec<Aliases> = kernels.iter().map(|&k| buffers.aliases(k)).collect();
    let loud = loud_kernels(module, program, names, &buffers);
    let tasks = Exclusive::new(kernels.iter().map(|&f| functions[f]).collect());
    let checked = cx.parallel_map(kernels.len(), |task| {
        let func = tasks.take(task).expect("one task per kernel");
        let (function, ops) = model::lower_kernel(module, kernels[task], func, names, &published);
        let report = kernel::check(&function);
        // A kernel that breaks the rules' discipline is reported for that
        // first (a marker it lacks there is what any fix starts with);
        // the writes in flight are checked once it keeps it.
        if !report.violations.is_empty() {
            return (report, Vec::new(), Vec::new());
        }
        let mut accesses = inflight::IrAccesses::new(&ops, names, aliases[task].clone(), &loud);
        let found = inflight::check(&function, &mut accesses, inflight::Mode::Fences);
        let op = |order: u32| ops.get(order).map(OpKey::of).expect("a conflict names events of the kernel");
        let conflicts: Vec<inflight::Violation> = found.conflicts.iter().map(|c| c.by_ops(&op)).collect();
        let read_backs: Vec<(inflight::Write, OpKey)> = found.read_backs.iter().map(|r| r.by_ops(&op)).collect();
        (report, conflicts, read_backs)
    });
    let mut reports: Vec<Option<KernelReport>> = vec![None; module.functions.len()];
    let mut inflight = Vec::new();
    let mut read_backs = Vec::new();
    for (index, (report, conflicts, backs)) in kernels.into_iter().zip(checked) {
        reports[index] = Some(report);
        inflight.extend(conflicts.into_iter().map(|c| (index, c)));
        read_backs.extend(backs.into_iter().map(|r| (index, r)));
    }
    let mut findings = combine(module, &reports);
    // A plain write only later launches read needs its write-back started
    // before the return (the join lands it); one the launch's other blocks
    // may read, written back and fenced before a notify too.
    findings.kernel_violations.retain(|(_, v)| match plain_readers.get(&v.source) {
        Some(reader) if v.source_kind == SourceKind::Local => match v.sink_kind {
            SinkKind::Return => v.missing == Missing::Invalidate,
            _ => reader.concurrent,
        },
        _ => true,
    });
    findings.inflight = inflight;
    findings.read_backs = read_backs;
    findings.plain_readers = plain_readers;
    beyond_phase_b(module, names, &buffers, &reports, &mut findings);
    findings
}

/// Per function of the module: whether a call of it from a kernel may
/// return with writes in flight (`inflight::leaves_in_flight`), to the
/// fixpoint over kernels calling kernels; true for every function no
/// kernel calls (never asked) and every function that is not InCore.
pub fn loud_kernels(
    module: &Module,
    program: OperationRef<'_, '_>,
    names: &Interned,
    buffers: &Buffers<'_, '_>,
) -> Vec<bool> {
    let mut loud = vec![true; module.functions.len()];
    let callees = buffers.kernel_callees();
    if callees.is_empty() {
        return loud;
    }
    let functions = model::function_ops(program, names);
    let lowered: Vec<(usize, model::Function)> =
        callees.iter().map(|&f| (f, model::lower_body(module, f, functions[f], names))).collect();
    // The least fixpoint: quiet until a callee's answer makes it loud.
    for (f, _) in &lowered {
        loud[*f] = false;
    }
    loop {
        let mut changed = false;
        for (f, function) in &lowered {
            if !loud[*f] && inflight::leaves_in_flight(function, &|_, callee| callee.is_none_or(|c| loud[c])) {
                loud[*f] = true;
                changed = true;
            }
        }
        if !changed {
            return loud;
        }
    }
}

/// The launch checks beyond Phase B: the same scan over what the execution
/// model runs (functions without an orchestration kind, parallel loops'
/// later iterations), and launches after another launch whose reads may
/// meet a line another block's write made stale.
fn beyond_phase_b(
    module: &Module,
    names: &Interned,
    buffers: &Buffers<'_, '_>,
    reports: &[Option<KernelReport>],
    findings: &mut Findings,
) {
    let (sound, stale) = launches_beyond_phase_b(module, names, buffers, reports);
    findings.sound_launches = sound;
    findings.stale_launches = stale;
}

/// The launches that need a prologue beyond Phase B's: after a publish
/// the rules' scan does not count, and after another launch when a read
/// the kernel makes before any whole-GM invalidate may meet a stale line
/// (with the other block's write that may have made it stale). `reports`
/// are the kernels' (module order, `None` for the other functions).
pub fn launches_beyond_phase_b(
    module: &Module,
    names: &Interned,
    buffers: &Buffers<'_, '_>,
    reports: &[Option<KernelReport>],
) -> (Vec<LaunchViolation>, Vec<(LaunchViolation, OpKey)>) {
    let unprotected: Vec<Option<OpKey>> =
        reports.iter().map(|r| r.as_ref().and_then(|r| r.unprotected_read.map(|(_, op)| op))).collect();
    let key = |v: &LaunchViolation| (v.caller, v.call_order, v.kernel);
    let mut seen: FxHashSet<(usize, u32, usize)> =
        launches::check(module, &unprotected).violations.iter().map(key).collect();
    let sound: Vec<LaunchViolation> = launches::check_with(module, ScanRules::SOUND, &unprotected)
        .violations
        .into_iter()
        .filter(|v| !seen.contains(&key(v)))
        .collect();
    seen.extend(sound.iter().map(key));
    // A kernel whose first reads may meet a line another block made stale,
    // launched after a launch of a kernel that may leave a line of that
    // memory in its block slot's cache.
    let mut stale = Vec::new();
    let mut candidates: Vec<(usize, OpKey, OpKey, Vec<bool>)> = Vec::new();
    for (kernel, report) in reports.iter().enumerate() {
        let Some(report) = report else { continue };
        if let Some((read, writer, leavers)) = stale_read(names, buffers, kernel, &report.unprotected_reads) {
            candidates.push((kernel, read, writer, leavers));
        }
    }
    for (kernel, read, writer, leavers) in candidates {
        let mut only: Vec<Option<OpKey>> = vec![None; module.functions.len()];
        only[kernel] = unprotected[kernel];
        let after = launches::check_with(module, ScanRules::after_launches_of(&leavers), &only);
        for mut v in after.violations {
            if seen.contains(&key(&v)) {
                continue;
            }
            v.read = read;
            stale.push((v, writer));
        }
    }
    stale.sort_by_key(|(v, _)| (v.caller, v.call_order, v.kernel));
    (sound, stale)
}

/// The first of `reads` (kernel `kernel`'s GM reads before any whole-GM
/// invalidate) that no region invalidate of its memory comes before and
/// that another block's write may have made stale, with that write and the
/// kernels that may leave a line of its memory (by module index).
fn stale_read(
    names: &Interned,
    buffers: &Buffers<'_, '_>,
    kernel: usize,
    reads: &[(u32, OpKey)],
) -> Option<(OpKey, OpKey, Vec<bool>)> {
    if reads.is_empty() {
        return None;
    }
    let keys: Vec<OpKey> = reads.iter().map(|(_, key)| *key).collect();
    let ops = model::find_ops(buffers.functions[kernel], &keys);
    for key in keys {
        let Some(&read) = ops.get(&key) else { continue };
        if crate::ir::protected_by_region_invalidate(names, read, buffers.markers() == Markers::ByTheRules) {
            continue;
        }
        if let Some((writer, leavers)) = buffers.stale_writer(names, kernel, read) {
            return Some((key, writer, leavers));
        }
    }
    None
}

/// The findings of the kernel reports (in module order, `None` for the
/// functions that are not InCore) and of Phase B.
fn combine(module: &Module, reports: &[Option<KernelReport>]) -> Findings {
    let mut findings = Findings::default();
    let mut unprotected: Vec<Option<OpKey>> = vec![None; module.functions.len()];
    for (index, report) in reports.iter().enumerate() {
        let Some(report) = report else { continue };
        findings.kernels_checked += 1;
        findings.delta_walks += report.delta_walks;
        unprotected[index] = report.unprotected_read.map(|(_, op)| op);
        findings.kernel_violations.extend(report.violations.iter().map(|v| (index, *v)));
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
    /// The rank count of the run the synchronisation check writes out
    /// (`None`: no synchronisation check).
    pub ranks: Option<u32>,
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
            let sync = match self.ranks {
                Some(ranks) => sync_reports(program, ranks),
                None => SyncReports::none(),
            };
            let stats = &self.stats;
            stats.runs.add(sync.ran as u64);
            stats.unordered.add(sync.unordered as u64);
            failed |= !sync.reports.is_empty();
            for report in sync.reports {
                cx.report(report);
            }
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

/// What the synchronisation check of one program reports.
struct SyncReports<'c> {
    ran: bool,
    unordered: usize,
    reports: Vec<Report<'c>>,
}

impl SyncReports<'_> {
    /// No run checked (no entry, or `sync=false`).
    fn none() -> Self {
        SyncReports { ran: false, unordered: 0, reports: Vec::new() }
    }
}

/// The synchronisation check of `program` on `ranks` ranks, as errors: a
/// pair the synchronisation may leave unordered, or a run it cannot follow
/// (no proof). A program without an entry runs nothing: nothing to check.
fn sync_reports<'c>(program: OperationRef<'c, '_>, ranks: u32) -> SyncReports<'c> {
    use crate::check_signals::instantiate::Stop;
    let checked = match sync::check(program, ranks, sync::Bounds::default()) {
        Ok(checked) => checked,
        Err(Stop::NoEntry) => return SyncReports::none(),
        Err(Stop::NoConclusion { at, reason }) => {
            let message = format!(
                "{SYNC_NO_PROOF} the program's accesses on {ranks} ranks: {reason} (sync=false checks the markers \
                 alone)"
            );
            let report = Report::error(at.unwrap_or(program).location(), message);
            return SyncReports { ran: false, unordered: 0, reports: vec![report] };
        }
    };
    let run = &checked.instantiation.program;
    let op = |at: At| checked.instantiation.ops[run.item(at).site as usize];
    let what = |at: At| {
        let collective = if matches!(run.item(at).kind, ItemKind::Collective { .. }) { "the collective " } else { "" };
        let thread = run.threads[at.thread as usize].describe();
        format!("{collective}'{}' ({thread})", crate::ir::op_name(op(at)))
    };
    let reports = checked
        .unordered
        .iter()
        .map(|pair| {
            let element = pair.loc.map_or_else(|| "memory".to_string(), |loc| run.describe_loc(loc));
            let message = format!(
                "{SYNC_RACE}{} writes {element} and nothing orders it with {}: no notify, wait, launch or \
                 collective puts one before the other in every execution on {ranks} ranks, so no marker can make \
                 the value the other sees certain",
                what(pair.write),
                what(pair.other),
            );
            Report::error(op(pair.write).location(), message)
                .with_note(op(pair.other).location(), format!("the other access: {}", what(pair.other)))
        })
        .collect();
    SyncReports { ran: true, unordered: checked.unordered.len(), reports }
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

/// Whether `message` (an error of this pass) reports a race the rules'
/// discipline does not cover (docs/semantics.md, the Soundness paragraph):
/// an output of `ccl-insert-comm-fence` may have these, never the others.
pub fn beyond_the_rules(message: &str) -> bool {
    message.starts_with("plain-buffer write is read by another block")
        || message.contains("may still be in flight when")
        || message.contains("writes of this block may be in flight")
        || message.contains("the rules' Phase B does not count")
        || message.contains("after another launch on this rank")
        || message.starts_with(READ_BACK)
        || message.starts_with(SYNC_RACE)
        || message.starts_with(SYNC_NO_PROOF)
}

/// How the synchronisation check's errors begin: a pair it may leave
/// unordered, and a run it cannot follow.
pub const SYNC_RACE: &str = "data race: ";
pub const SYNC_NO_PROOF: &str = "cannot prove that the synchronisation orders";
/// How the errors of the rule for reading back one's own remote writes
/// begin.
pub const READ_BACK: &str = "this block reads back";

/// The message of a kernel violation whose source is a plain-buffer store
/// another block reads (it publishes as a window's store).
fn plain_message(v: &Violation) -> String {
    let sink = match v.sink_kind {
        SinkKind::Notify => "a ccl.notify",
        SinkKind::Return => "the function's return",
        SinkKind::GmRead => "a GM read",
    };
    match v.missing {
        Missing::Invalidate => format!(
            "plain-buffer write is read by another block but reaches {sink} without ccl.cacheinvalid of the \
             written buffer followed by ccl.fence: its line may never be written back"
        ),
        _ => format!(
            "plain-buffer write is read by another block but reaches {sink} without ccl.fence after the \
             ccl.cacheinvalid of its buffer"
        ),
    }
}

/// How a write of an in-flight conflict reads in a message.
fn write_text(write: &inflight::Write, op: OperationRef<'_, '_>) -> String {
    match write.kind {
        inflight::WriteKind::Remote => format!("this {}", crate::ir::op_name(op)),
        inflight::WriteKind::WriteBack => format!("the write-back of this {}", crate::ir::op_name(op)),
        inflight::WriteKind::Leftover => {
            "the write-back of lines earlier launches left dirty in this block slot's cache, started here".into()
        }
        inflight::WriteKind::Call => "this call, which may leave any write in flight,".into(),
        inflight::WriteKind::Many => format!(
            "one of the more than {} writes that may be in flight (or lines dirty) here with no ccl.fence between them",
            inflight::MAX_FACTS
        ),
    }
}

/// The first `limit` diagnostics of a run on `program` (the module the
/// findings are of, unchanged since): kernel violations per function in
/// module order (the rules', and plain-buffer writes other blocks read),
/// Phase B violations in scan order, then writes in flight together per
/// function, then launches Phase B does not see.
pub fn reports<'c>(
    program: OperationRef<'c, '_>,
    module: &Module,
    findings: &Findings,
    limit: usize,
) -> Vec<Report<'c>> {
    let mut left = limit;
    let mut take = |len: usize| {
        let n = len.min(left);
        left -= n;
        n
    };
    let kernel_violations = &findings.kernel_violations[..take(findings.kernel_violations.len())];
    let launch_violations = &findings.launch_violations[..take(findings.launch_violations.len())];
    let inflight = &findings.inflight[..take(findings.inflight.len())];
    let read_backs = &findings.read_backs[..take(findings.read_backs.len())];
    let sound_launches = &findings.sound_launches[..take(findings.sound_launches.len())];
    let stale_launches = &findings.stale_launches[..take(findings.stale_launches.len())];
    let mut keys: Vec<OpKey> = kernel_violations
        .iter()
        .flat_map(|(_, v)| [v.source, v.sink])
        .chain(kernel_violations.iter().filter_map(|(_, v)| findings.plain_readers.get(&v.source).map(|r| r.read)))
        .chain(launch_violations.iter().chain(sound_launches).flat_map(|v| [v.call, v.read, v.publish]))
        .chain(stale_launches.iter().flat_map(|(v, writer)| [v.call, v.read, v.publish, *writer]))
        .collect();
    for (_, v) in inflight {
        keys.extend([v.first.op, v.second.op]);
        keys.extend(v.first.by.into_iter().chain(v.second.by));
    }
    for (_, (write, read)) in read_backs {
        keys.extend([write.op, *read]);
    }
    let ops = model::find_ops(program, &keys);
    let op = |key: OpKey| *ops.get(&key).expect("a violation's ops are in the program it was found in");
    let loc = |key: OpKey| op(key).location();
    let mut out = Vec::with_capacity(limit);
    for (_, v) in kernel_violations {
        let note = kernel_note(v, op(v.sink));
        match findings.plain_readers.get(&v.source) {
            Some(reader) if v.source_kind == SourceKind::Local => {
                out.push(Report::error(loc(v.source), plain_message(v)).with_note(loc(v.sink), note).with_note(
                    loc(reader.read),
                    format!("another block reads it here ({})", crate::ir::op_name(op(reader.read))),
                ))
            }
            _ => out.push(Report::error(loc(v.source), kernel_message(v)).with_note(loc(v.sink), note)),
        }
    }
    let launch_report = |v: &LaunchViolation, why: &str| {
        let kernel = symbol_ref(&module.functions[v.kernel].name);
        let message = match v.wrapper {
            None => format!(
                "InCore function {kernel} is launched after {why} but reads GM before a whole-GM \
                 ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence"
            ),
            Some(wrapper) => format!(
                "call to {} launches InCore function {kernel} after {why}, but {kernel} reads GM before a \
                 whole-GM ccl.cacheinvalid(); it needs the prologue ccl.cacheinvalid() + ccl.fence",
                symbol_ref(&module.functions[wrapper].name)
            ),
        };
        Report::error(loc(v.call), message).with_note(loc(v.read), format!("the first GM read of {kernel} it reaches"))
    };
    for v in launch_violations {
        out.push(launch_report(v, "a publish").with_note(loc(v.publish), "the publish it runs after"));
    }
    for (_, v) in inflight {
        let (first, second) = (op(v.first.op), op(v.second.op));
        if v.first.kind == inflight::WriteKind::Many {
            out.push(Report::error(
                first.location(),
                format!(
                    "more than {} writes of this block may be in flight (or lines dirty) here with no ccl.fence \
                     between them: too many for the checker to tell apart; a ccl.fence before this op orders them",
                    inflight::MAX_FACTS
                ),
            ));
            continue;
        }
        let mut report = Report::error(
            first.location(),
            format!(
                "{} may still be in flight when {} writes an overlapping location: in-flight writes land in any \
                 order, so the older may land last; a ccl.fence must come between them",
                write_text(&v.first, first),
                write_text(&v.second, second).replacen("this ", "a later ", 1),
            ),
        )
        .with_note(second.location(), "the later write");
        if let (Some(by), inflight::WriteKind::WriteBack) = (v.first.by, v.first.kind) {
            report = report.with_note(loc(by), "the ccl.cacheinvalid that starts the first write-back");
        }
        if let (Some(by), inflight::WriteKind::WriteBack) = (v.second.by, v.second.kind) {
            report = report.with_note(loc(by), "the ccl.cacheinvalid that starts the later write-back");
        }
        out.push(report);
    }
    for (_, (write, read)) in read_backs {
        let (write, read) = (*write, op(*read));
        let written = op(write.op);
        let what = match write.kind {
            inflight::WriteKind::Call => "what this call may write".to_string(),
            inflight::WriteKind::Many => "what one of the writes in flight here writes".to_string(),
            _ => format!("what this {} writes", crate::ir::op_name(written)),
        };
        out.push(
            Report::error(
                written.location(),
                format!(
                    "{READ_BACK} {what}, with no ccl.cacheinvalid covering it between them: a line of it the \
                     block's cache may still hold (from an earlier read or write, or an earlier launch on the block \
                     slot) hides the write once it lands, so the read may return the older value"
                ),
            )
            .with_note(
                read.location(),
                format!(
                    "the {} that may read it back; a ccl.cacheinvalid of what it reads must come first",
                    crate::ir::op_name(read)
                ),
            ),
        );
    }
    for v in sound_launches {
        out.push(
            launch_report(v, "a publish the rules' Phase B does not count (in an earlier iteration of a parallel loop, or through a function without an orchestration kind)")
                .with_note(loc(v.publish), "the publish it runs after"),
        );
    }
    for (v, writer) in stale_launches {
        out.push(
            launch_report(v, "another launch on this rank")
                .with_note(
                    loc(*writer),
                    "another block's write, which may make a line an earlier launch left in the block slot's cache stale",
                )
                .with_note(loc(v.publish), "the earlier launch"),
        );
    }
    out
}
