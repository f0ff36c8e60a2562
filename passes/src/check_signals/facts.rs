//! The facts of each signal cell of the run (docs/bugs.md, "Facts per
//! cell"): who notifies it (set or add, the values, how many times, how many
//! writers), who waits on it (comparison, thresholds, whether they change
//! from one execution to the next), which writes lower it (resets), over how
//! many executions the protocol repeats on it, the net balance of the adds
//! per execution and over the run, and which waits cannot pass without
//! which notifies (the skeleton's necessary edges).

use super::order::Order;
use super::program::{At, Cell, ItemKind, Program, SiteId};
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;

/// One cell's facts, as a remark at the first op that waits on it (or
/// notifies it).
#[derive(Clone, Debug)]
pub struct CellFacts {
    pub cell: Cell,
    pub site: SiteId,
    pub text: String,
}

/// One notify or wait site's instances on a cell.
#[derive(Default)]
struct SiteUse {
    count: u32,
    values: BTreeMap<Option<i64>, u32>,
    chains: FxHashSet<(u32, u32)>,
    executions: FxHashSet<u32>,
}

/// The facts of every cell some wait or notify names, in cell order;
/// `name` says where a site is ("line 12").
pub fn of(program: &Program, order: &Order, name: &dyn Fn(SiteId) -> String) -> Vec<CellFacts> {
    let mut waits_on: BTreeMap<Cell, Vec<At>> = BTreeMap::new();
    program.for_each_item(|at, item| {
        if let ItemKind::Wait { cell: Some(cell), .. } = item.kind {
            waits_on.entry(cell).or_default().push(at);
        }
    });
    let mut cells: Vec<Cell> = order.notifies.keys().chain(waits_on.keys()).copied().collect();
    cells.sort_unstable();
    cells.dedup();
    let none = Vec::new();
    cells
        .into_iter()
        .map(|cell| {
            let notifies = order.notifies.get(&cell).unwrap_or(&none);
            let waits = waits_on.get(&cell).unwrap_or(&none);
            cell_facts(program, order, cell, notifies, waits, name)
        })
        .collect()
}

fn cell_facts(
    program: &Program,
    order: &Order,
    cell: Cell,
    notifies: &[At],
    waits: &[At],
    name: &dyn Fn(SiteId) -> String,
) -> CellFacts {
    let execution =
        |at: At| -> u32 { program.threads[at.thread as usize].kernel.as_ref().map_or(0, |(_, launch)| *launch) };
    let mut writers: BTreeMap<(SiteId, bool), SiteUse> = BTreeMap::new();
    let mut thresholds: BTreeMap<(SiteId, bool), SiteUse> = BTreeMap::new();
    let mut balance_per_execution: BTreeMap<u32, i64> = BTreeMap::new();
    let (mut balance, mut unknown_balance) = (0i64, false);
    for &n in notifies {
        let item = program.item(n);
        let ItemKind::Notify { add, value, .. } = item.kind else { continue };
        let thread = &program.threads[n.thread as usize];
        let entry = writers.entry((item.site, add)).or_default();
        entry.count += 1;
        *entry.values.entry(value).or_insert(0) += 1;
        entry.chains.insert((thread.rank, thread.slot));
        entry.executions.insert(execution(n));
        if add {
            match value {
                Some(v) if !item.repeated => {
                    balance += v;
                    *balance_per_execution.entry(execution(n)).or_insert(0) += v;
                }
                _ => unknown_balance = true,
            }
        }
    }
    for &w in waits {
        let item = program.item(w);
        let ItemKind::Wait { eq, threshold, .. } = item.kind else { continue };
        let thread = &program.threads[w.thread as usize];
        let entry = thresholds.entry((item.site, eq)).or_default();
        entry.count += 1;
        *entry.values.entry(threshold).or_insert(0) += 1;
        entry.chains.insert((thread.rank, thread.slot));
        entry.executions.insert(execution(w));
    }
    let lowest_wait = thresholds.values().flat_map(|u| u.values.keys().flatten()).min().copied();
    let mut parts = Vec::new();
    parts.push(format!(
        "notified by {}",
        list(&writers, |(site, add), u| {
            let kind = if *add { "atomic_add" } else { "set" };
            format!(
                "{kind} {} at {} ({} times, {} writer{})",
                values(&u.values),
                name(*site),
                u.count,
                u.chains.len(),
                plural(u.chains.len())
            )
        })
    ));
    parts.push(format!(
        "waited on by {}",
        list(&thresholds, |(site, eq), u| {
            let cmp = if *eq { "eq" } else { "ge" };
            let fixed = if u.values.len() > 1 { ", the threshold changes" } else { "" };
            format!("{cmp} {} at {} ({} times{fixed})", values(&u.values), name(*site), u.count)
        })
    ));
    let resets: Vec<String> = writers
        .iter()
        .filter(|((_, add), u)| {
            u.values.keys().any(|v| match v {
                Some(v) if *add => *v < 0,
                Some(v) => lowest_wait.is_some_and(|t| *v < t),
                None => true,
            })
        })
        .map(|((site, _), _)| name(*site))
        .collect();
    parts.push(if resets.is_empty() { "no reset".to_string() } else { format!("lowered at {}", resets.join(", ")) });
    let executions: FxHashSet<u32> =
        writers.values().chain(thresholds.values()).flat_map(|u| u.executions.iter().copied()).collect();
    let repeats = writers
        .values()
        .chain(thresholds.values())
        .map(|u| u.count as usize / u.chains.len().max(1))
        .max()
        .unwrap_or(0);
    parts.push(format!(
        "used by {} execution{}, each site up to {repeats} time{} per thread chain",
        executions.len(),
        plural(executions.len()),
        plural(repeats)
    ));
    if !writers.keys().any(|(_, add)| *add) {
        parts.push("no adds".to_string());
    } else if unknown_balance {
        parts.push("adds of unknown total".to_string());
    } else {
        let per: Vec<String> = balance_per_execution.values().map(|v| format!("{v:+}")).collect();
        parts.push(format!("adds total {balance:+} (per execution: {})", per.join(", ")));
    }
    parts.push(necessary(program, order, notifies, waits, name));
    let site = waits.first().or(notifies.first()).map_or(0, |at| program.item(*at).site);
    CellFacts { cell, site, text: format!("signal cell {}: {}", program.describe_loc(cell), parts.join("; ")) }
}

/// The wait sites that cannot pass without a notify site's instances.
fn necessary(
    program: &Program,
    order: &Order,
    notifies: &[At],
    waits: &[At],
    name: &dyn Fn(SiteId) -> String,
) -> String {
    let mut pairs: BTreeMap<(SiteId, SiteId), u32> = BTreeMap::new();
    let mut dead = 0;
    for &w in waits {
        let facts = order.waits.get(&w);
        if facts.is_some_and(|f| f.dead) {
            dead += 1;
        }
        for &n in notifies {
            if order.wait_needs(w, n) {
                *pairs.entry((program.item(w).site, program.item(n).site)).or_insert(0) += 1;
            }
        }
    }
    let mut text = if pairs.is_empty() {
        "no wait needs a particular notify".to_string()
    } else {
        let edges: Vec<String> = pairs
            .iter()
            .map(|((w, n), count)| format!("the wait at {} needs the notify at {} ({count}x)", name(*w), name(*n)))
            .collect();
        edges.join(", ")
    };
    if dead > 0 {
        text.push_str(&format!("; {dead} wait{} can never pass", plural(dead)));
    }
    text
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn values(values: &BTreeMap<Option<i64>, u32>) -> String {
    let shown: Vec<String> = values.keys().map(|v| v.map_or("?".to_string(), |v| v.to_string())).collect();
    shown.join("|")
}

fn list<K>(map: &BTreeMap<K, SiteUse>, show: impl Fn(&K, &SiteUse) -> String) -> String {
    if map.is_empty() {
        return "nothing".to_string();
    }
    map.iter().map(|(k, u)| show(k, u)).collect::<Vec<_>>().join(", ")
}
