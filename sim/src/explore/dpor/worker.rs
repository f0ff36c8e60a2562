//! A worker of the dynamic search: it follows one execution at a time
//! through the shared tree, depth first, and when it has nothing left on
//! its own, takes another worker's execution up to the shallowest node with
//! a process in its backtrack set not started (work stealing).

use super::events::{enabled, Event, Index, Proc, Slept};
use super::tree::{Node, Plan};
use super::{Common, Stop};
use crate::machine::footprint::{Footprint, Recorder};
use crate::machine::{Action, Finding, Machine, State};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::Duration;

pub(super) struct Worker<'a, 'b> {
    common: &'b Common<'a>,
    id: usize,
    /// The machine, recording each action's footprint into `recorder`.
    pub machine: Machine,
    pub recorder: Arc<Recorder>,
    /// The nodes of the current execution, from the root: node k + 1 holds
    /// event k.
    pub path: Vec<Arc<Node>>,
    pub index: Index,
    /// Transitions this worker took.
    taken: usize,
}

/// A child taken from a node, with the event it ran.
struct Taken {
    proc: Proc,
    action: Action,
    next: State,
    footprint: Arc<Footprint>,
    sleep: Vec<Slept>,
}

impl<'a, 'b> Worker<'a, 'b> {
    pub fn new(common: &'b Common<'a>, id: usize, path: Vec<Arc<Node>>) -> Self {
        let recorder = Arc::new(Recorder::default());
        let mut machine = common.machine.clone();
        machine.footprint = Some(recorder.clone());
        let mut worker = Worker { common, id, machine, recorder, path: Vec::new(), index: Index::default(), taken: 0 };
        worker.adopt(path);
        worker
    }

    /// Explores until the search is over (nothing left anywhere) or stopped.
    pub fn run(mut self) {
        loop {
            if self.common.stopped.load(Ordering::Relaxed) || self.path.is_empty() && !self.steal() {
                debug(|| format!("worker {} took {} transitions, {} CPU ticks", self.id, self.taken, thread_ticks()));
                return;
            }
            self.advance();
        }
    }

    /// Takes the next process of the deepest node's backtrack set, or
    /// backtracks from it.
    fn advance(&mut self) {
        let node = self.path.last().expect("a node to explore").clone();
        let depth = self.path.len() - 1;
        let Some(Taken { proc, action, next, footprint, sleep }) = self.take(&node) else {
            self.pop();
            return;
        };
        if let Some(finding) = &next.finding {
            self.common.halt(Stop::Found(finding.clone(), self.schedule(action)));
            return;
        }
        let past = self.races(depth, proc, &footprint);
        let event = Event { proc, action, footprint, past };
        self.index.add(depth, &event);
        self.common.max_depth.fetch_max(depth + 1, Ordering::Relaxed);
        let successors = enabled(&self.machine, &next);
        if successors.is_empty() {
            self.index.remove(&event);
            self.end_of_execution(&next, action);
            return;
        }
        if depth + 1 >= self.machine.limits.max_steps as usize {
            self.common.halt(Stop::Bound(super::Bound::Depth(self.machine.limits.max_steps as usize)));
            return;
        }
        let first = first_choice(&self.index, &successors, &sleep);
        let plan = Plan { backtrack: first.into_iter().collect(), sleep, ..Plan::default() };
        let child = Node::new(next, successors, Some(event), plan);
        self.path.push(child.clone());
        // The waits that do not hold here race with what changed their
        // cells, whether or not this execution goes on.
        let last = child.event.as_ref().expect("the event just taken");
        self.wait_races(depth + 1, last.proc, &last.footprint);
        if first.is_none() {
            // Every enabled process sleeps: what follows was explored.
            self.path.pop();
            self.index.remove(child.event.as_ref().expect("the event just taken"));
            self.common.blocked.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if let Some(mut published) = self.published() {
            published.push(child);
        }
    }

    /// Starts the next process of `node`'s backtrack set and runs its
    /// event; `None` if nothing is left or the search reached a bound.
    fn take(&mut self, node: &Node) -> Option<Taken> {
        // The plan stays locked while the event runs, so that a child
        // started later sees this one among the started (and it sleeps
        // there).
        let mut plan = node.plan();
        let proc = plan.next()?;
        let action = node.enabled.iter().find(|(p, _)| *p == proc).expect("a backtrack process is enabled").1;
        if let Some(bound) = self.common.admit() {
            self.common.halt(Stop::Bound(bound));
            return None;
        }
        let mut next = node.state.clone();
        self.machine.apply(&mut next, action);
        let footprint = Arc::new(self.recorder.take());
        self.taken += 1;
        let sleep = plan
            .sleep
            .iter()
            .chain(&plan.started)
            .filter(|slept| !slept.footprint.conflicts(&footprint))
            .cloned()
            .collect();
        plan.started.push(Slept { proc, footprint: footprint.clone() });
        Some(Taken { proc, action, next, footprint, sleep })
    }

    /// The actions of the current execution, then `last`.
    fn schedule(&self, last: Action) -> Vec<Action> {
        self.path.iter().filter_map(|n| n.event.as_ref().map(|e| e.action)).chain([last]).collect()
    }

    /// A state with no event, reached by `last`: the end of an execution,
    /// or a deadlock (every thread left rests at a wait that does not
    /// hold).
    fn end_of_execution(&self, state: &State, last: Action) {
        self.common.executions.fetch_add(1, Ordering::Relaxed);
        if self.machine.deadlocked(state) {
            self.common.halt(Stop::Found(Arc::new(Finding::Deadlock), self.schedule(last)));
            return;
        }
        self.common.cost.lock().unwrap_or_else(|e| e.into_inner()).record(&self.machine.program, &state.cost);
    }

    /// Backtracks from the deepest node.
    fn pop(&mut self) {
        if let Some(node) = self.path.pop() {
            if let Some(event) = &node.event {
                self.index.remove(event);
            }
        }
        if let Some(mut published) = self.published() {
            published.pop();
        }
    }

    /// This worker's execution as the others see it (none with one worker).
    fn published(&self) -> Option<MutexGuard<'_, Vec<Arc<Node>>>> {
        (self.common.paths.len() > 1).then(|| self.common.paths[self.id].lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Makes `path` the current execution.
    fn adopt(&mut self, path: Vec<Arc<Node>>) {
        self.index = Index::default();
        for (k, node) in path.iter().enumerate().skip(1) {
            self.index.add(k - 1, node.event.as_ref().expect("an event of the execution"));
        }
        if let Some(mut published) = self.published() {
            published.clone_from(&path);
        }
        self.path = path;
    }

    /// With nothing left on its own execution, takes another worker's
    /// execution up to its shallowest node with a process not started;
    /// `false` once every worker is idle (the search is over) or the search
    /// stopped.
    fn steal(&mut self) -> bool {
        let workers = self.common.paths.len();
        let mut counted = false;
        let mut pause = 1;
        loop {
            if self.common.stopped.load(Ordering::Relaxed) {
                return false;
            }
            {
                // Deciding under one lock: a worker turns idle only here,
                // with an empty execution, and every process added to a
                // backtrack set is added by a worker whose execution passes
                // through that node; so when all are idle nothing is left.
                let mut idle = self.common.idle.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(prefix) = self.find_work() {
                    if counted {
                        *idle -= 1;
                    }
                    drop(idle);
                    self.common.taken_over.fetch_add(1, Ordering::Relaxed);
                    debug(|| {
                        let transitions = self.common.transitions.load(Ordering::Relaxed);
                        let seconds = self.common.started.elapsed().as_secs_f64();
                        format!(
                            "worker {} takes over at depth {} after {seconds:.2} s, {transitions} transitions",
                            self.id,
                            prefix.len()
                        )
                    });
                    self.adopt(prefix);
                    return true;
                }
                if !counted {
                    *idle += 1;
                    counted = true;
                }
                if *idle == workers {
                    return false;
                }
            }
            std::thread::sleep(Duration::from_micros(pause));
            pause = (pause * 2).min(1_000);
        }
    }

    /// The prefix of another worker's execution up to its shallowest node
    /// with a process in its backtrack set not started. None while the
    /// first worker runs alone (`SearchConfig::solo`).
    fn find_work(&self) -> Option<Vec<Arc<Node>>> {
        if self.common.transitions.load(Ordering::Relaxed) < self.common.config.solo {
            return None;
        }
        for (victim, path) in self.common.paths.iter().enumerate() {
            if victim == self.id {
                continue;
            }
            let path = path.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(k) = path.iter().position(|node| node.plan().next().is_some()) {
                return Some(path[..=k].to_vec());
            }
        }
        None
    }
}

/// The process to explore first from a state: the awake thread that has
/// taken the fewest steps in the execution so far (`index`), else the first
/// awake process. A choice of order only: every other is explored where a
/// race needs it.
pub(super) fn first_choice(index: &Index, enabled: &[(Proc, Action)], sleep: &[Slept]) -> Option<Proc> {
    let awake = || enabled.iter().filter(|(p, _)| !sleep.iter().any(|slept| slept.proc == *p));
    awake()
        .filter(|(p, _)| matches!(p, Proc::Thread(_)))
        .min_by_key(|(p, _)| index.taken(*p))
        .or_else(|| awake().next())
        .map(|(p, _)| *p)
}

/// With `CCLIR_DPOR_DEBUG` set, prints how the workers split the tree (for
/// measuring the split; not part of the output otherwise).
fn debug(line: impl FnOnce() -> String) {
    if std::env::var_os("CCLIR_DPOR_DEBUG").is_some() {
        eprintln!("ccl-sim: dpor: {}", line());
    }
}

/// The CPU time the calling thread has taken, in clock ticks: user and
/// system time, fields 14 and 15 of /proc/thread-self/stat (0 where there
/// is no such file).
fn thread_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // The fields after the command name, which may hold spaces, start at
    // field 3 (the state).
    stat.rsplit(')')
        .next()
        .map(|rest| rest.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<u64>().ok()).sum())
        .unwrap_or(0)
}
