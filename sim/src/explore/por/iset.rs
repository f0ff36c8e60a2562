//! Sets of integers for the static analysis: a few values exactly, else an
//! inclusive range, else any value. Every operation over-approximates: the
//! set it returns holds every value the concrete operation can produce from
//! values of its operands.

use smallvec::SmallVec;

/// Values kept exactly before a set becomes a range: enough for a loop over
/// the peers of 64 ranks or the blocks of a launch.
pub const EXACT: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ISet {
    /// Sorted, distinct, at most [`EXACT`] values (none: the empty set).
    Few(SmallVec<[i64; 4]>),
    /// Every value from the first to the second, inclusive (first < second).
    Range(i64, i64),
    Any,
}

impl ISet {
    pub fn empty() -> ISet {
        ISet::Few(SmallVec::new())
    }

    pub fn one(value: i64) -> ISet {
        ISet::Few(smallvec::smallvec![value])
    }

    /// The set of `values` (any order, repeats allowed).
    pub fn of(mut values: Vec<i64>) -> ISet {
        values.sort_unstable();
        values.dedup();
        if values.len() <= EXACT {
            ISet::Few(values.into_iter().collect())
        } else {
            ISet::range(values[0], values[values.len() - 1])
        }
    }

    /// `low..=high` (empty when `low > high`).
    pub fn range(low: i64, high: i64) -> ISet {
        if low > high {
            ISet::empty()
        } else if low == high {
            ISet::one(low)
        } else if (high as i128 - low as i128) < EXACT as i128 {
            ISet::Few((low..=high).collect())
        } else {
            ISet::Range(low, high)
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, ISet::Few(v) if v.is_empty())
    }

    /// The one value, if there is exactly one.
    pub fn single(&self) -> Option<i64> {
        match self {
            ISet::Few(v) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }

    /// The values, if few.
    pub fn values(&self) -> Option<&[i64]> {
        match self {
            ISet::Few(v) => Some(v),
            _ => None,
        }
    }

    /// The least and the greatest value (`None`: empty).
    pub fn bounds(&self) -> Option<(i64, i64)> {
        match self {
            ISet::Few(v) => Some((*v.first()?, *v.last()?)),
            ISet::Range(low, high) => Some((*low, *high)),
            ISet::Any => Some((i64::MIN, i64::MAX)),
        }
    }

    pub fn contains(&self, value: i64) -> bool {
        match self {
            ISet::Few(v) => v.binary_search(&value).is_ok(),
            ISet::Range(low, high) => (*low..=*high).contains(&value),
            ISet::Any => true,
        }
    }

    pub fn union(&self, other: &ISet) -> ISet {
        match (self, other) {
            (ISet::Any, _) | (_, ISet::Any) => ISet::Any,
            (ISet::Few(a), ISet::Few(b)) => ISet::of(a.iter().chain(b.iter()).copied().collect()),
            _ => match (self.bounds(), other.bounds()) {
                (Some((a, b)), Some((c, d))) => ISet::range(a.min(c), b.max(d)),
                (Some(_), None) => self.clone(),
                (None, _) => other.clone(),
            },
        }
    }

    /// Whether the sets share a value.
    pub fn meets(&self, other: &ISet) -> bool {
        match (self, other) {
            (ISet::Few(a), b) | (b, ISet::Few(a)) => a.iter().any(|v| b.contains(*v)),
            (ISet::Any, _) | (_, ISet::Any) => true,
            (ISet::Range(a, b), ISet::Range(c, d)) => a <= d && c <= b,
        }
    }

    /// The values of the set within `low..=high`.
    pub fn clamp(&self, low: i64, high: i64) -> ISet {
        match self {
            ISet::Few(v) => ISet::Few(v.iter().copied().filter(|x| (low..=high).contains(x)).collect()),
            ISet::Range(a, b) => ISet::range((*a).max(low), (*b).min(high)),
            ISet::Any => ISet::range(low, high),
        }
    }

    /// The set without `value` (exact only for few values).
    pub fn without(&self, value: i64) -> ISet {
        match self {
            ISet::Few(v) => ISet::Few(v.iter().copied().filter(|x| *x != value).collect()),
            ISet::Range(a, b) if *a == value => ISet::range(a + 1, *b),
            ISet::Range(a, b) if *b == value => ISet::range(*a, b - 1),
            other => other.clone(),
        }
    }

    /// `f` over every pair of values when both sets are few (an error of
    /// `f` is a value the program cannot go on with, left out), else over
    /// the bounds with `bounds_of` (`None`: any value).
    pub fn combine(
        &self,
        other: &ISet,
        f: impl Fn(i64, i64) -> Option<i64>,
        bounds_of: impl Fn((i64, i64), (i64, i64)) -> Option<(i64, i64)>,
    ) -> ISet {
        if let (ISet::Few(a), ISet::Few(b)) = (self, other) {
            if a.len() * b.len() <= EXACT * 4 {
                return ISet::of(a.iter().flat_map(|x| b.iter().filter_map(|y| f(*x, *y))).collect());
            }
        }
        match (self.bounds(), other.bounds()) {
            (Some(a), Some(b)) if !matches!(self, ISet::Any) && !matches!(other, ISet::Any) => {
                bounds_of(a, b).map_or(ISet::Any, |(low, high)| ISet::range(low, high))
            }
            (None, _) | (_, None) => ISet::empty(),
            _ => ISet::Any,
        }
    }

    /// `f` over every value (few), else `bounds_of` over the bounds.
    pub fn map(&self, f: impl Fn(i64) -> Option<i64>, bounds_of: impl Fn((i64, i64)) -> Option<(i64, i64)>) -> ISet {
        match self {
            ISet::Few(v) => ISet::of(v.iter().filter_map(|x| f(*x)).collect()),
            ISet::Range(a, b) => bounds_of((*a, *b)).map_or(ISet::Any, |(low, high)| ISet::range(low, high)),
            ISet::Any => ISet::Any,
        }
    }

    /// Sum, in i128 so that the bounds cannot overflow (a bound outside
    /// i64 is any value).
    pub fn add(&self, other: &ISet) -> ISet {
        self.combine(other, |a, b| a.checked_add(b), |(a, b), (c, d)| fit(a as i128 + c as i128, b as i128 + d as i128))
    }

    pub fn mul(&self, other: &ISet) -> ISet {
        self.combine(
            other,
            |a, b| a.checked_mul(b),
            |(a, b), (c, d)| {
                let products =
                    [a as i128 * c as i128, a as i128 * d as i128, b as i128 * c as i128, b as i128 * d as i128];
                fit(*products.iter().min().unwrap(), *products.iter().max().unwrap())
            },
        )
    }
}

/// `low..=high` if both fit i64.
pub fn fit(low: i128, high: i128) -> Option<(i64, i64)> {
    Some((i64::try_from(low).ok()?, i64::try_from(high).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_grow_into_ranges_and_stay_sound() {
        let peers = ISet::range(0, 3);
        assert_eq!(peers.values(), Some(&[0, 1, 2, 3][..]));
        assert_eq!(peers.without(2).values(), Some(&[0, 1, 3][..]));
        let big = ISet::range(0, 1000);
        assert!(matches!(big, ISet::Range(0, 1000)));
        assert!(big.mul(&ISet::one(3)).contains(2997));
        assert!(ISet::Any.add(&ISet::one(1)) == ISet::Any);
        // Overflowing bounds become any value, not a wrong range.
        assert_eq!(ISet::range(0, i64::MAX).add(&ISet::range(0, 10)), ISet::Any);
        assert!(ISet::one(3).meets(&ISet::range(0, 100)));
        assert!(!ISet::of(vec![1, 5]).meets(&ISet::of(vec![2, 4, 6])));
        assert_eq!(ISet::of(vec![4, 1, 4]).union(&ISet::one(2)).values(), Some(&[1, 2, 4][..]));
    }
}
