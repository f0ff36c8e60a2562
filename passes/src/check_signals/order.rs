//! The happens-before skeleton: what is ordered in *every* execution of the
//! run. Program order, forks and joins and collectives give edges outright;
//! a wait gets an edge from an item when it cannot pass without it: when
//! every notify that does not follow that item leaves the cell short of the
//! wait's condition (a necessary notify, or a set of notifies of which the
//! wait needs one: each follows the item). A notify that follows the wait
//! cannot help it, so edges make more edges: the skeleton is a fixpoint.
//!
//! It is an under-approximation of the happens-before of each execution
//! (every edge holds in every execution that reaches the wait), held as
//! vector clocks over the run's threads: the clock of an item counts, for
//! each thread, the items of that thread ordered before it. A wait that no
//! set of notifies not following it can satisfy is *dead*: it never passes.

use super::program::{At, Cell, ItemKind, Program, ThreadId};
use rustc_hash::{FxHashMap, FxHashSet};

/// The range of values a cell may hold, as far as the notifies say;
/// `None` bounds are unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: Option<i128>,
    pub hi: Option<i128>,
}

impl Range {
    /// Whether the cell could satisfy `ge threshold` (or `eq`).
    pub fn admits(&self, threshold: i64, eq: bool) -> bool {
        let t = threshold as i128;
        let below = self.hi.is_some_and(|hi| hi < t);
        let above = eq && self.lo.is_some_and(|lo| lo > t);
        !below && !above
    }
}

/// The values a cell may hold when only `notifies` have written it since
/// the start (zero-filled), `must` those of them known to have.
pub fn range(program: &Program, cell: Cell, notifies: &[super::program::At], must: impl Fn(At) -> bool) -> Range {
    let (mut sets, mut must_set) = (Vec::new(), false);
    let (mut exact, mut lo, mut hi) = (0i128, Some(0i128), Some(0i128));
    let (mut add_lo, mut add_hi) = (Some(0i128), Some(0i128));
    let add = |bound: &mut Option<i128>, v: i128| *bound = bound.map(|b| b + v);
    for &n in notifies {
        let item = program.item(n);
        let ItemKind::Notify { add: is_add, value, .. } = item.kind else { continue };
        let Some(value) = value else { return Range { lo: None, hi: None } };
        let value = value as i128;
        let sure = must(n) && item.certain && !item.repeated;
        if !is_add {
            sets.push(value);
            must_set |= sure;
            continue;
        }
        if item.repeated && value != 0 {
            if value < 0 {
                add_lo = None;
                lo = None;
            } else {
                add_hi = None;
                hi = None;
            }
            continue;
        }
        // Adds with sets: any add may come before or after the last set.
        add(if value < 0 { &mut add_lo } else { &mut add_hi }, value);
        if sure {
            exact += value;
        } else {
            add(if value < 0 { &mut lo } else { &mut hi }, value);
        }
    }
    let range = if sets.is_empty() {
        Range { lo: lo.map(|l| l + exact), hi: hi.map(|h| h + exact) }
    } else {
        if !must_set {
            sets.push(0);
        }
        let (min, max) = (*sets.iter().min().expect("a set"), *sets.iter().max().expect("a set"));
        Range { lo: add_lo.map(|l| l + min), hi: add_hi.map(|h| h + max) }
    };
    // A value that may leave the element's range wraps round: anything.
    let width = program.cell_width(cell).unwrap_or(64).clamp(1, 64);
    let (min, max) = (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1);
    if range.lo.is_some_and(|l| l < min) || range.hi.is_some_and(|h| h > max) {
        return Range { lo: None, hi: None };
    }
    range
}

/// What a wait's cell allows it.
#[derive(Clone, Debug, Default)]
pub struct WaitFacts {
    /// Items it cannot pass without: per thread, how many of its first items.
    pub needs: Vec<(ThreadId, u32)>,
    /// No notify that does not follow it can satisfy it.
    pub dead: bool,
    /// Not even every notify of the run could.
    pub impossible: bool,
}

/// Which waits give edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// Every wait's, as the bug finder uses them: a wait in a branch whose
    /// condition is not known orders what follows the branch too (a bug
    /// there is shown by a schedule anyway).
    Suspected,
    /// Only those that hold in every execution, for a proof
    /// (`ccl-verify-comm-order`'s synchronisation check). The run lists
    /// both ways of a branch one after the other: what an item of one way
    /// learns reaches only the later items of that way (and of the arms
    /// nested in it), never the other way or what follows the branch. A
    /// wait is ordered after no item of a loop of unknown trip count (one
    /// item there stands for every iteration, and a later iteration's
    /// comes after an earlier one's notify).
    Proven,
}

/// The skeleton.
pub struct Order {
    /// Per thread, per item: its index among the thread's sync items, or the
    /// index of the last sync item before it (an access).
    sync_at: Vec<Vec<u32>>,
    /// Per thread, per sync item: the clock (one count per thread).
    clocks: Vec<Vec<Vec<u32>>>,
    /// Per thread, the positions of its sync items.
    sync_pos: Vec<Vec<u32>>,
    /// Per thread, per sync item: the sync item whose clock it starts from
    /// (the one before it in program order, or under [`Edges::Proven`] the
    /// last one before it in its arm or an arm around it).
    prev: Vec<Vec<Option<u32>>>,
    pub waits: FxHashMap<At, WaitFacts>,
    pub notifies: FxHashMap<Cell, Vec<At>>,
    pub rounds: u32,
    edges: Edges,
}

/// The most fixpoint rounds (each adds edges, so few are needed).
const MAX_ROUNDS: u32 = 256;

impl Order {
    /// The clock of a sync item.
    fn clock(&self, at: At) -> &[u32] {
        let t = at.thread as usize;
        &self.clocks[t][self.sync_at[t][at.pos as usize] as usize]
    }

    /// Whether `a` happens before `b` (or is `b`) in every execution that
    /// runs both.
    pub fn before(&self, a: At, b: At) -> bool {
        if a.thread == b.thread {
            return a.pos <= b.pos;
        }
        // The last sync item of b's thread up to b (b itself, or the start).
        let t = b.thread as usize;
        let clock = &self.clocks[t][self.sync_at[t][b.pos as usize] as usize];
        clock[a.thread as usize] > a.pos
    }

    /// Whether neither happens before the other in the skeleton.
    pub fn unordered(&self, a: At, b: At) -> bool {
        !self.before(a, b) && !self.before(b, a)
    }

    /// Whether wait `w` cannot pass without item `n`.
    pub fn wait_needs(&self, w: At, n: At) -> bool {
        self.waits.get(&w).is_some_and(|f| f.needs.iter().any(|(t, count)| *t == n.thread && *count > n.pos))
    }

    /// Builds the skeleton of `program`; `None` when it is too large
    /// (threads times sync items above `max_cells`).
    pub fn build(program: &Program, max_cells: usize, edges: Edges) -> Option<Order> {
        let threads = program.threads.len();
        let mut sync_at = Vec::with_capacity(threads);
        let mut sync_pos = Vec::with_capacity(threads);
        let mut prev = Vec::with_capacity(threads);
        let mut total = 0usize;
        for thread in &program.threads {
            let (mut at, mut pos, mut before) = (Vec::with_capacity(thread.items.len()), Vec::new(), Vec::new());
            // Under `Proven`: per arm, its last sync item so far.
            let mut last_in_arm: FxHashMap<u32, u32> = FxHashMap::default();
            let last_around = |last_in_arm: &FxHashMap<u32, u32>, arm: u32| -> Option<u32> {
                let mut best: Option<u32> = None;
                let mut a = arm;
                loop {
                    if let Some(&k) = last_in_arm.get(&a) {
                        best = best.max(Some(k));
                    }
                    if a == 0 {
                        return best;
                    }
                    a = program.arm_parents[a as usize];
                }
            };
            for (p, item) in thread.items.iter().enumerate() {
                let earlier = match edges {
                    Edges::Suspected => pos.len().checked_sub(1).map(|k| k as u32),
                    Edges::Proven => last_around(&last_in_arm, item.arm),
                };
                if item.kind.is_sync() {
                    before.push(earlier);
                    last_in_arm.insert(item.arm, pos.len() as u32);
                    pos.push(p as u32);
                    at.push(pos.len() as u32 - 1);
                } else {
                    // An access before the thread's first sync item (its
                    // start) takes the start's clock, which orders nothing
                    // of other threads before it.
                    at.push(earlier.unwrap_or(0));
                }
            }
            total += pos.len();
            sync_at.push(at);
            sync_pos.push(pos);
            prev.push(before);
        }
        if total.saturating_mul(threads) > max_cells {
            return None;
        }
        let clocks = sync_pos
            .iter()
            .enumerate()
            .map(|(t, pos)| {
                pos.iter()
                    .map(|p| {
                        let mut clock = vec![0u32; threads];
                        clock[t] = p + 1;
                        clock
                    })
                    .collect()
            })
            .collect();
        let notifies = program.notifies_by_cell();
        let mut order =
            Order { sync_at, clocks, sync_pos, prev, waits: FxHashMap::default(), notifies, rounds: 0, edges };
        order.solve(program);
        Some(order)
    }

    /// Rounds of propagation until nothing grows.
    fn solve(&mut self, program: &Program) {
        let links = Links::of(program);
        loop {
            self.rounds += 1;
            let mut changed = false;
            for t in 0..program.threads.len() {
                changed |= self.propagate_thread(program, &links, t);
            }
            if !changed || self.rounds >= MAX_ROUNDS {
                break;
            }
        }
    }

    fn propagate_thread(&mut self, program: &Program, links: &Links, t: usize) -> bool {
        let mut changed = false;
        let threads = program.threads.len();
        for k in 0..self.sync_pos[t].len() {
            let pos = self.sync_pos[t][k];
            let at = At { thread: t as ThreadId, pos };
            let mut clock = match self.prev[t][k] {
                Some(j) => self.clocks[t][j as usize].clone(),
                None => vec![0; threads],
            };
            join(&mut clock, &self.clocks[t][k]);
            match &program.threads[t].items[pos as usize].kind {
                ItemKind::Start => {
                    if let Some(launch) = links.launch_of.get(&(t as ThreadId)) {
                        join(&mut clock, self.clock(*launch));
                    }
                }
                ItemKind::Join { first, count } => {
                    for b in *first..first + count {
                        let end = At { thread: b, pos: program.threads[b as usize].items.len() as u32 - 1 };
                        join(&mut clock, self.clock(end));
                    }
                }
                ItemKind::Collective { .. } => {
                    if let Some(meeting) = links.collectives.get(&at) {
                        for other in meeting {
                            let k_other = self.sync_at[other.thread as usize][other.pos as usize] as usize;
                            if k_other > 0 {
                                join(&mut clock, &self.clocks[other.thread as usize][k_other - 1]);
                            }
                            let own = &mut clock[other.thread as usize];
                            *own = (*own).max(other.pos + 1);
                        }
                    }
                }
                ItemKind::Wait { cell: Some(cell), eq, threshold: Some(threshold) } => {
                    let facts = self.wait_facts(program, at, *cell, *threshold, *eq);
                    for (u, count) in &facts.needs {
                        let entry = &mut clock[*u as usize];
                        *entry = (*entry).max(*count);
                    }
                    self.waits.insert(at, facts);
                }
                _ => {}
            }
            if clock != self.clocks[t][k] {
                self.clocks[t][k] = clock;
                changed = true;
            }
        }
        changed
    }

    /// What wait `w` cannot pass without, under the current clocks.
    fn wait_facts(&self, program: &Program, w: At, cell: Cell, threshold: i64, eq: bool) -> WaitFacts {
        if !program.cell_is_modelled(cell) {
            return WaitFacts::default();
        }
        let item = program.item(w);
        let writers: &[At] = self.notifies.get(&cell).map(Vec::as_slice).unwrap_or(&[]);
        let must = |n: At| self.before(n, w);
        let mut candidates: Vec<At> = writers.iter().copied().filter(|n| !self.before(w, *n)).collect();
        // A set that surely runs before the wait erases what every notify
        // ordered before it wrote: those cannot help.
        let erasing: Vec<At> = candidates
            .iter()
            .copied()
            .filter(|n| {
                let item = program.item(*n);
                matches!(item.kind, ItemKind::Notify { add: false, .. }) && item.certain && !item.repeated && must(*n)
            })
            .collect();
        candidates.retain(|n| !erasing.iter().any(|set| set != n && self.before(*n, *set)));
        let impossible = !range(program, cell, writers, must).admits(threshold, eq);
        if !range(program, cell, &candidates, must).admits(threshold, eq) {
            return WaitFacts { needs: Vec::new(), dead: true, impossible };
        }
        // A wait in a loop of unknown trip count stands for many: none of
        // them is known to be the one a notify precedes.
        if item.repeated {
            return WaitFacts::default();
        }
        let mut support: FxHashMap<ThreadId, u32> = FxHashMap::default();
        for n in &candidates {
            for (u, count) in self.clock(*n).iter().enumerate() {
                if *count > 0 && u != w.thread as usize {
                    let entry = support.entry(u as ThreadId).or_insert(0);
                    *entry = (*entry).max(*count);
                }
            }
        }
        let mut needs = Vec::new();
        let mut threads: Vec<(ThreadId, u32)> = support.into_iter().collect();
        threads.sort_unstable();
        for (u, limit) in threads {
            // Whether w cannot pass without item p of u: the candidates that
            // do not follow it cannot satisfy it (or one that surely ran does).
            let needs_item = |p: u32| {
                let (mut rest, mut after_must) = (Vec::new(), false);
                for n in &candidates {
                    if self.clock(*n)[u as usize] > p {
                        after_must |= must(*n) && program.item(*n).certain;
                    } else {
                        rest.push(*n);
                    }
                }
                after_must || !range(program, cell, &rest, must).admits(threshold, eq)
            };
            if !needs_item(0) {
                continue;
            }
            let (mut low, mut high) = (0u32, limit - 1);
            while low < high {
                let mid = low + (high - low).div_ceil(2);
                if needs_item(mid) {
                    low = mid;
                } else {
                    high = mid - 1;
                }
            }
            if self.edges == Edges::Proven {
                // The last item up to `low` outside loops of unknown trip
                // count, itself needed (the search assumes that needing an
                // item means needing every earlier one; a proof checks it).
                let items = &program.threads[u as usize].items;
                match (0..=low).rev().find(|&p| !items[p as usize].repeated) {
                    Some(p) if needs_item(p) => low = p,
                    _ => continue,
                }
            }
            needs.push((u, low + 1));
        }
        WaitFacts { needs, dead: false, impossible }
    }
}

fn join(into: &mut [u32], other: &[u32]) {
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

/// The edges that do not depend on values: which launch forked a block, and
/// which collectives meet.
struct Links {
    launch_of: FxHashMap<ThreadId, At>,
    collectives: FxHashMap<At, Vec<At>>,
}

impl Links {
    fn of(program: &Program) -> Links {
        let mut launch_of = FxHashMap::default();
        let mut per_host: Vec<Vec<At>> = Vec::new();
        let mut uncertain = FxHashSet::default();
        for host in program.hosts() {
            let mut mine = Vec::new();
            program.for_each_item_of(host, |at, item| {
                if let ItemKind::Collective { .. } = item.kind {
                    if !item.certain || item.repeated {
                        uncertain.insert(host);
                    }
                    mine.push(at);
                }
            });
            per_host.push(mine);
        }
        program.for_each_item(|at, item| {
            if let ItemKind::Launch { first, count } = item.kind {
                for b in first..first + count {
                    launch_of.insert(b, at);
                }
            }
        });
        // The k-th collective of every host meet, when every host has the
        // same number of them, all certain (else ccl-sim stops, or the
        // meeting is not known: no edge).
        let mut collectives = FxHashMap::default();
        let same = per_host.windows(2).all(|w| w[0].len() == w[1].len());
        if same && uncertain.is_empty() && !per_host.is_empty() {
            for k in 0..per_host[0].len() {
                let meeting: Vec<At> = per_host.iter().map(|h| h[k]).collect();
                for at in &meeting {
                    collectives.insert(*at, meeting.clone());
                }
            }
        }
        Links { launch_of, collectives }
    }
}
