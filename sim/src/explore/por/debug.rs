//! What the reduction did, counted when `CCLIR_POR_DEBUG` is set (for
//! tuning it; printed on standard error when the search ends): per state,
//! how many actions were enabled and how many the chosen set holds; per
//! closure, what made it grow or give up.

use super::access::{Access, Accesses, Space};
use crate::machine::{Action, Line, Loc, Machine, State, ThreadId};
use crate::shared::Shared;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

#[derive(Default)]
pub struct Debug {
    counts: Mutex<HashMap<String, u64>>,
    /// States still to print in full (`CCLIR_POR_DEBUG=N`).
    dumps: Mutex<u64>,
}

thread_local! {
    /// What the closures of the state being dumped did, line by line.
    static TRACE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Adds a line to the trace, if one is being taken.
pub fn trace(line: impl FnOnce() -> String) {
    TRACE.with(|t| {
        if let Some(out) = t.borrow_mut().as_mut() {
            out.push_str("    ");
            out.push_str(&line());
            out.push('\n');
        }
    });
}

/// Starts (`true`) or ends a trace, returning what it holds.
pub fn tracing(on: bool) -> String {
    TRACE.with(|t| std::mem::replace(&mut *t.borrow_mut(), on.then(String::new)).unwrap_or_default())
}

impl Debug {
    pub fn dumping(&self) -> bool {
        *self.dumps.lock().unwrap_or_else(|e| e.into_inner()) > 0
    }

    /// The counters, if `CCLIR_POR_DEBUG` is set.
    pub fn from_env() -> Option<Debug> {
        let n = std::env::var("CCLIR_POR_DEBUG").ok()?;
        Some(Debug { counts: Mutex::default(), dumps: Mutex::new(n.parse().unwrap_or(0)) })
    }

    /// Prints `state`'s threads, its actions and the chosen ones, while
    /// dumps are left.
    pub fn dump(&self, machine: &Machine, state: &State, enabled: &[Action], chosen: Option<&[Action]>, why: &str) {
        {
            let mut left = self.dumps.lock().unwrap_or_else(|e| e.into_inner());
            if *left == 0 {
                return;
            }
            *left -= 1;
        }
        let mut out = String::from("por-debug: state\n");
        for (t, thread) in state.threads.iter().enumerate() {
            let t = t as ThreadId;
            let at = machine.site_at(state, t).map(|s| {
                let site = machine.program.site(s);
                format!("{} {}", site.op, site.loc)
            });
            out += &format!(
                "  {} {:?} at {} clock {:?}\n",
                machine.thread_name(t),
                thread.status,
                at.unwrap_or_default(),
                thread.clock.get(t as usize)
            );
        }
        // The actions as the machine names them (the report's words are
        // the report's: a search does not use it).
        for a in enabled {
            let mark = if chosen.is_none_or(|c| c.contains(a)) { "*" } else { " " };
            let at = machine.action_site(state, *a).map(|s| {
                let site = machine.program.site(s);
                format!(" {} {}", site.op, site.loc)
            });
            out += &format!("  {mark} {a:?}{}\n", at.unwrap_or_default());
        }
        out += why;
        eprint!("{out}");
    }

    pub fn count(&self, what: impl Into<String>) {
        *self.counts.lock().unwrap_or_else(|e| e.into_inner()).entry(what.into()).or_insert(0) += 1;
    }

    /// Counts the first pair of `a` and `b` that conflicts, named by `why`.
    pub fn conflict(&self, why: &str, a: &Accesses, b: &Accesses, caches: &[Shared<BTreeMap<Loc, Line>>]) {
        let pair = a.iter().find_map(|x| {
            b.iter()
                .find(|y| {
                    let (mut one, mut other) = (Accesses::new(), Accesses::new());
                    one.add_as(x.space.clone(), x.mode);
                    other.add_as(y.space.clone(), y.mode);
                    one.conflicts(&other, caches)
                })
                .map(|y| (x, y))
        });
        match pair {
            Some((x, y)) => self.count(format!("{why}: {} vs {}", name(x), name(y))),
            None => self.count(format!("{why}: ?")),
        }
    }
}

fn name(a: &Access) -> String {
    let space = match &a.space {
        Space::Mem { buffers, .. } => format!("mem{:?}", buffers.0.as_ref().map(|b| b.to_vec())),
        Space::Thread(_) => "thread".into(),
        Space::Queue(_) => "queue".into(),
        Space::DirtyOf(_) => "dirty".into(),
        Space::Everything => "everything".into(),
    };
    format!("{space}/{:?}", a.mode)
}

impl Drop for Debug {
    fn drop(&mut self) {
        let counts = self.counts.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<(&String, &u64)> = counts.iter().collect();
        all.sort();
        for (what, n) in all {
            eprintln!("por-debug: {what}: {n}");
        }
    }
}

/// The first pair of `a` and `b` that conflicts, named.
pub fn first_conflict(a: &Accesses, b: &Accesses, caches: &[Shared<BTreeMap<Loc, Line>>]) -> String {
    for x in a.iter() {
        for y in b.iter() {
            let (mut one, mut other) = (Accesses::new(), Accesses::new());
            one.add_as(x.space.clone(), x.mode);
            other.add_as(y.space.clone(), y.mode);
            if one.conflicts(&other, caches) {
                return format!("{x:?} vs {y:?}");
            }
        }
    }
    "?".into()
}
