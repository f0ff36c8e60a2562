//! `ccl-sim --sarif FILE`: a search's outcome as a SARIF 2.1.0 log. A race,
//! deadlock or runtime error is a result located as the text report's
//! error, its notes as related locations, and the schedule as a code flow
//! with one thread flow per rank and block (and host) that took part, each
//! holding that thread's steps in schedule order (`executionOrder` is the
//! step's number); a race's two accesses are in their threads' flows too,
//! at the step they ran in. A bound reached is a notification of a run that
//! did not conclude; a clean run is a log without results.

use super::summary::{AccessReport, StepKind, StepReport, Summary, ThreadRef, Verdict};
use cclir_support::diagnostics::Diagnostic;
use cclir_support::sarif::{self, CodeFlow, Invocation, Log, Message, Notification, ThreadFlow, ThreadFlowLocation};
use std::collections::BTreeMap;

/// The rules of ccl-sim's results.
fn rules() -> Vec<sarif::Rule> {
    vec![
        sarif::rule(
            "data-race",
            "Two threads access one element, one of them writing, with no happens-before edge between them; or a \
             read returns an older value than a write that happens before it",
        ),
        sarif::rule("deadlock", "No step is possible and some threads have not finished"),
        sarif::rule(
            "runtime-error",
            "The program does what MLIR leaves undefined or the model forbids (an index out of bounds, a peer that \
             is not a rank)",
        ),
        sarif::rule(
            "input-error",
            "The input cannot be simulated (it does not parse or uses what ccl-sim does not model)",
        ),
    ]
}

/// The log of a search's outcome; `exit_code` is ccl-sim's.
pub fn log(summary: &Summary, exit_code: i32) -> Log {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    if let Some(diagnostic) = &summary.diagnostic {
        match summary.verdict {
            Verdict::NoConclusion | Verdict::Clean => notifications.push(notification(diagnostic)),
            Verdict::Race | Verdict::Deadlock | Verdict::RuntimeError => {
                let rule = match summary.verdict {
                    Verdict::Race => "data-race",
                    Verdict::Deadlock => "deadlock",
                    _ => "runtime-error",
                };
                let mut result = sarif::result(diagnostic, Some(rule));
                if !summary.schedule.is_empty() || summary.race.is_some() {
                    result.code_flows.push(code_flow(summary));
                }
                results.push(result);
            }
        }
    }
    let invocation = Invocation {
        execution_successful: summary.verdict != Verdict::NoConclusion,
        exit_code: Some(exit_code),
        tool_execution_notifications: notifications,
    };
    Log::new("ccl-sim", rules(), results, invocation)
}

/// The log of an input ccl-sim cannot run: its diagnostics as results.
pub fn input_error_log(diagnostics: &[Diagnostic]) -> Log {
    let results = diagnostics.iter().map(|d| sarif::result(d, Some("input-error"))).collect();
    Log::new(
        "ccl-sim",
        rules(),
        results,
        Invocation { execution_successful: true, exit_code: Some(1), tool_execution_notifications: Vec::new() },
    )
}

fn notification(diagnostic: &Diagnostic) -> Notification {
    let result = sarif::result(diagnostic, None);
    Notification { level: result.level, message: result.message, locations: result.locations }
}

/// SARIF's well-known kinds for what a step does.
fn step_kinds(step: &StepReport) -> Vec<String> {
    let kinds: &[&str] = match (step.kind, step.op.as_deref()) {
        (StepKind::Land, _) => &["memory"],
        (StepKind::Collective, _) => &["acquire", "release"],
        (_, Some("ccl.notify")) => &["release"],
        (_, Some("ccl.wait")) => &["acquire"],
        _ => &[],
    };
    kinds.iter().map(|k| k.to_string()).collect()
}

fn access_location(access: &AccessReport, order: i64) -> ThreadFlowLocation {
    ThreadFlowLocation {
        location: sarif::location(&access.loc, Some(format!("the racing {}", access.text))),
        execution_order: order,
        kinds: vec!["memory".to_string(), "danger".to_string()],
        importance: Some("essential"),
    }
}

/// The schedule as one thread flow per thread, threads in rank order (the
/// host before the blocks).
fn code_flow(summary: &Summary) -> CodeFlow {
    let mut flows: BTreeMap<(u16, i32), (ThreadRef, Vec<ThreadFlowLocation>)> = BTreeMap::new();
    let key = |t: &ThreadRef| (t.rank, t.block.map_or(-1, i32::from));
    for step in &summary.schedule {
        for thread in &step.threads {
            let location = ThreadFlowLocation {
                location: sarif::location(
                    step.loc.as_ref().unwrap_or(&cclir_support::diagnostics::SourceLoc::Unknown),
                    Some(format!("{}. {}", step.number, step.text)),
                ),
                execution_order: step.number as i64,
                kinds: step_kinds(step),
                importance: Some("important"),
            };
            flows.entry(key(thread)).or_insert_with(|| (*thread, Vec::new())).1.push(location);
        }
    }
    if let Some(race) = &summary.race {
        let after_the_schedule = summary.schedule.len() as i64 + 1;
        for access in [&race.first, &race.second] {
            let order = access.in_step.map_or(after_the_schedule, |step| step as i64);
            let (_, locations) = flows.entry(key(&access.thread)).or_insert_with(|| (access.thread, Vec::new()));
            // After the steps up to the one it ran in (it ran inside it).
            let at = locations.partition_point(|l| l.execution_order <= order);
            locations.insert(at, access_location(access, order));
        }
    }
    let thread_flows = flows
        .into_values()
        .map(|(thread, locations)| {
            let mut properties = BTreeMap::new();
            properties.insert("rank".to_string(), serde_json::Value::from(thread.rank));
            match thread.block {
                Some(block) => properties.insert("block".to_string(), serde_json::Value::from(block)),
                None => properties.insert("host".to_string(), serde_json::Value::from(true)),
            };
            ThreadFlow { id: thread.to_string(), message: Message::new(thread.to_string()), locations, properties }
        })
        .collect();
    let message = format!("schedule ({} steps, found after {} states)", summary.schedule.len(), summary.states);
    CodeFlow { message: Message::new(message), thread_flows }
}
