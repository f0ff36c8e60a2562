//! How many of a set of programs exercise each [`Feature`]: the table
//! `ccl-gen --litmus-coverage N` prints.

use super::{litmus_program, Feature};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// How many programs have each feature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    pub programs: usize,
    pub counts: BTreeMap<Feature, usize>,
}

impl Coverage {
    /// Counts one program's features.
    pub fn add(&mut self, features: &BTreeSet<Feature>) {
        self.programs += 1;
        for feature in features {
            *self.counts.entry(*feature).or_default() += 1;
        }
    }

    pub fn count(&self, feature: Feature) -> usize {
        self.counts.get(&feature).copied().unwrap_or(0)
    }

    /// The share of the programs with `feature`, in percent.
    pub fn percent(&self, feature: Feature) -> f64 {
        if self.programs == 0 {
            return 0.0;
        }
        100.0 * self.count(feature) as f64 / self.programs as f64
    }

    /// The features in fewer than `percent`% of the programs.
    pub fn below(&self, percent: f64) -> Vec<Feature> {
        Feature::ALL.iter().copied().filter(|f| self.percent(*f) < percent).collect()
    }

    /// One line per feature: its name, count, share and rule.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = Feature::ALL.iter().map(|f| f.name().len()).max().unwrap_or(0);
        writeln!(out, "{:<width$}  {:>8}  {:>6}  rule", "feature", "programs", "share").unwrap();
        for feature in Feature::ALL {
            writeln!(
                out,
                "{:<width$}  {:>8}  {:>5.1}%  {}",
                feature.name(),
                self.count(*feature),
                self.percent(*feature),
                feature.rule()
            )
            .unwrap();
        }
        out
    }
}

/// The coverage of the programs of `seeds`.
pub fn coverage(seeds: std::ops::Range<u64>) -> Coverage {
    let mut coverage = Coverage::default();
    for seed in seeds {
        coverage.add(&litmus_program(seed).features);
    }
    coverage
}
