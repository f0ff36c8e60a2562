//! Every execution of the reference semantics: a depth-first search that
//! follows every enabled action of every state, and merges two states only
//! when they are equal in every part (a state's future depends on nothing
//! else). It does not stop at the first finding: it records the first
//! execution that reaches each kind of finding, so a reduced search's
//! verdict can be compared with all of them.

use super::*;
use std::collections::HashSet;

/// What an execution ended in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Race,
    /// No action possible, and some thread has not finished.
    Deadlock,
    /// A runtime error of the program.
    Error,
    /// A bound of the interpreter (local steps, recursion, sizes).
    Limit,
}

impl Kind {
    pub fn of(finding: &Finding) -> Kind {
        match finding {
            Finding::Race { .. } => Kind::Race,
            Finding::Error { .. } => Kind::Error,
            Finding::Limit { .. } => Kind::Limit,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Race => "a race",
            Kind::Deadlock => "a deadlock",
            Kind::Error => "a runtime error",
            Kind::Limit => "a limit",
        }
    }
}

/// One execution that ends in a finding: the actions from the initial
/// state, and the state it ends in.
#[derive(Clone, Debug)]
pub struct Found {
    pub kind: Kind,
    pub schedule: Vec<Action>,
    pub last: State,
}

impl Found {
    /// The finding (none for a deadlock: it is a state with no action).
    pub fn finding(&self) -> Option<&Finding> {
        self.last.finding.as_ref()
    }
}

/// What the search saw.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// Distinct states visited.
    pub states: usize,
    /// Per kind of finding reached, the first execution that reached it.
    pub found: Vec<Found>,
    /// Whether the state bound was not reached (`false`: the absence of a
    /// kind means nothing). A search that stops at its first finding has
    /// not explored the rest either.
    pub complete: bool,
}

impl Exploration {
    /// The kinds of finding some execution reaches.
    pub fn kinds(&self) -> Vec<Kind> {
        let mut kinds: Vec<Kind> = self.found.iter().map(|f| f.kind).collect();
        kinds.sort();
        kinds
    }

    pub fn first(&self, kind: Kind) -> Option<&Found> {
        self.found.iter().find(|f| f.kind == kind)
    }
}

/// Explores every execution of `reference` from its initial state, up to
/// `max_states` distinct states; with `stop_at_first`, it ends at the first
/// finding.
pub fn explore(reference: &Reference, max_states: usize, stop_at_first: bool) -> Exploration {
    let initial = reference.initial();
    let mut visited: HashSet<State> = HashSet::new();
    let mut found: Vec<Found> = Vec::new();
    // The path from the initial state: each state with its actions and the
    // next one to follow.
    let mut path: Vec<(State, Vec<Action>, usize)> = Vec::new();
    let mut schedule: Vec<Action> = Vec::new();
    let mut complete = true;
    // Looks at a state reached by `schedule`: records what it ends in, and
    // says whether to expand it.
    let arrive = |state: &State, schedule: &[Action], found: &mut Vec<Found>| -> bool {
        let kind = match &state.finding {
            Some(finding) => Some(Kind::of(finding)),
            None if reference.deadlocked(state) => Some(Kind::Deadlock),
            None => None,
        };
        match kind {
            Some(kind) => {
                if !found.iter().any(|f| f.kind == kind) {
                    found.push(Found { kind, schedule: schedule.to_vec(), last: state.clone() });
                }
                false
            }
            None => true,
        }
    };
    visited.insert(initial.clone());
    if arrive(&initial, &schedule, &mut found) {
        let actions = reference.actions(&initial);
        path.push((initial, actions, 0));
    }
    while let Some((state, actions, next)) = path.last_mut() {
        if stop_at_first && !found.is_empty() {
            break;
        }
        let Some(&action) = actions.get(*next) else {
            path.pop();
            schedule.pop();
            continue;
        };
        *next += 1;
        let successor = reference.next(state, action);
        if visited.contains(&successor) {
            continue;
        }
        if visited.len() >= max_states {
            complete = false;
            break;
        }
        visited.insert(successor.clone());
        schedule.push(action);
        if arrive(&successor, &schedule, &mut found) {
            let actions = reference.actions(&successor);
            path.push((successor, actions, 0));
        } else {
            schedule.pop();
        }
    }
    found.sort_by_key(|f| f.kind);
    Exploration { states: visited.len(), found, complete }
}
