//! How findings and schedules read: MLIR-style located diagnostics (the
//! access that found the race is the error, the other one a note), then the
//! schedule, one observable step per line.

use super::cost::{CostRange, RunCost};
use super::explore::{Bound, Engine, SearchStats, Step, Store};
use super::machine::{Access, Action, Blocked, Finding, Machine, Race, RaceKind, State, Status, ThreadId};
use super::memory;
use super::program::{SiteId, Ty};
use cclir_support::diagnostics::{Diagnostic, Severity, SourceLoc};
use std::fmt::Write;

fn site_text(machine: &Machine, site: u32) -> String {
    let site = machine.program.site(site);
    match &site.step {
        Some(step) => format!("'{}' (step {step})", site.op),
        None => format!("'{}'", site.op),
    }
}

/// An access as the notes name it: `read by rank 1 block 0 'ccl.read' in
/// launch 1 of @k`.
pub fn access_text(machine: &Machine, access: &Access) -> String {
    let what = if access.write { "write" } else { "read" };
    let mut text = format!("{what} by {} {}", machine.thread_name(access.thread), site_text(machine, access.site));
    if let Some(kernel) = access.kernel {
        let name = &machine.program.funcs[kernel as usize].name;
        write!(text, " in launch {} of @{name}", access.launch).unwrap();
    }
    text
}

/// What a buffer is: an argument of the entry, or an allocation.
fn buffer_name(machine: &Machine, state: &State, buffer: u32) -> String {
    let entry = &machine.program.funcs[machine.program.entry as usize];
    let memrefs: Vec<usize> =
        entry.param_types.iter().enumerate().filter(|(_, t)| matches!(t, Ty::MemRef { .. })).map(|(i, _)| i).collect();
    if let Some(arg) = memrefs.get(buffer as usize) {
        return format!("argument #{arg} of @{}", entry.name);
    }
    match state.allocations.iter().find(|(_, id)| **id == buffer) {
        Some(((site, _, _), _)) => format!("the allocation at {}", machine.program.site(*site).loc),
        None => format!("buffer {buffer}"),
    }
}

/// One line of a finding's report: where (none for a finding of the whole
/// run, as a deadlock), and what.
struct Line {
    loc: Option<SourceLoc>,
    text: String,
}

/// Where the race is: `element 1 of argument #1 of @main on rank 0`.
pub fn race_place(machine: &Machine, race: &Race, last: &State) -> String {
    format!("element {} of {} on rank {}", race.loc.index, buffer_name(machine, last, race.loc.buffer), race.loc.rank)
}

/// The finding as lines: the error first, then its notes.
fn finding_lines(machine: &Machine, finding: &Finding, last: &State) -> Vec<Line> {
    let at = |site: u32| Some(machine.program.site(site).loc.clone());
    let line = |loc: Option<SourceLoc>, text: String| Line { loc, text };
    match finding {
        Finding::Race(race) => {
            let place = race_place(machine, race, last);
            let (second, first) = (race.second.site, race.first.site);
            match race.kind {
                RaceKind::StaleRead => vec![
                    line(
                        at(second),
                        format!(
                            "data race: stale read of {place}: it returns an older value than a write that happens before it"
                        ),
                    ),
                    line(at(second), format!("the stale {}", access_text(machine, &race.second))),
                    line(at(first), format!("the newer {}, not yet visible to it", access_text(machine, &race.first))),
                ],
                RaceKind::Unordered => vec![
                    line(
                        at(second),
                        format!("data race: unordered accesses to {place}: no happens-before edge orders them"),
                    ),
                    line(at(first), access_text(machine, &race.first)),
                    line(at(second), access_text(machine, &race.second)),
                ],
            }
        }
        Finding::Deadlock => {
            let mut lines = vec![line(None, "deadlock: no step is possible and some threads have not finished".into())];
            // What the threads wait at first, then the hosts waiting for them.
            let mut joins = Vec::new();
            for t in 0..last.threads.len() as ThreadId {
                match blocked_text(machine, last, t) {
                    Some((site, text, true)) => joins.push(line(site.and_then(at), text)),
                    Some((site, text, false)) => lines.push(line(site.and_then(at), text)),
                    None => {}
                }
            }
            lines.extend(joins);
            lines
        }
        Finding::Error { site, message } | Finding::Limit { site, message } => {
            vec![line(site.and_then(at), message.clone())]
        }
    }
}

/// The launch a block runs, as a suffix: `; launch 2 of @k` (nothing for a
/// host).
fn launch_of(machine: &Machine, state: &State, t: ThreadId) -> String {
    let thread = &state.threads[t as usize];
    match thread.kernel.filter(|_| machine.slot_of(t) != 0) {
        Some(kernel) => format!("; launch {} of @{}", thread.launch, machine.program.funcs[kernel as usize].name),
        None => String::new(),
    }
}

/// What a stuck thread waits for, located, and whether it is a host
/// joining a launch: the cell of its wait with the condition and the value
/// the cell holds (and whether any notify of the program can write it at
/// all), the collective the other ranks have not reached, or the launch it
/// joins.
fn blocked_text(machine: &Machine, state: &State, t: ThreadId) -> Option<(Option<SiteId>, String, bool)> {
    let who = machine.thread_name(t);
    let launch = launch_of(machine, state, t);
    let text = match machine.blocked(state, t)? {
        Blocked::Wait { wait, value } => {
            let cell = format!(
                "element {} of {} on rank {}",
                wait.loc.index,
                buffer_name(machine, state, wait.loc.buffer),
                wait.loc.rank
            );
            let condition = if wait.equal { "==" } else { ">=" };
            let holds = value.map_or("no value".to_string(), |v| format!("it holds {v}"));
            let nobody = if machine.signal_may_be_written(state, wait.loc.buffer) {
                ""
            } else {
                "; no notify of the program can write it"
            };
            format!(
                "{who} waits at {} for {cell} to be {condition} {}: {holds}{nobody}{launch}",
                site_text(machine, machine.site_at(state, t)?),
                wait.expected
            )
        }
        Blocked::Collective => {
            let site = machine.site_at(state, t)?;
            format!("{who} waits at {} for every rank to reach it", site_text(machine, site))
        }
        Blocked::Launch { first, count } => {
            let kernel = state.threads[first as usize].kernel.map(|k| machine.program.funcs[k as usize].name.clone());
            let running =
                (first..first + count).filter(|b| state.threads[*b as usize].status == Status::Running).count();
            let in_flight: usize = (first..first + count).map(|b| state.inflight[b as usize].len()).sum();
            let text = format!(
                "{who} waits for its launch of @{} to finish: {running} of its {count} blocks still running, {in_flight} \
                 units of their writes in flight",
                kernel.unwrap_or_default()
            );
            return Some((machine.launch_site(state, t), text, true));
        }
    };
    Some((machine.site_at(state, t), text, false))
}

/// The finding as diagnostics (`file:line:col: error: ...` and notes).
pub fn finding(machine: &Machine, finding: &Finding, last: &State) -> String {
    let mut out = String::new();
    for (n, line) in finding_lines(machine, finding, last).iter().enumerate() {
        let severity = if n == 0 { "error" } else { "note" };
        match &line.loc {
            Some(loc) => writeln!(out, "{loc}: {severity}: {}", line.text).unwrap(),
            None => writeln!(out, "{severity}: {}", line.text).unwrap(),
        }
    }
    out
}

/// The finding as a diagnostic value: the error with its notes (a line
/// without a place is at an unknown location).
pub fn finding_diagnostic(machine: &Machine, finding: &Finding, last: &State) -> Diagnostic {
    let diagnostic = |severity, line: Line| Diagnostic {
        severity,
        loc: line.loc.unwrap_or(SourceLoc::Unknown),
        message: line.text,
        notes: Vec::new(),
    };
    let mut lines = finding_lines(machine, finding, last).into_iter();
    let first = lines.next().expect("a finding has an error line");
    Diagnostic {
        notes: lines.map(|line| diagnostic(Severity::Note, line)).collect(),
        ..diagnostic(Severity::Error, first)
    }
}

/// The error of a search stopped by a bound of the whole run, located at
/// the entry function (the run it started).
pub fn search_limit(machine: &Machine, bound: Bound, states: usize, generated: usize) -> Diagnostic {
    let entry = &machine.program.funcs[machine.program.entry as usize];
    let message = match bound {
        Bound::States(max) => format!(
            "--max-states {max} reached ({generated} states generated, {states} distinct) before the search finished: no conclusion"
        ),
        Bound::Memory { max, held } => format!(
            "--max-memory {} reached ({} held after {generated} states generated, {states} distinct) before the search finished: no conclusion",
            memory::human(max),
            memory::human(held)
        ),
        Bound::Time { seconds } => format!(
            "--max-time {seconds} s reached ({generated} states generated) before the search finished: no conclusion"
        ),
        Bound::Depth(max) => format!(
            "a schedule of more than --max-steps {max} steps (a cycle of states, or a program that does not end) after {generated} states generated: no conclusion"
        ),
    };
    Diagnostic {
        severity: Severity::Error,
        loc: machine.program.site(entry.site).loc.clone(),
        message,
        notes: Vec::new(),
    }
}

/// One line per step of `schedule`, numbered from `first`.
pub fn schedule(machine: &Machine, schedule: &[Step], first: usize) -> String {
    let mut out = String::new();
    for (n, step) in schedule.iter().enumerate() {
        writeln!(out, "  {:>4}. {}", n + first, step_text(machine, step)).unwrap();
    }
    out
}

/// What `action` does, read from the state it is taken in.
pub fn step(machine: &Machine, state: &State, action: Action) -> String {
    step_text(machine, &Step::taken(machine, state, action))
}

/// What a step of a schedule did.
pub fn step_text(machine: &Machine, step: &Step) -> String {
    let at = |site: SiteId| format!("{} at {}", site_text(machine, site), machine.program.site(site).loc);
    match (step.action, step.site) {
        (Action::Step(t), Some(site)) => format!("{}: {}", machine.thread_name(t), at(site)),
        (Action::Step(t), None) => format!("{}: a step", machine.thread_name(t)),
        (Action::Land(t, _), site) => {
            let writes = step.writes;
            let (plural, verb) = if writes == 1 { ("", "s") } else { ("s", "") };
            let unit = site.map(at).unwrap_or_default();
            format!("{}: the {writes} write{plural} of {unit} land{verb}", machine.thread_name(t))
        }
        (Action::Collective, Some(site)) => format!("every rank: {}", at(site)),
        (Action::Collective, None) => "every rank: a collective".to_string(),
    }
}

/// One count of a range: `fences 8`, or `fences 8-16` where the schedules
/// differ.
fn count(what: &str, min: u64, max: u64) -> String {
    if min == max {
        format!("{what} {min}")
    } else {
        format!("{what} {min}-{max}")
    }
}

fn cost_line(range: &CostRange) -> String {
    let (min, max) = (&range.min, &range.max);
    [
        count("fences", min.fences, max.fences),
        count("region invalidates", min.region_invalidates, max.region_invalidates),
        count("whole-GM invalidates", min.whole_invalidates, max.whole_invalidates),
        count("lines written back", min.lines_written_back, max.lines_written_back),
    ]
    .join(", ")
}

/// What a clean run executed: the total, then each kernel with its launches
/// over all ranks (the entry's host code under the entry's name); a range
/// `min-max` where the schedules explored differ.
pub fn cost(cost: &RunCost) -> String {
    let mut out = String::new();
    let Some(total) = &cost.total else { return out };
    writeln!(out, "executed: {}", cost_line(total)).unwrap();
    for (name, range) in &cost.kernels {
        let launches = count("launches", range.min.launches, range.max.launches);
        writeln!(out, "  @{name}: {launches}, {}", cost_line(range)).unwrap();
    }
    out
}

/// `n` with thousands separated: `131,508`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The exhaustive search's summary line: what it stored, at what cost a
/// state, how it searched, and (for fingerprints) the chance it missed a
/// state.
pub fn search(stats: &SearchStats) -> String {
    let threads = if stats.threads == 1 { "1 thread".to_string() } else { format!("{} threads", stats.threads) };
    if stats.engine == Engine::Dpor {
        let threads = if stats.threads == 1 {
            threads
        } else {
            let branches = if stats.taken_over == 1 { "branch" } else { "branches" };
            format!("{threads} ({} {branches} taken over)", grouped(stats.taken_over))
        };
        return format!(
            "ccl-sim: search: {} executions ({} more cut by sleep sets), {} transitions, depth {}, dynamic partial-order reduction, {threads}, {:.2} s",
            grouped(stats.executions),
            grouped(stats.sleep_blocked),
            grouped(stats.generated),
            grouped(stats.max_depth),
            stats.seconds
        );
    }
    let mut out = format!("ccl-sim: search: {} states stored", grouped(stats.stored));
    match stats.store {
        Some(Store::Fingerprint { bits }) => {
            write!(out, " as {bits}-bit fingerprints ({:.0} bytes a state)", stats.bytes_per_state()).unwrap()
        }
        Some(Store::Exact) => out.push_str(" whole"),
        None => {}
    }
    write!(out, ", {} generated, depth {}", grouped(stats.generated), grouped(stats.max_depth)).unwrap();
    if stats.reduced > 0 {
        write!(out, ", {} reduced by partial order", grouped(stats.reduced)).unwrap();
    }
    match stats.engine {
        Engine::Dfs => out.push_str(", depth-first"),
        Engine::Stateright => out.push_str(", stateright's breadth-first search"),
        Engine::Dpor => {}
    }
    write!(out, ", {threads}, {:.2} s", stats.seconds).unwrap();
    if let Some(p) = stats.omission_probability() {
        write!(out, "; a state is missed with probability below {p:.1e}").unwrap();
    }
    out
}
