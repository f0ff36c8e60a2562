//! The witness: one schedule of the run, executed item by item under the
//! execution model's rules for signals (docs/semantics.md): a notify adds to
//! or sets its cell and releases the notifier's vector clock into it (an
//! add joins, a set replaces), a wait passes only when its cell satisfies
//! it and acquires the cell's clock, launches fork and join, collectives
//! meet. Every access is checked as ccl-sim checks it (against the last
//! write of the element and the reads since), so a race the machine meets
//! is one ccl-sim meets on the same schedule, and a state where no thread
//! can step is a deadlock.
//!
//! A [`Plan`] chooses the schedule: which thread steps next. Items the
//! instantiation did not know will run (an uncertain notify, wait, launch)
//! are never run: the thread stops there, and a state with such a thread is
//! no deadlock ("no conclusion").

use super::program::{At, Cell, ItemKind, Loc, Program, ThreadId};
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// A block not launched yet.
    Idle,
    Running,
    Done,
}

/// What the item a thread is at allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ready {
    Yes,
    /// A wait whose condition is false, a join of running blocks, a
    /// collective other hosts have not reached.
    Blocked,
    /// An item the machine cannot run: not known to run, or on a value not
    /// known.
    Unknown,
}

/// One access, for the race checks.
#[derive(Clone, Copy, Debug)]
struct Access {
    at: At,
    epoch: u32,
}

#[derive(Clone, Debug, Default)]
struct Shadow {
    write: Option<Access>,
    reads: Vec<Access>,
}

/// A cell's state.
#[derive(Clone, Debug)]
pub struct CellState {
    /// `None` when not known (written by something other than notifies).
    pub value: Option<i64>,
    clock: Vec<u32>,
    /// The notifies since the last set, the set first.
    pub since_set: Vec<At>,
}

/// How a schedule ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Two accesses ccl-sim finds unordered: the earlier, the later, and
    /// the element.
    Race { first: At, second: At, loc: Loc },
    /// No thread can step; the waits the threads rest at.
    Deadlock { stuck: Vec<At> },
    /// Every thread finished.
    Finished,
    /// The schedule reached an item the machine cannot run.
    Inconclusive,
}

/// A schedule, as the plan that chooses it.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Items to reach, in order: the threads that lead to the first one not
    /// yet run go first.
    pub goals: Vec<At>,
    /// Items not to run before goal `k` has run.
    pub holds: Vec<(At, usize)>,
    /// Waits on this cell (but the goals' own threads) not to run before
    /// goal `k` has run.
    pub hold_cell: Option<(Cell, usize)>,
    /// Run the thread resting at this wait only when no other can step.
    pub starve: Option<At>,
    /// Keep every thread ordered after a goal that ran away from the next
    /// goal (a race: nothing may order the two).
    pub isolate: bool,
}

/// The executed schedule and what it recorded.
pub struct Run {
    pub outcome: Outcome,
    /// The items run, in order (a collective: each host's), each with the
    /// value of its cell after it (a notify) or when it passed (a wait).
    pub trace: Vec<(At, Option<i64>)>,
    /// For each wait passed: the notifies since its cell's last set then.
    pub passes: FxHashMap<At, Vec<At>>,
    /// Waits whose condition held while their thread rested there and then
    /// stopped holding: the notify that made it false.
    pub transient: FxHashMap<At, At>,
    /// Cell values at the end.
    pub cells: FxHashMap<Cell, CellState>,
}

struct State<'p> {
    program: &'p Program,
    hosts: Vec<ThreadId>,
    signal_cells: &'p FxHashSet<Cell>,
    pc: Vec<u32>,
    status: Vec<Status>,
    clock: Vec<Vec<u32>>,
    cells: FxHashMap<Cell, CellState>,
    shadows: FxHashMap<Loc, Shadow>,
    trace: Vec<(At, Option<i64>)>,
    passes: FxHashMap<At, Vec<At>>,
    transient: FxHashMap<At, At>,
    /// Waits that held while their thread rested there.
    held_once: FxHashSet<At>,
    /// The epoch each goal ran at.
    goal_epochs: Vec<Option<u32>>,
}

/// Runs the schedule `plan` chooses; `signal_cells`: every cell a notify or
/// wait names (accesses to them are signal ops, not data).
pub fn run(program: &Program, signal_cells: &FxHashSet<Cell>, plan: &Plan) -> Run {
    let threads = program.threads.len();
    let hosts = program.hosts();
    let mut status = vec![Status::Idle; threads];
    for h in &hosts {
        status[*h as usize] = Status::Running;
    }
    let mut state = State {
        program,
        hosts,
        signal_cells,
        pc: vec![0; threads],
        status,
        clock: vec![vec![0; threads]; threads],
        cells: FxHashMap::default(),
        shadows: FxHashMap::default(),
        trace: Vec::new(),
        passes: FxHashMap::default(),
        transient: FxHashMap::default(),
        held_once: FxHashSet::default(),
        goal_epochs: vec![None; plan.goals.len()],
    };
    let outcome = state.run(plan);
    Run { outcome, trace: state.trace, passes: state.passes, transient: state.transient, cells: state.cells }
}

impl State<'_> {
    fn at(&self, t: ThreadId) -> At {
        At { thread: t, pos: self.pc[t as usize] }
    }

    fn cell(&mut self, cell: Cell) -> &mut CellState {
        let threads = self.program.threads.len();
        let value = self.program.cell_is_modelled(cell).then_some(0);
        self.cells.entry(cell).or_insert_with(|| CellState { value, clock: vec![0; threads], since_set: Vec::new() })
    }

    fn holds(&mut self, cell: Cell, threshold: i64, eq: bool) -> Option<bool> {
        let value = self.cell(cell).value?;
        Some(if eq { value == threshold } else { value >= threshold })
    }

    fn ready(&mut self, t: ThreadId) -> Ready {
        if self.status[t as usize] != Status::Running {
            return Ready::Blocked;
        }
        let program = self.program;
        let item = program.item(self.at(t));
        let sure = item.certain && !item.repeated;
        match &item.kind {
            ItemKind::Start | ItemKind::End | ItemKind::Access { .. } => Ready::Yes,
            _ if !sure => Ready::Unknown,
            ItemKind::Notify { .. } | ItemKind::Launch { .. } => Ready::Yes,
            ItemKind::Wait { cell: Some(cell), eq, threshold: Some(threshold) } => {
                match self.holds(*cell, *threshold, *eq) {
                    Some(true) => Ready::Yes,
                    Some(false) => Ready::Blocked,
                    None => Ready::Unknown,
                }
            }
            ItemKind::Wait { .. } => Ready::Unknown,
            ItemKind::Join { first, count } => {
                if (*first..first + count).all(|b| self.status[b as usize] == Status::Done) {
                    Ready::Yes
                } else {
                    Ready::Blocked
                }
            }
            ItemKind::Collective { .. } => {
                let at_collective = |h: &ThreadId| {
                    let other = program.item(self.at(*h));
                    self.status[*h as usize] == Status::Running
                        && matches!(other.kind, ItemKind::Collective { .. })
                        && other.certain
                        && !other.repeated
                };
                if !self.hosts.iter().all(at_collective) {
                    return Ready::Blocked;
                }
                // Hosts at different collectives: ccl-sim stops there.
                let name = |h: &ThreadId| &program.sites[program.item(self.at(*h)).site as usize].op_name;
                if self.hosts.iter().all(|h| name(h) == name(&self.hosts[0])) {
                    Ready::Yes
                } else {
                    Ready::Unknown
                }
            }
        }
    }

    fn run(&mut self, plan: &Plan) -> Outcome {
        let budget = self.program.threads.iter().map(|t| t.items.len()).sum::<usize>() + 1;
        for _ in 0..budget {
            let mut ready = Vec::new();
            let mut unknown = false;
            for t in 0..self.program.threads.len() as ThreadId {
                match self.ready(t) {
                    Ready::Yes => ready.push(t),
                    Ready::Unknown => unknown = true,
                    Ready::Blocked => {}
                }
            }
            for t in &ready {
                let at = self.at(*t);
                if matches!(self.program.item(at).kind, ItemKind::Wait { .. }) {
                    self.held_once.insert(at);
                }
            }
            if ready.is_empty() {
                return self.end(unknown);
            }
            let Some(t) = self.pick(plan, &ready) else { return Outcome::Inconclusive };
            if let Some(race) = self.step(t, plan) {
                return race;
            }
        }
        Outcome::Inconclusive
    }

    /// No thread can step: finished, deadlocked, or stopped at the unknown.
    fn end(&self, unknown: bool) -> Outcome {
        if self.status.iter().all(|s| *s != Status::Running) {
            return Outcome::Finished;
        }
        if unknown {
            return Outcome::Inconclusive;
        }
        let stuck = (0..self.program.threads.len() as ThreadId)
            .filter(|t| self.status[*t as usize] == Status::Running)
            .map(|t| self.at(t))
            .filter(|at| matches!(self.program.item(*at).kind, ItemKind::Wait { .. }))
            .collect();
        Outcome::Deadlock { stuck }
    }

    fn goal_index(&self) -> Option<usize> {
        self.goal_epochs.iter().position(Option::is_none)
    }

    /// Whether thread `t` is ordered after a goal that ran, while a later
    /// goal has not run.
    fn tainted(&self, plan: &Plan, t: ThreadId) -> bool {
        plan.isolate
            && self.goal_index().is_some()
            && plan
                .goals
                .iter()
                .zip(&self.goal_epochs)
                .any(|(goal, epoch)| epoch.is_some_and(|e| self.clock[t as usize][goal.thread as usize] >= e))
    }

    fn held(&self, plan: &Plan, t: ThreadId) -> bool {
        let at = self.at(t);
        let reached = |k: usize| self.goal_epochs.get(k).is_some_and(Option::is_some);
        if plan.holds.iter().any(|(item, k)| *item == at && !reached(*k)) {
            return true;
        }
        if let Some((cell, k)) = plan.hold_cell {
            let is_goal_thread = plan.goals.iter().any(|g| g.thread == t);
            if let ItemKind::Wait { cell: Some(c), .. } = self.program.item(at).kind {
                return c == cell && !reached(k) && !is_goal_thread;
            }
        }
        false
    }

    /// The thread that leads to `goal`: its own, or, before its launch, its
    /// host.
    fn leads_to(&self, goal: At) -> ThreadId {
        match (self.status[goal.thread as usize], self.program.threads[goal.thread as usize].host) {
            (Status::Idle, Some(host)) => host,
            _ => goal.thread,
        }
    }

    fn pick(&self, plan: &Plan, ready: &[ThreadId]) -> Option<ThreadId> {
        let mut choices: Vec<ThreadId> =
            ready.iter().copied().filter(|t| !self.held(plan, *t) && !self.tainted(plan, *t)).collect();
        if choices.is_empty() {
            if plan.isolate && self.goal_index().is_some() {
                return None;
            }
            // The plan cannot be followed further: any schedule will do.
            choices = ready.to_vec();
        }
        if let Some(starved) = plan.starve {
            // Bring the starved thread to its wait first, then keep it there
            // while any other thread can step.
            let lead = self.leads_to(starved);
            let arriving = lead != starved.thread || self.pc[starved.thread as usize] < starved.pos;
            if arriving && choices.contains(&lead) {
                return Some(lead);
            }
            let others: Vec<ThreadId> = choices.iter().copied().filter(|t| self.at(*t) != starved).collect();
            if !others.is_empty() {
                choices = others;
            }
        }
        if let Some(k) = self.goal_index() {
            let lead = self.leads_to(plan.goals[k]);
            if choices.contains(&lead) {
                return Some(lead);
            }
            // Keep the later goals' threads back while another can step.
            let later: Vec<ThreadId> = plan.goals[k + 1..].iter().map(|g| self.leads_to(*g)).collect();
            if let Some(t) = choices.iter().find(|t| !later.contains(t)) {
                return Some(*t);
            }
        }
        choices.first().copied()
    }

    /// Runs the item `t` is at (a collective: every host's); a race met.
    fn step(&mut self, t: ThreadId, plan: &Plan) -> Option<Outcome> {
        let at = self.at(t);
        let program = self.program;
        let item = program.item(at);
        if let ItemKind::Collective { .. } = item.kind {
            self.collective();
            return None;
        }
        self.clock[t as usize][t as usize] += 1;
        let epoch = self.clock[t as usize][t as usize];
        self.trace.push((at, None));
        let mut outcome = None;
        match &item.kind {
            ItemKind::End => self.status[t as usize] = Status::Done,
            ItemKind::Access { reads, writes, .. } if item.certain && !item.repeated => {
                outcome = self.access(at, epoch, reads.as_deref(), writes.as_deref());
            }
            ItemKind::Notify { cell: Some(cell), add, value, .. } => {
                self.notify(at, *cell, *add, *value);
                self.trace.last_mut().expect("this step").1 = self.cells[cell].value;
            }
            ItemKind::Wait { cell: Some(cell), .. } => {
                let state = self.cell(*cell).clone();
                join(&mut self.clock[t as usize], &state.clock);
                self.passes.insert(at, state.since_set);
                self.trace.last_mut().expect("this step").1 = state.value;
            }
            ItemKind::Launch { first, count } => {
                for b in *first..first + count {
                    self.status[b as usize] = Status::Running;
                    let host = self.clock[t as usize].clone();
                    join(&mut self.clock[b as usize], &host);
                }
            }
            ItemKind::Join { first, count } => {
                for b in *first..first + count {
                    let block = self.clock[b as usize].clone();
                    join(&mut self.clock[t as usize], &block);
                }
            }
            _ => {}
        }
        for (k, goal) in plan.goals.iter().enumerate() {
            if *goal == at && self.goal_epochs[k].is_none() {
                self.goal_epochs[k] = Some(epoch);
            }
        }
        if self.status[t as usize] == Status::Running {
            self.pc[t as usize] += 1;
        }
        outcome
    }

    fn notify(&mut self, at: At, cell: Cell, add: bool, value: Option<i64>) {
        let width = self.program.cell_width(cell).unwrap_or(64);
        let mine = self.clock[at.thread as usize].clone();
        let state = self.cell(cell);
        state.value = match (state.value, value) {
            (Some(old), Some(v)) if add => Some(super::values::wrap(old.wrapping_add(v), width)),
            (Some(_), Some(v)) => Some(super::values::wrap(v, width)),
            _ => None,
        };
        if add {
            join(&mut state.clock, &mine);
            state.since_set.push(at);
        } else {
            state.clock = mine;
            state.since_set = vec![at];
        }
        // A wait that held while its thread rested there and holds no more
        // saw a release that went by.
        for t in 0..self.program.threads.len() as ThreadId {
            let w = self.at(t);
            if self.status[t as usize] != Status::Running || !self.held_once.contains(&w) {
                continue;
            }
            if let ItemKind::Wait { cell: Some(c), eq, threshold: Some(threshold) } = self.program.item(w).kind {
                if c == cell && self.holds(cell, threshold, eq) == Some(false) {
                    self.transient.entry(w).or_insert(at);
                }
            }
        }
    }

    fn collective(&mut self) {
        let mut met = vec![0; self.program.threads.len()];
        for h in &self.hosts {
            join(&mut met, &self.clock[*h as usize]);
        }
        for h in self.hosts.clone() {
            self.clock[h as usize] = met.clone();
            self.clock[h as usize][h as usize] += 1;
            self.trace.push((self.at(h), None));
            self.pc[h as usize] += 1;
        }
    }

    /// The race checks of an access, as ccl-sim makes them: each read
    /// against the last write, each write against the last write and the
    /// reads since.
    fn access(&mut self, at: At, epoch: u32, reads: Option<&[Loc]>, writes: Option<&[Loc]>) -> Option<Outcome> {
        let me = Access { at, epoch };
        let clock = &self.clock[at.thread as usize];
        let ordered = |other: &Access| other.at.thread == at.thread || other.epoch <= clock[other.at.thread as usize];
        for loc in reads.unwrap_or(&[]) {
            if self.signal_cells.contains(loc) {
                continue;
            }
            let shadow = self.shadows.entry(*loc).or_default();
            if let Some(write) = shadow.write.filter(|w| !ordered(w)) {
                return Some(Outcome::Race { first: write.at, second: at, loc: *loc });
            }
            shadow.reads.retain(|r| r.at.thread != at.thread);
            shadow.reads.push(me);
        }
        for loc in writes.unwrap_or(&[]) {
            if self.signal_cells.contains(loc) {
                continue;
            }
            let shadow = self.shadows.entry(*loc).or_default();
            if let Some(earlier) = shadow.write.iter().chain(&shadow.reads).find(|a| !ordered(a)) {
                return Some(Outcome::Race { first: earlier.at, second: at, loc: *loc });
            }
            shadow.reads.clear();
            shadow.write = Some(me);
        }
        None
    }
}

fn join(into: &mut [u32], other: &[u32]) {
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}
