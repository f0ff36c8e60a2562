//! How findings and schedules read: MLIR-style located diagnostics (the
//! access that found the race is the error, the other one a note), then the
//! schedule, one observable step per line.

use super::cost::{CostRange, RunCost};
use super::explore::{Engine, SearchStats, Step, Store};
use super::machine::{Access, Action, Finding, Machine, RaceKind, State, ThreadId};
use super::program::Ty;
use std::fmt::Write;

/// Who a thread is: `rank 1 block 0` or `rank 1 host`.
pub fn thread_name(machine: &Machine, t: ThreadId) -> String {
    let (rank, slot) = (machine.rank_of(t), machine.slot_of(t));
    if slot == 0 {
        format!("rank {rank} host")
    } else {
        format!("rank {rank} block {}", slot - 1)
    }
}

fn site_text(machine: &Machine, site: u32) -> String {
    let site = machine.program.site(site);
    match &site.step {
        Some(step) => format!("'{}' (step {step})", site.op),
        None => format!("'{}'", site.op),
    }
}

fn access_text(machine: &Machine, access: &Access) -> String {
    let what = if access.write { "write" } else { "read" };
    let mut text = format!("{what} by {} {}", thread_name(machine, access.thread), site_text(machine, access.site));
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

/// The finding as diagnostics (`file:line:col: error: ...` and notes).
pub fn finding(machine: &Machine, finding: &Finding, last: &State) -> String {
    let mut out = String::new();
    match finding {
        Finding::Race(race) => {
            let place = format!(
                "element {} of {} on rank {}",
                race.loc.index,
                buffer_name(machine, last, race.loc.buffer),
                race.loc.rank
            );
            let (second, first) = (machine.program.site(race.second.site), machine.program.site(race.first.site));
            match race.kind {
                RaceKind::StaleRead => {
                    writeln!(
                        out,
                        "{}: error: data race: stale read of {place}: it returns an older value than a write that happens before it",
                        second.loc
                    )
                    .unwrap();
                    writeln!(out, "{}: note: the stale {}", second.loc, access_text(machine, &race.second)).unwrap();
                    writeln!(
                        out,
                        "{}: note: the newer {}, not yet visible to it",
                        first.loc,
                        access_text(machine, &race.first)
                    )
                    .unwrap();
                }
                RaceKind::Unordered => {
                    writeln!(
                        out,
                        "{}: error: data race: unordered accesses to {place}: no happens-before edge orders them",
                        second.loc
                    )
                    .unwrap();
                    writeln!(out, "{}: note: {}", first.loc, access_text(machine, &race.first)).unwrap();
                    writeln!(out, "{}: note: {}", second.loc, access_text(machine, &race.second)).unwrap();
                }
            }
        }
        Finding::Deadlock => {
            writeln!(out, "error: deadlock: no step is possible and some threads have not finished").unwrap();
            for t in 0..last.threads.len() as ThreadId {
                if let Some(site) = machine.site_at(last, t) {
                    let s = machine.program.site(site);
                    let who = thread_name(machine, t);
                    writeln!(out, "{}: note: {who} waits at {}", s.loc, site_text(machine, site)).unwrap();
                }
            }
        }
        Finding::Error { site, message } | Finding::Limit { site, message } => match site {
            Some(site) => writeln!(out, "{}: error: {message}", machine.program.site(*site).loc).unwrap(),
            None => writeln!(out, "error: {message}").unwrap(),
        },
    }
    out
}

/// One line per step of `schedule`, numbered from `first`.
pub fn schedule(schedule: &[Step], first: usize) -> String {
    let mut out = String::new();
    for (n, step) in schedule.iter().enumerate() {
        writeln!(out, "  {:>4}. {}", n + first, step.text).unwrap();
    }
    out
}

/// What `action` does, read from the state it is taken in.
pub fn step(machine: &Machine, state: &State, action: Action) -> String {
    match action {
        Action::Step(t) => match machine.site_at(state, t) {
            Some(site) => format!(
                "{}: {} at {}",
                thread_name(machine, t),
                site_text(machine, site),
                machine.program.site(site).loc
            ),
            None => format!("{}: a step", thread_name(machine, t)),
        },
        Action::Land(t, u) => {
            let unit = &state.inflight[t as usize][u as usize];
            format!(
                "{}: the {} write{} of {} at {} land{}",
                thread_name(machine, t),
                unit.writes.len(),
                if unit.writes.len() == 1 { "" } else { "s" },
                site_text(machine, unit.site),
                machine.program.site(unit.site).loc,
                if unit.writes.len() == 1 { "s" } else { "" }
            )
        }
        Action::Collective => {
            // Every host rests at the collective; rank 0's is thread 0.
            match machine.site_at(state, 0) {
                Some(site) => format!("every rank: {} at {}", site_text(machine, site), machine.program.site(site).loc),
                None => "every rank: a collective".to_string(),
            }
        }
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
    let mut out = format!("ccl-sim: search: {} states stored", grouped(stats.stored));
    match stats.store {
        Some(Store::Fingerprint { bits }) => {
            write!(out, " as {bits}-bit fingerprints ({:.0} bytes a state)", stats.bytes_per_state()).unwrap()
        }
        Some(Store::Exact) => out.push_str(" whole"),
        None => {}
    }
    write!(out, ", {} generated, depth {}", grouped(stats.generated), grouped(stats.max_depth)).unwrap();
    match stats.engine {
        Engine::Dfs => out.push_str(", depth-first"),
        Engine::Stateright => out.push_str(", stateright's breadth-first search"),
    }
    let threads = if stats.threads == 1 { "1 thread".to_string() } else { format!("{} threads", stats.threads) };
    write!(out, ", {threads}, {:.2} s", stats.seconds).unwrap();
    if let Some(p) = stats.omission_probability() {
        write!(out, "; a state is missed with probability below {p:.1e}").unwrap();
    }
    out
}
