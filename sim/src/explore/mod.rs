//! Choosing schedules: every interleaving of observable steps (an
//! exhaustive search), or seeded random schedules for programs too large for
//! that.
//!
//! The exhaustive search is `dfs`: a depth-first search on every core that
//! stores visited states as fingerprints (`fingerprint`, `visited`).
//! stateright's breadth-first checker (`stateright`) is kept as a second
//! engine to measure against (`--engine stateright`); it finds the shortest
//! schedule to a finding, `dfs` a schedule.
//!
//! Every search checks its bounds on every state it makes: `--max-states`
//! counts the states generated, `--max-memory` the bytes the process holds
//! (`memory::in_use`). Reaching either ends the search with no conclusion.

mod dfs;
mod dpor;
pub mod fingerprint;
mod por;
mod random;
mod stateright;
pub mod visited;

use super::cost::RunCost;
use super::machine::{Action, Finding, Machine, State};
use super::memory;
use super::program::SiteId;
use std::sync::Arc;
use std::time::Instant;

pub use random::{random, schedule as random_schedule, Traced, Tracer};

/// One part of a search split into `count` independent parts (`--shard
/// K/N`): part `index` runs the random schedules whose number is `index`
/// modulo `count`, or (a swarm) the whole exhaustive search in an order of
/// its own. The parts' verdicts combine: a finding in any part is the
/// search's; the random parts together run exactly the schedules the whole
/// search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// The `k`-th (from 0) of this part's schedules among `runs`.
    pub fn run(self, k: usize) -> usize {
        self.index + k * self.count
    }

    /// How many of `runs` schedules are this part's.
    pub fn runs_of(self, runs: usize) -> usize {
        runs.saturating_sub(self.index).div_ceil(self.count)
    }

    /// Reads `K/N` (0 <= K < N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (index, count) = text.split_once('/').ok_or("expected K/N")?;
        let number = |part: &str| part.trim().parse::<usize>().map_err(|_| "expected K/N, two integers".to_string());
        let (index, count) = (number(index)?, number(count)?);
        if count == 0 || index >= count {
            return Err(format!("K must be below N (shards are numbered from 0): {index}/{count}"));
        }
        Ok(Shard { index, count })
    }
}

/// The order seed of swarm member `shard` of a search seeded `seed`.
pub fn swarm_seed(seed: u64, shard: Shard) -> u64 {
    random::run_seed(seed, shard.index)
}

/// The random schedules a search ran to their end: each one's number
/// (from 0) and a digest of the actions it took, by number. Two searches
/// that ran the same schedules have the same digests; the parts of a
/// sharded search together have the whole search's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sampled {
    pub runs: Vec<(usize, u64)>,
}

/// What a search found.
#[derive(Debug)]
pub enum Outcome {
    /// Every schedule (exhaustive) or every sampled schedule ran to its end
    /// without a finding; `cost` is what they executed.
    /// `schedules` are the random ones (none for an exhaustive search).
    Clean { states: usize, schedules: Option<Sampled>, cost: RunCost, stats: Option<SearchStats> },
    /// A race, deadlock, runtime error or located limit, with the schedule
    /// that led there and the state it ended in; `run` is the number (from
    /// 0) of the random schedule that found it, `schedules` the random ones
    /// that ran to their end.
    Found {
        finding: Arc<Finding>,
        schedule: Vec<Step>,
        last: Box<State>,
        states: usize,
        run: Option<usize>,
        schedules: Option<Sampled>,
        stats: Option<SearchStats>,
    },
    /// A bound of the whole search was reached first: nothing can be
    /// concluded.
    Limit { states: usize, generated: usize, bound: Bound, stats: Option<SearchStats> },
}

impl Outcome {
    /// The exhaustive search's statistics (none for random schedules).
    pub fn stats(&self) -> Option<&SearchStats> {
        match self {
            Outcome::Clean { stats, .. } | Outcome::Found { stats, .. } | Outcome::Limit { stats, .. } => {
                stats.as_ref()
            }
        }
    }
}

/// One step of a reported schedule: the action, the op it took and, for a
/// landing, how many writes landed: what the report says of it
/// (`report::step_text`), read from the state it was taken in, which is
/// not kept.
#[derive(Clone, Debug)]
pub struct Step {
    pub action: Action,
    pub site: Option<SiteId>,
    /// The writes of the unit a landing landed (0 for other actions).
    pub writes: usize,
}

impl Step {
    /// `action` as a step taken in `state`.
    pub fn taken(machine: &Machine, state: &State, action: Action) -> Step {
        let writes = match action {
            Action::Land(t, u) => state.inflight[t as usize][u as usize].writes.len(),
            Action::Step(_) | Action::Collective => 0,
        };
        Step { action, site: machine.action_site(state, action), writes }
    }
}

/// The bound a search stopped at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// `--max-states`.
    States(usize),
    /// `--max-memory`, with the bytes held when it was reached.
    Memory { max: u64, held: u64 },
    /// `--max-time`.
    Time { seconds: f64 },
    /// An execution longer than `--max-steps` actions (`--por dpor`, which
    /// keeps no visited states, so a cycle of states is a schedule that
    /// does not end).
    Depth(usize),
}

/// The bound a search has reached after its `count`-th state or transition
/// (`--max-states`), with `started` its start (`--max-time`), if any. The
/// clock is read every 256 counts: it is not free.
fn bound_reached(count: usize, config: &SearchConfig, machine: &Machine, started: Instant) -> Option<Bound> {
    if count > config.max_states {
        return Some(Bound::States(config.max_states));
    }
    let held = memory::in_use();
    if held > machine.limits.max_memory {
        return Some(Bound::Memory { max: machine.limits.max_memory, held });
    }
    match config.max_seconds {
        Some(max) if count.is_multiple_of(256) && started.elapsed().as_secs_f64() > max => {
            Some(Bound::Time { seconds: max })
        }
        _ => None,
    }
}

/// How visited states are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// A fingerprint of each state (hash compaction): two states with the
    /// same fingerprint are taken for one, so a state is missed with the
    /// probability [`SearchStats::omission_probability`] gives.
    Fingerprint { bits: u32 },
    /// Whole states, compared exactly: nothing is missed, at a few KB a
    /// state.
    Exact,
}

impl Default for Store {
    fn default() -> Self {
        Store::Fingerprint { bits: 128 }
    }
}

/// Which exhaustive search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// ccl-sim's own: depth-first, on every core, fingerprints.
    #[default]
    Dfs,
    /// stateright's breadth-first checker with its full visited set and
    /// frontier (kept to measure against).
    Stateright,
    /// Dynamic partial-order reduction (`--por dpor`): stateless,
    /// depth-first, on every core, source sets and sleep sets over what
    /// each action touched (`dpor`).
    Dpor,
}

/// How an exhaustive search runs.
#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    /// States generated before the search stops with no conclusion.
    pub max_states: usize,
    /// Worker threads (at least 1).
    pub threads: usize,
    pub store: Store,
    pub engine: Engine,
    /// Partial-order reduction (`--por`, `dfs` only): each state follows a
    /// persistent set of its actions (`por`).
    pub por: bool,
    /// Seconds the search may run before it stops with no conclusion
    /// (`--max-time`).
    pub max_seconds: Option<f64>,
    /// Transitions the first worker of `--por dpor` takes alone before the
    /// others may split the tree: a small search runs on one thread, so
    /// what it reports is the same in every run (`dpor::worker`).
    pub solo: usize,
    /// A swarm's order (`--swarm`): the depth-first search takes each
    /// state's successors in an order drawn from this seed and the state,
    /// not the machine's. `None`: the machine's order.
    pub swarm: Option<u64>,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            max_states: 2_000_000,
            threads: 1,
            store: Store::default(),
            engine: Engine::Dfs,
            por: true,
            max_seconds: None,
            solo: 20_000,
            swarm: None,
        }
    }
}

/// What an exhaustive search did, for the summary line and the benchmarks.
#[derive(Clone, Debug, Default)]
pub struct SearchStats {
    /// Distinct states stored.
    pub stored: usize,
    /// Successor states made (each transition explored is one).
    pub generated: usize,
    /// The longest schedule the search followed.
    pub max_depth: usize,
    /// States expanded along a persistent set smaller than their actions.
    pub reduced: usize,
    /// Executions run to their end (`--por dpor`).
    pub executions: usize,
    /// Executions cut where every enabled action sleeps (`--por dpor`).
    pub sleep_blocked: usize,
    /// Times a worker of `--por dpor` took over a branch of another's
    /// execution (work stealing).
    pub taken_over: usize,
    /// Bytes of the visited set (its table, or the states it keeps).
    pub visited_bytes: u64,
    /// How the states were stored.
    pub store: Option<Store>,
    pub threads: usize,
    pub seconds: f64,
    pub engine: Engine,
}

impl SearchStats {
    /// Bytes of the visited set per stored state.
    pub fn bytes_per_state(&self) -> f64 {
        if self.stored == 0 {
            0.0
        } else {
            self.visited_bytes as f64 / self.stored as f64
        }
    }

    /// An upper bound of the probability that hash compaction took two
    /// different states for one and so left states unexplored, as Spin
    /// states it for its own: with n states and b-bit fingerprints, at most
    /// n(n-1)/2 pairs, each colliding with probability 2^-b.
    pub fn omission_probability(&self) -> Option<f64> {
        match self.store? {
            Store::Exact => None,
            Store::Fingerprint { bits } => {
                let n = self.stored as f64;
                Some((n * (n - 1.0) / 2.0 * (-(bits as f64)).exp2()).min(1.0))
            }
        }
    }
}

fn finding_of(machine: &Machine, state: &State) -> Arc<Finding> {
    match &state.finding {
        Some(finding) => finding.clone(),
        None if machine.deadlocked(state) => Arc::new(Finding::Deadlock),
        None => unreachable!("a discovery has a finding or a deadlock"),
    }
}

/// The schedule `actions` from the initial state, with what each step did,
/// and the state it ends in.
fn replay(machine: &Machine, actions: &[Action]) -> (Vec<Step>, State) {
    let mut state = machine.initial();
    let mut schedule = Vec::with_capacity(actions.len());
    for &action in actions {
        schedule.push(Step::taken(machine, &state, action));
        machine.apply(&mut state, action);
    }
    (schedule, state)
}

/// Explores every schedule of `machine`, stopping after `config.max_states`
/// generated states or at the memory bound.
pub fn exhaustive(machine: Machine, config: &SearchConfig) -> Outcome {
    match config.engine {
        Engine::Dfs => dfs::search(machine, config),
        Engine::Stateright => stateright::search(machine, config.max_states),
        Engine::Dpor => dpor::search(machine, config),
    }
}
