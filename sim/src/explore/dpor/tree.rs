//! The exploration tree: a node per state of an execution the search
//! follows, with its backtrack set (the processes to explore from it), the
//! children started from it and its sleep set.
//!
//! Nodes are shared by the workers whose executions pass through them
//! (`Arc`); what changes (the plan) is behind the node's lock, which a
//! worker holds only while it reads or changes that plan.

use super::events::{Enabled, Event, Proc, Slept};
use crate::machine::State;
use std::sync::{Arc, Mutex, MutexGuard};

/// What is left to explore from a node, and what is covered already.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Source-DPOR's backtrack set: the processes to explore from here.
    pub backtrack: Vec<Proc>,
    /// The children taken from here, in the order they were started, with
    /// what their events touched: each sleeps in every later child (until
    /// an event conflicting with it runs) whether or not its own subtree
    /// is finished, since it will be, by whichever worker took it.
    pub started: Vec<Slept>,
    /// Processes asleep here from above: explored from an ancestor (or an
    /// earlier sibling of one) with every event since independent of theirs.
    pub sleep: Vec<Slept>,
}

impl Plan {
    pub fn asleep(&self, proc: Proc) -> bool {
        self.sleep.iter().any(|slept| slept.proc == proc)
    }

    pub fn is_started(&self, proc: Proc) -> bool {
        self.started.iter().any(|slept| slept.proc == proc)
    }

    /// The next process of the backtrack set to explore: not started, not
    /// asleep.
    pub fn next(&self) -> Option<Proc> {
        self.backtrack.iter().copied().find(|p| !self.is_started(*p) && !self.asleep(*p))
    }
}

/// A state the search has reached, and the event that reached it.
pub(super) struct Node {
    pub state: State,
    pub enabled: Enabled,
    /// The event from the parent (none at the root).
    pub event: Option<Event>,
    plan: Mutex<Plan>,
}

impl Node {
    pub fn new(state: State, enabled: Enabled, event: Option<Event>, plan: Plan) -> Arc<Node> {
        Arc::new(Node { state, enabled, event, plan: Mutex::new(plan) })
    }

    pub fn plan(&self) -> MutexGuard<'_, Plan> {
        self.plan.lock().unwrap_or_else(|e| e.into_inner())
    }
}
