//! THE formula: `B = CalAllToAllVBlocks(P, L)`.
//!
//! `B = L` when `L < P`, else `(L / P) * P`, the largest multiple of P not
//! above L. P is the rank count, L the requested core_num (a maximum, not a
//! promise).
//!
//! The formula is written once, in [`cal_all_to_all_v_blocks_in`], over an
//! [`Algebra`]: four operations, each of which is exactly one `arith` op.
//! Two algebras interpret it:
//! - [`Exact`] evaluates it on `i128`: the launch-width pass folds constant
//!   operands with it through [`blocks`]
//!   (`passes/src/admit_launch_width/fold.rs`), and `ccl-sim` evaluates the
//!   op with it at run time;
//! - the lowering (`passes/src/admit_launch_width/lower.rs`) emits one
//!   `arith` op per step, so the dynamic form is this same function run
//!   with IR values instead of numbers.
//!
//! Compile time and run time are therefore one definition; the JIT test
//! (`tests/launch_width_engine.rs`) checks them against each other.

/// The four operations the formula is made of, and the `arith` op each one
/// becomes when lowered.
pub trait Algebra {
    /// An integer (P, L, or an intermediate).
    type Int: Copy;
    /// A comparison result.
    type Bool: Copy;

    /// `a < b`, signed: `arith.cmpi slt`.
    fn less_than(&mut self, a: Self::Int, b: Self::Int) -> Self::Bool;
    /// `a / b`, signed, rounding toward zero: `arith.divsi`.
    fn quotient(&mut self, a: Self::Int, b: Self::Int) -> Self::Int;
    /// `a * b`: `arith.muli`.
    fn product(&mut self, a: Self::Int, b: Self::Int) -> Self::Int;
    /// `if c { t } else { f }`: `arith.select`.
    fn select(&mut self, c: Self::Bool, t: Self::Int, f: Self::Int) -> Self::Int;
}

/// `CalAllToAllVBlocks(P, L)` in any algebra. Precondition: P > 0 and L > 0
/// (the quotient divides by P; [`check`] admits the operands).
///
/// Both arms are computed and one is selected, as the lowered form does:
/// with `L < P` the quotient is 0, which is harmless.
pub fn cal_all_to_all_v_blocks_in<A: Algebra>(algebra: &mut A, p: A::Int, l: A::Int) -> A::Int {
    let fewer_cores_than_ranks = algebra.less_than(l, p);
    let whole_rounds = algebra.quotient(l, p);
    let largest_multiple = algebra.product(whole_rounds, p);
    algebra.select(fewer_cores_than_ranks, l, largest_multiple)
}

/// The formula evaluated exactly on `i128` (wide enough for any operand the
/// dialect allows: i8 .. i128 and index). No step can overflow: the quotient
/// and the product are at most L.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exact;

impl Algebra for Exact {
    type Int = i128;
    type Bool = bool;

    fn less_than(&mut self, a: i128, b: i128) -> bool {
        a < b
    }

    fn quotient(&mut self, a: i128, b: i128) -> i128 {
        a / b
    }

    fn product(&mut self, a: i128, b: i128) -> i128 {
        a * b
    }

    fn select(&mut self, c: bool, t: i128, f: i128) -> i128 {
        if c {
            t
        } else {
            f
        }
    }
}

/// Operands the formula is not defined on. The messages are the pass's
/// diagnostics, word for word (docs/semantics.md, admission rule 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormulaError {
    #[error("P (rank count) must be positive, got {0}")]
    RankCountNotPositive(i128),
    #[error("L (requested core_num) must be positive, got {0}")]
    CoreNumNotPositive(i128),
}

/// P must be positive.
pub fn check_rank_count(p: i128) -> Result<(), FormulaError> {
    if p > 0 {
        Ok(())
    } else {
        Err(FormulaError::RankCountNotPositive(p))
    }
}

/// L must be positive.
pub fn check_core_num(l: i128) -> Result<(), FormulaError> {
    if l > 0 {
        Ok(())
    } else {
        Err(FormulaError::CoreNumNotPositive(l))
    }
}

/// Every reason `(p, l)` is outside the formula's domain, P's first.
pub fn check(p: i128, l: i128) -> Vec<FormulaError> {
    [check_rank_count(p), check_core_num(l)].into_iter().filter_map(Result::err).collect()
}

/// `B = CalAllToAllVBlocks(P, L)`, or the first reason it is undefined.
pub fn blocks(p: i128, l: i128) -> Result<i128, FormulaError> {
    match check(p, l).into_iter().next() {
        Some(error) => Err(error),
        None => Ok(cal_all_to_all_v_blocks_in(&mut Exact, p, l)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked table of docs/semantics.md.
    const TABLE: &[(i128, i128, i128)] =
        &[(8, 1, 1), (8, 7, 7), (8, 8, 8), (8, 10, 8), (8, 15, 8), (8, 16, 16), (16, 7, 7), (16, 16, 16)];

    #[test]
    fn worked_table() {
        for &(p, l, b) in TABLE {
            assert_eq!(blocks(p, l), Ok(b), "P={p} L={l}");
        }
    }

    #[test]
    fn definition_by_cases() {
        for p in 1..=64 {
            for l in 1..=256 {
                let b = blocks(p, l).unwrap();
                if l < p {
                    assert_eq!(b, l);
                } else {
                    assert_eq!(b % p, 0);
                    assert!(b <= l && l - b < p, "largest multiple of P not above L");
                }
            }
        }
    }

    #[test]
    fn extremes_do_not_overflow() {
        assert_eq!(blocks(1, i128::MAX), Ok(i128::MAX));
        assert_eq!(blocks(i128::MAX, i128::MAX), Ok(i128::MAX));
        assert_eq!(blocks(i128::MAX, 1), Ok(1));
        assert_eq!(blocks(3, i128::MAX), Ok(i128::MAX - i128::MAX % 3));
    }

    #[test]
    fn non_positive_operands_are_rejected_with_the_pass_messages() {
        assert_eq!(blocks(0, 4).unwrap_err().to_string(), "P (rank count) must be positive, got 0");
        assert_eq!(blocks(4, -2).unwrap_err().to_string(), "L (requested core_num) must be positive, got -2");
        assert_eq!(check(-1, 0), vec![FormulaError::RankCountNotPositive(-1), FormulaError::CoreNumNotPositive(0)]);
    }
}
