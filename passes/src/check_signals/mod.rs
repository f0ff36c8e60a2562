//! `ccl-check-signals`: the static analysis of signal discipline
//! (docs/passes/check-signals.md, docs/bugs.md). A checker, not a rewriter:
//! it changes nothing, reports each bug it can show as a located error with
//! notes at the other ends and the schedule that shows it, then fails.
//!
//! * [`instantiate`] (with [`effects`] and [`values`]) writes out one run of
//!   the program on P ranks as threads of observable items ([`program`]);
//! * [`order`] is the happens-before skeleton every execution has: program
//!   order, launches, collectives, and each wait's necessary notifies;
//! * [`facts`] summarises each signal cell (writers, waiters, resets,
//!   repeats, balance, necessary notifies);
//! * [`search`] picks the schedules worth trying from the skeleton's
//!   suspects, and [`machine`] runs each under the execution model's rules
//!   for signals, checking accesses as ccl-sim does;
//! * [`rules`] explains a race or deadlock a schedule reached as the rule
//!   of docs/bugs.md it breaks (R1 to R8).

pub mod effects;
pub mod facts;
pub mod instantiate;
pub mod machine;
pub mod order;
pub mod program;
pub mod rules;
pub mod search;
pub mod values;

use crate::{
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report, Severity},
    ir, pass_options, pass_statistics,
};
use instantiate::{Instantiation, Limits, Stop};
use melior::ir::{operation::OperationLike, OperationRef};
use program::{At, ItemKind};
use rules::Finding;

pass_options! {
    /// The analysis's options.
    pub struct CheckSignalsOptions {
        ranks: int("ranks", "The rank count the program runs on, as ccl-sim --ranks P", default = 2, min = 1),
        unconfirmed: bool("unconfirmed", "Also warn where the shape of a rule holds (R3, R5) but no schedule tried shows the bug", default = false),
        facts: bool("facts", "Print each signal cell's facts as remarks (writers, waiters, resets, repeats, balance, necessary notifies)", default = false),
        max_items: int("max-items", "Give no conclusion when the run has more observable ops than this", default = 200000, min = 1),
        max_schedules: int("max-schedules", "Schedules tried at most per program", default = 512, min = 1),
    }
}

pass_statistics! {
    /// What one run checked and found.
    pub struct CheckSignalsStatistics {
        programs: "programs-checked", "Programs run (a module and each nested module with an entry)",
        threads: "threads", "Threads of the runs (hosts and blocks)",
        items: "items", "Observable ops of the runs",
        waits_needing: "waits-with-necessary-notifies", "Waits with an item of another thread they cannot pass without",
        schedules: "schedules", "Schedules tried",
        findings: "findings", "Bugs reported, each shown by a schedule",
        warnings: "warnings", "Rule shapes no schedule confirmed (unconfirmed=true)",
        unexplained: "unexplained", "Races or deadlocks a schedule reached that no rule explains (not reported)",
        no_conclusion: "no-conclusion", "Programs the analysis could not follow",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-check-signals",
    name: "CclCheckSignals",
    summary: "Find signal-discipline bugs (rules R1-R8), each shown by a schedule; change nothing",
    description: "The static analysis of signal discipline: which notifies a wait can pass on,\n\
        whether a reset can erase a signal, whether a wait precedes the send it needs.\n\
        It writes out one run of the program on `ranks` ranks (the entry on every\n\
        rank's host, each launch's blocks), computes the happens-before every\n\
        execution has (a wait is ordered after the notifies it cannot pass without),\n\
        and tries the schedules its suspects call for. A bug is reported only when a\n\
        schedule shows it, as a located error under the rule it breaks (R1 to R8 of\n\
        docs/bugs.md) with notes at the other ends and the schedule; the pass then\n\
        fails (exit code 1 under `ccl-opt`). It changes nothing. A program it cannot\n\
        follow gets a warning and no verdict.",
    anchor: Anchor::Module,
    dependent_dialects: &[],
    options: CheckSignalsOptions::SPECS,
    statistics: CheckSignalsStatistics::SPECS,
    create,
};

fn create(values: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    Box::new(CheckSignals {
        options: CheckSignalsOptions::from_values(values),
        stats: CheckSignalsStatistics::bind(counters),
    })
}

/// The pass.
pub struct CheckSignals {
    options: CheckSignalsOptions,
    stats: CheckSignalsStatistics,
}

/// A skeleton of more threads times sync items than this is no conclusion.
const MAX_CLOCK_CELLS: usize = 64 << 20;
/// The witness machine keeps a clock per thread: a bound on threads.
const MAX_MACHINE_THREADS: usize = 4096;

/// What the analysis of one program found.
pub struct Checked<'c, 'a> {
    pub instantiation: Instantiation<'c, 'a>,
    pub findings: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub facts: Vec<facts::CellFacts>,
    pub unexplained: u64,
    pub tried: search::Tried,
    pub waits_needing: u64,
}

/// Analyses one program; `Err` when it cannot be followed.
pub fn analyse<'c, 'a>(
    program: OperationRef<'c, 'a>,
    options: &CheckSignalsOptions,
) -> Result<Checked<'c, 'a>, Stop<'c, 'a>> {
    let instantiation =
        instantiate::instantiate(program, options.ranks as u32, Limits::for_items(options.max_items as usize))?;
    let run = &instantiation.program;
    let too_large =
        |what: &str| Stop::NoConclusion { at: Some(program), reason: format!("the run has too many {what}") };
    let order = order::Order::build(run, MAX_CLOCK_CELLS, order::Edges::Suspected)
        .ok_or_else(|| too_large("threads and items"))?;
    if run.threads.len() > MAX_MACHINE_THREADS {
        return Err(too_large("threads"));
    }
    let mut tried = search::Tried::default();
    let attempts = search::search(run, &order, options.max_schedules as usize, &mut tried);
    let (mut findings, mut unexplained) = (Vec::<Finding>::new(), 0);
    for attempt in &attempts {
        match rules::explain(run, &order, attempt) {
            Some(finding) => {
                if !findings.iter().any(|f| f.key(run) == finding.key(run)) {
                    findings.push(finding);
                }
            }
            None => {
                unexplained +=
                    matches!(attempt.run.outcome, machine::Outcome::Race { .. } | machine::Outcome::Deadlock { .. })
                        as u64
            }
        }
    }
    let warnings = if options.unconfirmed { rules::unconfirmed(run, &attempts, &findings) } else { Vec::new() };
    let facts = if options.facts {
        let ops = &instantiation.ops;
        let name = |site: program::SiteId| match ir::source_loc_of(ops[site as usize].location()) {
            cclir_support::diagnostics::SourceLoc::File { line, .. } => format!("line {line}"),
            cclir_support::diagnostics::SourceLoc::Unknown => format!("'{}'", ir::op_name(ops[site as usize])),
        };
        facts::of(run, &order, &name)
    } else {
        Vec::new()
    };
    let waits_needing = order.waits.values().filter(|w| !w.needs.is_empty()).count() as u64;
    Ok(Checked { instantiation, findings, warnings, facts, unexplained, tried, waits_needing })
}

impl CclPass for CheckSignals {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // A checker: it never changes the IR.
        cx.preserve_all();
        let mut failed = false;
        for program in ir::programs(op) {
            let analysis = match analyse(program, &self.options) {
                Ok(analysis) => analysis,
                Err(Stop::NoEntry) => continue,
                Err(Stop::NoConclusion { at, reason }) => {
                    self.stats.no_conclusion.add(1);
                    let location = at.unwrap_or(program).location();
                    let message = format!("ccl-check-signals: no conclusion: {reason}");
                    cx.report(Report { severity: Severity::Warning, location, message, notes: Vec::new() });
                    continue;
                }
            };
            let run = &analysis.instantiation.program;
            let stats = &self.stats;
            stats.programs.add(1);
            stats.threads.add(run.threads.len() as u64);
            stats.items.add(run.threads.iter().map(|t| t.items.len() as u64).sum());
            stats.waits_needing.add(analysis.waits_needing);
            stats.schedules.add(analysis.tried.schedules);
            stats.findings.add(analysis.findings.len() as u64);
            stats.warnings.add(analysis.warnings.len() as u64);
            stats.unexplained.add(analysis.unexplained);
            for fact in &analysis.facts {
                let location = analysis.instantiation.ops[fact.site as usize].location();
                cx.report(Report {
                    severity: Severity::Remark,
                    location,
                    message: fact.text.clone(),
                    notes: Vec::new(),
                });
            }
            for finding in analysis.findings.iter().chain(&analysis.warnings) {
                cx.report(report(&analysis.instantiation, finding));
            }
            failed |= !analysis.findings.is_empty();
        }
        if failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}

/// Schedule steps a report lists at most (the last ones).
const SCHEDULE_SHOWN: usize = 40;

/// The diagnostic of a finding: the error (or warning), a note per other
/// end, and the schedule as a last note.
pub fn report<'c>(instantiation: &Instantiation<'c, '_>, finding: &Finding) -> Report<'c> {
    let run = &instantiation.program;
    let location = |at: At| instantiation.ops[run.item(at).site as usize].location();
    let severity = if finding.confirmed { Severity::Error } else { Severity::Warning };
    let mut report =
        Report { severity, location: location(finding.at), message: finding.message.clone(), notes: Vec::new() };
    for (at, note) in &finding.notes {
        report = report.with_note(location(*at), note.clone());
    }
    if !finding.schedule.is_empty() {
        report = report.with_note(location(finding.at), schedule_text(instantiation, finding));
    }
    report
}

/// The schedule's signal steps (and the finding's own items), one a line.
fn schedule_text(instantiation: &Instantiation<'_, '_>, finding: &Finding) -> String {
    let run = &instantiation.program;
    let named: Vec<At> = finding.notes.iter().map(|(at, _)| *at).chain([finding.at]).collect();
    let steps: Vec<(At, Option<i64>)> = finding
        .schedule
        .iter()
        .copied()
        .filter(|(at, _)| {
            let kind = &run.item(*at).kind;
            !matches!(kind, ItemKind::Start | ItemKind::End | ItemKind::Access { .. }) || named.contains(at)
        })
        .collect();
    let skipped = steps.len().saturating_sub(SCHEDULE_SHOWN);
    let mut text = format!(
        "the schedule that shows it ({} steps{}):",
        steps.len(),
        if skipped > 0 { ", the last shown" } else { "" }
    );
    for (i, (at, value)) in steps.iter().enumerate().skip(skipped) {
        let op = instantiation.ops[run.item(*at).site as usize];
        let place = ir::source_loc_of(op.location());
        let thread = run.threads[at.thread as usize].describe();
        text.push_str(&format!(
            "\n  {:>3}. {thread}: {} at {place}",
            i + 1,
            step_text(run, *at, *value, ir::op_name(op))
        ));
    }
    text
}

/// What one step did: "launches @k (2 blocks)", "'ccl.notify' (the cell
/// holds 2)", "'ccl.wait' passes (the cell holds 2)".
fn step_text(run: &program::Program, at: At, value: Option<i64>, op_name: &str) -> String {
    let holds = |value: Option<i64>| value.map_or(String::new(), |v| format!(" (the cell holds {v})"));
    match &run.item(at).kind {
        ItemKind::Launch { first, count } => {
            let kernel = run.threads[*first as usize]
                .kernel
                .as_ref()
                .map_or(String::new(), |(k, _)| cclir_dialect::names::symbol_ref(k));
            format!("launches {kernel} ({count} block{})", if *count == 1 { "" } else { "s" })
        }
        ItemKind::Join { .. } => "joins its launch".to_string(),
        ItemKind::Notify { .. } => format!("'{op_name}'{}", holds(value)),
        ItemKind::Wait { .. } => format!("'{op_name}' passes{}", holds(value)),
        _ => format!("'{op_name}'"),
    }
}
