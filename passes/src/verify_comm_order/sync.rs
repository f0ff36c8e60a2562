//! The half of a data race no marker fixes (SEMANTICS.md, race (b)): two
//! accesses of different threads to one location, one of them a write, that
//! no happens-before edge orders. Markers make a write visible once the
//! synchronisation orders it before a read; this check proves that the
//! synchronisation does order every such pair.
//!
//! It writes out the run of the program's entry on `ranks` ranks, as
//! `ccl-sim` runs it (integer arguments 0, each launch's blocks), with the
//! instantiation of `ccl-check-signals`, and builds that analysis's
//! happens-before skeleton in its proven form ([`Edges::Proven`]): program
//! order, launches and joins, collectives that every host meets, and a wait
//! ordered after an item only when no set of notifies that do not follow
//! the item can satisfy it. Every edge holds in every execution, so a pair
//! the skeleton orders is ordered in each; a pair it does not order is
//! reported, whether or not some execution shows the race (a false alarm is
//! possible, an accepted race is not). A run the instantiation cannot
//! follow is no proof, and says so.

use crate::check_signals::{
    instantiate::{self, Instantiation, Limits, Stop},
    order::{Edges, Order},
    program::{At, ItemKind, Loc, Program, RootId, Within},
};
use melior::ir::OperationRef;
use rustc_hash::{FxHashMap, FxHashSet};

/// Two accesses the synchronisation does not order.
#[derive(Clone, Debug)]
pub struct Unordered {
    /// A write (or read-and-write).
    pub write: At,
    /// The other access.
    pub other: At,
    /// An element both may touch (`None`: one of them touches elements the
    /// analysis does not know).
    pub loc: Option<Loc>,
}

/// The run and the pairs it leaves unordered (one per pair of sites).
pub struct Checked<'c, 'a> {
    pub instantiation: Instantiation<'c, 'a>,
    pub unordered: Vec<Unordered>,
}

/// Bounds on the check's work.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Observable ops of the run.
    pub max_items: usize,
    /// Threads times sync items of the skeleton.
    pub max_clock_cells: usize,
    /// Pairs of accesses compared.
    pub max_pairs: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds { max_items: 200_000, max_clock_cells: 64 << 20, max_pairs: 50_000_000 }
    }
}

/// What one access may touch.
#[derive(Clone, Debug)]
enum Footprint {
    Elements(Vec<Loc>),
    /// Every element of these buffers on one rank (`None`: on every rank);
    /// a collective's buffers, or an access whose elements are not known.
    Buffers(Vec<RootId>, Option<u32>),
    /// Anything (not even the buffer is known).
    Anything,
}

struct Access {
    at: At,
    reads: Footprint,
    writes: Footprint,
}

/// Checks the run of `program`'s entry on `ranks` ranks.
pub fn check<'c, 'a>(
    program: OperationRef<'c, 'a>,
    ranks: u32,
    bounds: Bounds,
) -> Result<Checked<'c, 'a>, Stop<'c, 'a>> {
    let instantiation = instantiate::instantiate(program, ranks, Limits::for_items(bounds.max_items))?;
    let run = &instantiation.program;
    let no_conclusion = |reason: &str| Stop::NoConclusion { at: Some(program), reason: reason.to_string() };
    let order = Order::build(run, bounds.max_clock_cells, Edges::Proven)
        .ok_or_else(|| no_conclusion("the run has too many threads and synchronising ops"))?;
    let unordered = unordered_pairs(run, &order, bounds.max_pairs)
        .ok_or_else(|| no_conclusion("the run has too many pairs of accesses to compare"))?;
    Ok(Checked { instantiation, unordered })
}

/// The accesses of the run.
fn accesses(run: &Program) -> Vec<Access> {
    let ranks: Vec<u32> = (0..run.ranks).collect();
    let footprint = |locs: &Option<Vec<Loc>>, within: &Option<Within>| match (locs, within) {
        (Some(locs), _) => Footprint::Elements(locs.clone()),
        // Every element it may touch, on its rank (or on any).
        (None, Some(Within { root, rank, indices: Some(indices) })) => Footprint::Elements(
            rank.as_ref()
                .map_or(ranks.as_slice(), std::slice::from_ref)
                .iter()
                .flat_map(|&rank| indices.iter().map(move |&index| Loc { root: *root, rank, index }))
                .collect(),
        ),
        (None, Some(Within { root, rank, indices: None })) => Footprint::Buffers(vec![*root], *rank),
        (None, None) => Footprint::Anything,
    };
    let mut out = Vec::new();
    run.for_each_item(|at, item| match &item.kind {
        ItemKind::Access { reads, writes, within } => {
            out.push(Access { at, reads: footprint(reads, &within[0]), writes: footprint(writes, &within[1]) })
        }
        ItemKind::Collective { roots } if !roots.is_empty() => out.push(Access {
            at,
            reads: Footprint::Buffers(roots.clone(), None),
            writes: Footprint::Buffers(roots.clone(), None),
        }),
        _ => {}
    });
    out
}

/// One side of an access in an index: the access, whether it writes, and
/// the rank of the copy it touches (`None`: any).
type Side = (usize, bool, Option<u32>);

/// The pairs the skeleton leaves unordered, the first of each pair of
/// sites; `None` past `max_pairs` comparisons.
fn unordered_pairs(run: &Program, order: &Order, max_pairs: u64) -> Option<Vec<Unordered>> {
    let accesses = accesses(run);
    // Per element and per buffer: who reads and who writes there; and
    // who may touch anything.
    let mut by_loc: FxHashMap<Loc, Vec<(usize, bool)>> = FxHashMap::default();
    let mut by_root: FxHashMap<RootId, Vec<Side>> = FxHashMap::default();
    let mut wide: Vec<Side> = Vec::new();
    let mut anywhere: Vec<(usize, bool)> = Vec::new();
    for (i, access) in accesses.iter().enumerate() {
        for (footprint, write) in [(&access.reads, false), (&access.writes, true)] {
            match footprint {
                Footprint::Elements(locs) => {
                    for loc in locs {
                        by_loc.entry(*loc).or_default().push((i, write));
                        by_root.entry(loc.root).or_default().push((i, write, Some(loc.rank)));
                    }
                }
                Footprint::Buffers(roots, rank) => {
                    for root in roots {
                        by_root.entry(*root).or_default().push((i, write, *rank));
                    }
                    wide.push((i, write, *rank));
                }
                Footprint::Anything => anywhere.push((i, write)),
            }
        }
    }
    let mut pairs =
        Pairs { run, order, accesses: &accesses, seen: FxHashSet::default(), out: Vec::new(), budget: max_pairs };
    let mut locs: Vec<&Loc> = by_loc.keys().collect();
    locs.sort_unstable();
    for loc in locs {
        let bucket = &by_loc[loc];
        for (k, &a) in bucket.iter().enumerate() {
            for &b in &bucket[k + 1..] {
                pairs.compare(a, b, Some(*loc))?;
            }
        }
    }
    // A whole buffer against every access of that buffer's copy.
    for &(w, write, rank) in &wide {
        let Footprint::Buffers(roots, _) = (if write { &accesses[w].writes } else { &accesses[w].reads }) else {
            continue;
        };
        for root in roots {
            for &(other, other_writes, other_rank) in by_root.get(root).map(Vec::as_slice).unwrap_or(&[]) {
                if rank.is_none() || other_rank.is_none() || rank == other_rank {
                    pairs.compare((w, write), (other, other_writes), None)?;
                }
            }
        }
    }
    // Anything against every access.
    for &(w, write) in &anywhere {
        for (other, access) in accesses.iter().enumerate() {
            for (footprint, other_writes) in [(&access.reads, false), (&access.writes, true)] {
                if !matches!(footprint, Footprint::Elements(locs) if locs.is_empty()) {
                    pairs.compare((w, write), (other, other_writes), None)?;
                }
            }
        }
    }
    Some(pairs.out)
}

/// The comparisons made so far and what they found.
struct Pairs<'r> {
    run: &'r Program,
    order: &'r Order,
    accesses: &'r [Access],
    /// Pairs of sites already reported.
    seen: FxHashSet<(u32, u32)>,
    out: Vec<Unordered>,
    budget: u64,
}

impl Pairs<'_> {
    /// Compares two accesses (`index`, whether as a write); `None` when
    /// the budget is spent.
    fn compare(&mut self, (a, a_writes): (usize, bool), (b, b_writes): (usize, bool), loc: Option<Loc>) -> Option<()> {
        let (x, y) = (self.accesses[a].at, self.accesses[b].at);
        if x.thread == y.thread || !(a_writes || b_writes) {
            return Some(());
        }
        self.budget = self.budget.checked_sub(1)?;
        let sites = (self.run.item(x).site, self.run.item(y).site);
        let key = (sites.0.min(sites.1), sites.0.max(sites.1));
        if self.seen.contains(&key) || !self.order.unordered(x, y) {
            return Some(());
        }
        self.seen.insert(key);
        let (write, other) = if a_writes { (x, y) } else { (y, x) };
        self.out.push(Unordered { write, other, loc });
        Some(())
    }
}
