//! Which schedules to try. The skeleton ([`super::order`]) names the
//! suspects: pairs of accesses it does not order, resets it does not order
//! with a notify of the same cell, waits whose condition can be made false
//! again. Each suspect gets a plan aimed at it ([`super::machine::Plan`]);
//! the plain schedule (lowest thread first) runs too. A schedule that ends
//! in a race or a deadlock is a witness, and [`super::rules`] says which
//! rule of the signal discipline it breaks.

use super::machine::{self, Outcome, Plan, Run};
use super::order::Order;
use super::program::{At, Cell, ItemKind, Loc, Program};
use rustc_hash::{FxHashMap, FxHashSet};

/// What the search tried.
#[derive(Clone, Debug, Default)]
pub struct Tried {
    pub schedules: u64,
    pub race_suspects: u64,
    pub reset_suspects: u64,
    pub release_suspects: u64,
}

/// A suspect the plan was aimed at, for the rules and the warnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Aim {
    Plain,
    /// Two accesses the skeleton does not order.
    Race(At, At),
    /// A reset (`set` to `value`) that may land after a notify of its cell.
    Erase {
        reset: At,
        notify: At,
    },
    /// A wait whose condition may hold and then not.
    Release(At),
}

/// A schedule tried: what it aimed at and how it ran.
pub struct Attempt {
    pub aim: Aim,
    pub run: Run,
}

/// Every cell a notify or wait names.
pub fn signal_cells(program: &Program) -> FxHashSet<Cell> {
    let mut cells = FxHashSet::default();
    program.for_each_item(|_, item| match item.kind {
        ItemKind::Notify { cell: Some(cell), .. } | ItemKind::Wait { cell: Some(cell), .. } => {
            cells.insert(cell);
        }
        _ => {}
    });
    cells
}

/// The schedules worth trying, and how each ran; at most `budget` of them.
pub fn search(program: &Program, order: &Order, budget: usize, tried: &mut Tried) -> Vec<Attempt> {
    let cells = signal_cells(program);
    let mut attempts = Vec::new();
    let mut run = |aim: Aim, plan: Plan, attempts: &mut Vec<Attempt>| {
        if attempts.len() < budget {
            tried.schedules += 1;
            let run = machine::run(program, &cells, &plan);
            attempts.push(Attempt { aim, run });
        }
    };
    run(Aim::Plain, Plan::default(), &mut attempts);
    let races = race_suspects(program, order, &cells);
    tried.race_suspects = races.len() as u64;
    for (a, b) in races {
        // One order of the two, then the other if the first found nothing.
        run(Aim::Race(a, b), Plan { goals: vec![a, b], isolate: true, ..Plan::default() }, &mut attempts);
        if !attempts.last().is_some_and(|x| matches!(x.run.outcome, Outcome::Race { .. })) {
            run(Aim::Race(a, b), Plan { goals: vec![b, a], isolate: true, ..Plan::default() }, &mut attempts);
        }
    }
    let resets = reset_suspects(program, order);
    tried.reset_suspects = resets.len() as u64;
    for (reset, notify, cell) in resets {
        let plan =
            Plan { goals: vec![notify, reset], holds: vec![(reset, 0)], hold_cell: Some((cell, 1)), ..Plan::default() };
        run(Aim::Erase { reset, notify }, plan, &mut attempts);
    }
    let releases = release_suspects(program, order);
    tried.release_suspects = releases.len() as u64;
    for wait in releases {
        run(Aim::Release(wait), Plan { starve: Some(wait), ..Plan::default() }, &mut attempts);
    }
    attempts
}

/// Instances of one suspect site pair tried at most.
const PER_SITES: usize = 2;
/// Suspects of one kind tried at most.
const MAX_SUSPECTS: usize = 256;

/// Pairs of accesses of one element by different threads, one a write,
/// that the skeleton does not order: a few instances per pair of sites.
fn race_suspects(program: &Program, order: &Order, cells: &FxHashSet<Cell>) -> Vec<(At, At)> {
    let mut by_loc: FxHashMap<Loc, Vec<(At, bool)>> = FxHashMap::default();
    program.for_each_item(|at, item| {
        let ItemKind::Access { reads, writes, .. } = &item.kind else { return };
        if !item.certain || item.repeated {
            return;
        }
        for (locs, write) in [(reads, false), (writes, true)] {
            for loc in locs.iter().flatten().filter(|l| !cells.contains(l)) {
                by_loc.entry(*loc).or_default().push((at, write));
            }
        }
    });
    let mut locs: Vec<&Loc> = by_loc.keys().collect();
    locs.sort_unstable();
    let mut seen: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut suspects = Vec::new();
    for loc in locs {
        let accesses = &by_loc[loc];
        for (i, (a, write_a)) in accesses.iter().enumerate() {
            for (b, write_b) in &accesses[i + 1..] {
                if a.thread == b.thread || !(write_a | write_b) || !order.unordered(*a, *b) {
                    continue;
                }
                let sites = (program.item(*a).site, program.item(*b).site);
                let count = seen.entry((sites.0.min(sites.1), sites.0.max(sites.1))).or_insert(0);
                if *count >= PER_SITES || suspects.len() >= MAX_SUSPECTS {
                    continue;
                }
                *count += 1;
                suspects.push((*a, *b));
            }
        }
    }
    suspects
}

/// Resets (a `set`) and notifies of the same cell by another thread that
/// would raise it, with no order between them: the notify may land first
/// and be erased.
fn reset_suspects(program: &Program, order: &Order) -> Vec<(At, At, Cell)> {
    let mut seen: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut suspects = Vec::new();
    let mut cells: Vec<(&Cell, &Vec<At>)> = order.notifies.iter().collect();
    cells.sort_unstable();
    for (cell, notifies) in cells {
        for &reset in notifies {
            let Some((false, Some(low))) = notify_of(program, reset) else { continue };
            for &notify in notifies {
                let Some((add, Some(value))) = notify_of(program, notify) else { continue };
                let raises = if add { value > 0 } else { value > low };
                if notify.thread == reset.thread || !raises || !order.unordered(reset, notify) {
                    continue;
                }
                let key = (program.item(reset).site, program.item(notify).site);
                let count = seen.entry(key).or_insert(0);
                if *count >= PER_SITES || suspects.len() >= MAX_SUSPECTS {
                    continue;
                }
                *count += 1;
                suspects.push((reset, notify, *cell));
            }
        }
    }
    suspects
}

/// A certain notify's kind (add) and value.
pub fn notify_of(program: &Program, at: At) -> Option<(bool, Option<i64>)> {
    let item = program.item(at);
    match item.kind {
        ItemKind::Notify { add, value, .. } if item.certain && !item.repeated => Some((add, value)),
        _ => None,
    }
}

/// Waits whose condition a notify of another thread, not ordered with the
/// wait, could make false once it holds: an `eq` wait, or a `ge` wait on a
/// cell that also goes down.
pub fn release_suspects(program: &Program, order: &Order) -> Vec<At> {
    let mut seen: FxHashMap<u32, usize> = FxHashMap::default();
    let mut suspects = Vec::new();
    program.for_each_item(|w, item| {
        let ItemKind::Wait { cell: Some(cell), eq, threshold: Some(_) } = item.kind else { return };
        if !item.certain || item.repeated || !program.cell_is_modelled(cell) {
            return;
        }
        let falsifies = |n: &At| {
            let Some((add, Some(value))) = notify_of(program, *n) else { return false };
            let lowers = if eq { value != 0 || !add } else { !add || value < 0 };
            n.thread != w.thread && lowers && !order.before(*n, w) && !order.before(w, *n)
        };
        let writers = order.notifies.get(&cell).map(Vec::as_slice).unwrap_or(&[]);
        if !writers.iter().any(falsifies) {
            return;
        }
        let count = seen.entry(item.site).or_insert(0);
        if *count < PER_SITES && suspects.len() < MAX_SUSPECTS {
            *count += 1;
            suspects.push(w);
        }
    });
    suspects
}
