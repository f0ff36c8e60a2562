//! How the reference semantics' findings and schedules read: the same
//! located diagnostics as the machine's reports (the access that made the
//! race is the error, the other a note), then the schedule, one action per
//! line.

use super::search::{Found, Kind};
use super::*;
use std::fmt::Write;

/// Who a thread is: `rank 1 block 0` or `rank 1 host`.
pub fn thread_name(reference: &Reference, t: ThreadId) -> String {
    match reference.slot_of(t) {
        0 => format!("rank {} host", reference.rank_of(t)),
        slot => format!("rank {} block {}", reference.rank_of(t), slot - 1),
    }
}

fn op_at(reference: &Reference, site: SiteId) -> String {
    let site = reference.program.site(site);
    format!("'{}' at {}", site.op, site.loc)
}

fn access_text(reference: &Reference, access: &Access) -> String {
    let what = if access.write { "write" } else { "read" };
    let site = reference.program.site(access.site);
    format!("{what} by {} '{}'", thread_name(reference, access.thread), site.op)
}

/// Where a location is: `element 1 of buffer 2 on rank 0`.
pub fn place(loc: &Loc) -> String {
    format!("element {} of buffer {} on rank {}", loc.index, loc.buffer, loc.rank)
}

/// The finding an execution ended in, as `file:line:col: error: ...` lines
/// and notes.
pub fn finding(reference: &Reference, found: &Found) -> String {
    let mut out = String::new();
    let loc = |site: SiteId| reference.program.site(site).loc.to_string();
    match (found.kind, found.finding()) {
        (_, Some(Finding::Race { kind, loc: at, first, second })) => {
            let what = match kind {
                RaceKind::StaleRead => format!(
                    "data race: stale read of {}: it returns an older value than a write that happens before it",
                    place(at)
                ),
                RaceKind::Unordered => {
                    format!("data race: unordered accesses to {}: no happens-before edge orders them", place(at))
                }
            };
            writeln!(out, "{}: error: {what}", loc(second.site)).unwrap();
            writeln!(out, "{}: note: {}", loc(second.site), access_text(reference, second)).unwrap();
            writeln!(out, "{}: note: {}", loc(first.site), access_text(reference, first)).unwrap();
        }
        (_, Some(Finding::Error { site, message } | Finding::Limit { site, message })) => match site {
            Some(site) => writeln!(out, "{}: error: {message}", loc(*site)).unwrap(),
            None => writeln!(out, "error: {message}").unwrap(),
        },
        (Kind::Deadlock, None) => {
            writeln!(out, "error: deadlock: no step is possible and some threads have not finished").unwrap();
            for t in 0..reference.thread_count() as ThreadId {
                if found.last.threads[t as usize].status != Status::Running {
                    continue;
                }
                if let Some(site) = reference.site_at(&found.last, t) {
                    writeln!(
                        out,
                        "{}: note: {} waits at {}",
                        loc(site),
                        thread_name(reference, t),
                        op_at(reference, site)
                    )
                    .unwrap();
                }
            }
        }
        (_, None) => writeln!(out, "error: {}", found.kind.name()).unwrap(),
    }
    out
}

/// The execution's actions, one per line, each read from the state it was
/// taken in.
pub fn schedule(reference: &Reference, schedule: &[Action]) -> String {
    let mut out = String::new();
    let mut state = reference.initial();
    for (n, action) in schedule.iter().enumerate() {
        let text = match *action {
            Action::Step(t) => match (&state.threads[t as usize].status, reference.site_at(&state, t)) {
                (Status::Joining { .. }, _) => format!("{}: joins its launch", thread_name(reference, t)),
                (_, Some(site)) => format!("{}: {}", thread_name(reference, t), op_at(reference, site)),
                (_, None) => format!("{}: a step", thread_name(reference, t)),
            },
            Action::Land(t, k) => {
                let pending = &state.queues[t as usize][k];
                format!(
                    "{}: the write of {} by {} lands",
                    thread_name(reference, t),
                    place(&pending.loc),
                    op_at(reference, pending.site)
                )
            }
            Action::Collective => match reference.site_at(&state, reference.host_of(0)) {
                Some(site) => format!("every rank: {}", op_at(reference, site)),
                None => "every rank: a collective".to_string(),
            },
        };
        writeln!(out, "  {:>4}. {text}", n + 1).unwrap();
        reference.apply(&mut state, *action);
    }
    out
}
