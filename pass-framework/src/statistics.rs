//! A pass's statistics (Debian's MLIR compiles `llvm::Statistic` out, so
//! ours are Rust-side): the counters of one pass instance, shared with its
//! clones ([`Counters`]), and [`pass_statistics!`](crate::pass_statistics),
//! which declares them as a struct with one typed counter each.

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatisticSpec {
    pub name: &'static str,
    pub description: &'static str,
}

/// The counters of one pass instance of a pipeline, one per declared
/// statistic. The clones MLIR makes of a pass for its threads share them,
/// so their counts add up.
#[derive(Clone, Debug)]
pub struct Counters {
    specs: &'static [StatisticSpec],
    values: Arc<[AtomicU64]>,
}

impl Counters {
    pub fn new(specs: &'static [StatisticSpec]) -> Self {
        Self { specs, values: specs.iter().map(|_| AtomicU64::new(0)).collect() }
    }

    /// Each statistic with its value, in declaration order.
    pub fn snapshot(&self) -> Vec<(StatisticSpec, u64)> {
        self.specs.iter().zip(self.values.iter()).map(|(s, v)| (*s, v.load(Ordering::Relaxed))).collect()
    }

    /// The counter of statistic `index`.
    pub fn counter(&self, index: usize) -> Counter {
        Counter { values: self.values.clone(), index }
    }
}

/// One statistic of a pass, shared by its clones.
#[derive(Clone, Debug)]
pub struct Counter {
    values: Arc<[AtomicU64]>,
    index: usize,
}

impl Counter {
    pub fn add(&self, n: u64) {
        if n > 0 {
            self.values[self.index].fetch_add(n, Ordering::Relaxed);
        }
    }

    pub fn get(&self) -> u64 {
        self.values[self.index].load(Ordering::Relaxed)
    }
}

/// A pass's statistics as a struct with one [`Counter`] per statistic: a
/// typo in a field name fails to compile.
///
/// ```ignore
/// pass_statistics! {
///     pub struct FenceStats {
///         fences: "fences", "ccl.fence inserted",
///     }
/// }
/// ```
#[macro_export]
macro_rules! pass_statistics {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $field:ident : $arg:literal, $description:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis struct $name {
            $( pub $field: $crate::Counter, )*
        }

        impl $name {
            /// The statistics, in report order.
            pub const SPECS: &'static [$crate::StatisticSpec] = &[
                $( $crate::StatisticSpec { name: $arg, description: $description }, )*
            ];

            /// The typed view of an instance's counters (made from `SPECS`).
            #[allow(unused_assignments, unused_variables, unused_mut)]
            pub fn bind(counters: &$crate::Counters) -> Self {
                let mut index = 0usize;
                $(
                    let $field = counters.counter(index);
                    index += 1;
                )*
                Self { $( $field, )* }
            }
        }
    };
}
