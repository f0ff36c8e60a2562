//! What a run executes: the markers (fences, region and whole-GM
//! invalidates) and the lines the invalidates write back, per kernel and in
//! total, with the least and the most over the schedules explored.
//!
//! Counts ride in the machine state as a [`Tally`] that hashing and equality
//! ignore, so counting never splits one state of the search into several: a
//! state reached by two schedules keeps the counts of the first, and the
//! counts recorded at the end of a schedule are those of one real schedule
//! (docs/ccl-sim.md, "Cost").

use super::program::{FuncId, Program};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// What one kernel (or, for host code, the entry function) executed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Launches of the kernel, summed over ranks (a launch of B blocks is
    /// one); 0 for the entry's host code.
    pub launches: u64,
    pub fences: u64,
    /// `ccl.cacheinvalid %w`.
    pub region_invalidates: u64,
    /// `ccl.cacheinvalid` without an operand.
    pub whole_invalidates: u64,
    /// Dirty lines the invalidates sent toward memory.
    pub lines_written_back: u64,
}

impl Cost {
    /// Markers executed: fences and invalidates of both kinds.
    pub fn markers(&self) -> u64 {
        self.fences + self.region_invalidates + self.whole_invalidates
    }

    fn zip(self, other: Cost, f: impl Fn(u64, u64) -> u64) -> Cost {
        Cost {
            launches: f(self.launches, other.launches),
            fences: f(self.fences, other.fences),
            region_invalidates: f(self.region_invalidates, other.region_invalidates),
            whole_invalidates: f(self.whole_invalidates, other.whole_invalidates),
            lines_written_back: f(self.lines_written_back, other.lines_written_back),
        }
    }

    fn sum(self, other: Cost) -> Cost {
        self.zip(other, u64::saturating_add)
    }
}

/// The least and the most of each count over the schedules recorded (each
/// field on its own: `min.fences` and `min.lines_written_back` may come
/// from different schedules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostRange {
    pub min: Cost,
    pub max: Cost,
}

impl CostRange {
    fn of(cost: Cost) -> CostRange {
        CostRange { min: cost, max: cost }
    }

    fn widen(&mut self, cost: Cost) {
        self.min = self.min.zip(cost, u64::min);
        self.max = self.max.zip(cost, u64::max);
    }

    /// Whether every schedule recorded executed the same.
    pub fn is_exact(&self) -> bool {
        self.min == self.max
    }
}

/// The counts of a whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunCost {
    /// Per function that executed a marker or was launched, by name.
    pub kernels: BTreeMap<String, CostRange>,
    /// All functions together, per schedule.
    pub total: Option<CostRange>,
    /// Schedules recorded (ends of schedules reached; in an exhaustive
    /// search, the transitions into a final state).
    pub schedules: u64,
}

impl RunCost {
    /// Adds the counts of one schedule that ran to its end.
    pub fn record(&mut self, program: &Program, tally: &Tally) {
        let mut total = Cost::default();
        for (func, cost) in tally.0.iter().enumerate() {
            if *cost == Cost::default() {
                continue;
            }
            total = total.sum(*cost);
            let name = &program.funcs[func].name;
            match self.kernels.get_mut(name) {
                Some(range) => range.widen(*cost),
                None => {
                    // A function absent from earlier schedules ran 0 there.
                    let mut range = CostRange::of(*cost);
                    if self.schedules > 0 {
                        range.widen(Cost::default());
                    }
                    self.kernels.insert(name.clone(), range);
                }
            }
        }
        for (name, range) in self.kernels.iter_mut() {
            if !tally.0.iter().enumerate().any(|(f, c)| *c != Cost::default() && program.funcs[f].name == *name) {
                range.widen(Cost::default());
            }
        }
        match &mut self.total {
            Some(range) => range.widen(total),
            None => self.total = Some(CostRange::of(total)),
        }
        self.schedules += 1;
    }
}

/// Per function (by id), what the schedule so far executed. Hashing and
/// equality ignore it: two states that differ only in their counts are one
/// state of the search.
#[derive(Clone, Debug, Default)]
pub struct Tally(pub Vec<Cost>);

impl Tally {
    pub fn of(&mut self, func: FuncId) -> &mut Cost {
        let index = func as usize;
        if self.0.len() <= index {
            self.0.resize(index + 1, Cost::default());
        }
        &mut self.0[index]
    }
}

impl Hash for Tally {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl PartialEq for Tally {
    fn eq(&self, _: &Tally) -> bool {
        true
    }
}

impl Eq for Tally {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Func, Kind};

    fn program(names: &[&str]) -> Program {
        let func = |name: &&str| Func {
            name: name.to_string(),
            site: 0,
            kind: Kind::InCore,
            launch_width: None,
            params: Vec::new(),
            param_types: Vec::new(),
            registers: 0,
            code: Vec::new(),
            sites: Vec::new(),
            loops: Vec::new(),
        };
        Program {
            funcs: names.iter().map(func).collect(),
            sites: Vec::new(),
            entry: 0,
            slots: 1,
            widest: None,
            entry_arg_names: Vec::new(),
        }
    }

    fn fences(n: u64) -> Cost {
        Cost { launches: 1, fences: n, ..Cost::default() }
    }

    #[test]
    fn ranges_span_the_schedules_recorded() {
        let program = program(&["main", "a", "b"]);
        let mut run = RunCost::default();
        run.record(&program, &Tally(vec![Cost::default(), fences(8)]));
        run.record(&program, &Tally(vec![Cost::default(), fences(2), fences(1)]));
        assert_eq!(run.schedules, 2);
        let a = run.kernels["a"];
        assert_eq!((a.min.fences, a.max.fences), (2, 8));
        assert!(!a.is_exact());
        // @b ran in the second schedule only: 0 in the first.
        let b = run.kernels["b"];
        assert_eq!((b.min.fences, b.max.fences, b.min.launches), (0, 1, 0));
        // The total is per schedule: 8, then 3.
        let total = run.total.unwrap();
        assert_eq!((total.min.fences, total.max.fences), (3, 8));
        // A function with nothing counted is not listed.
        assert!(!run.kernels.contains_key("main"));
    }

    #[test]
    fn a_tally_is_not_part_of_a_states_identity() {
        use std::hash::BuildHasher;
        let hasher = std::hash::RandomState::new();
        let (one, other) = (Tally(vec![fences(1)]), Tally(vec![fences(9), fences(2)]));
        assert_eq!(one, other);
        assert_eq!(hasher.hash_one(&one), hasher.hash_one(&other));
    }
}
