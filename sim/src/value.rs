//! Runtime values: integers and floats as 64-bit patterns, vectors (tiles),
//! and memref views over a buffer. Arithmetic follows MLIR's `arith` and
//! `index`: it wraps to the type's width, and what MLIR calls poison or
//! undefined (a division by zero or a signed one that overflows, a shift by
//! the bit width or more, an overflow an `nsw`/`nuw` flag excludes, a float
//! converted to an integer it does not fit) is an error of the program.
//! Sizes and positions are computed with checked arithmetic.

use super::ops::{BinOp, CastOp, Pred, Reduce, Scalar, Wrap};
use std::sync::Arc;

/// A view of a buffer: the buffer, the element offset, sizes and strides.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub buffer: u32,
    pub element: Scalar,
    pub offset: i64,
    pub sizes: Vec<i64>,
    pub strides: Vec<i64>,
}

/// The number of elements of `shape`, if no size is negative and the
/// product fits.
pub fn element_count(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |n, size| if *size < 0 { None } else { n.checked_mul(*size) })
}

impl View {
    /// A whole buffer of `shape`, row-major; `shape` has an
    /// [`element_count`].
    pub fn whole(buffer: u32, element: Scalar, shape: &[i64]) -> View {
        let mut strides = vec![1i64; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            // Partial products of a product that fits fit too; with a zero
            // size the view has no element and its strides are never used.
            strides[i] = strides[i + 1].saturating_mul(shape[i + 1]);
        }
        View { buffer, element, offset: 0, sizes: shape.to_vec(), strides }
    }

    /// Views are made with sizes whose product fits (`make_view` checks).
    pub fn len(&self) -> i64 {
        self.sizes.iter().product()
    }

    /// The buffer element of the first element, if the view has one.
    pub fn first(&self) -> Option<i64> {
        // `nth(0)`: every index is 0, so it is the offset (this is on the
        // simulator's hot path, once per waiting thread and step).
        (!self.is_empty()).then_some(self.offset)
    }

    /// Whether every dimension's stride is larger than the span of the
    /// dimensions inside it: then an element's indices follow from its
    /// buffer position dimension by dimension ([`View::contains`]).
    pub fn is_nested(&self) -> bool {
        let mut inner_span: i64 = 0;
        for (size, stride) in self.sizes.iter().zip(&self.strides).rev() {
            if *stride <= inner_span {
                return false;
            }
            match (size - 1).checked_mul(*stride).and_then(|s| s.checked_add(inner_span)) {
                Some(span) => inner_span = span,
                None => return false,
            }
        }
        true
    }

    /// The least and the greatest buffer element of a nested view with
    /// elements (`(0, -1)`, an empty range, for one without).
    pub fn bounds(&self) -> (i64, i64) {
        if self.is_empty() {
            return (0, -1);
        }
        // Nested strides are positive, and the last element's position fits
        // (`nth` of it is computed the same way).
        let span: i64 = self.sizes.iter().zip(&self.strides).map(|(size, stride)| (size - 1) * stride).sum();
        (self.offset, self.offset + span)
    }

    /// Whether buffer element `index` belongs to the view; the view
    /// [`is_nested`](View::is_nested).
    pub fn contains(&self, index: i64) -> bool {
        let Some(mut rest) = index.checked_sub(self.offset) else { return false };
        if rest < 0 || self.is_empty() {
            return false;
        }
        for (size, stride) in self.sizes.iter().zip(&self.strides) {
            let at = rest / stride;
            if at >= *size {
                return false;
            }
            rest -= at * stride;
        }
        rest == 0
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The buffer element of the `n`-th element of the view, row-major.
    pub fn nth(&self, mut n: i64) -> i64 {
        let mut at = self.offset;
        for (size, stride) in self.sizes.iter().zip(&self.strides).rev() {
            at += (n % size) * stride;
            n /= size;
        }
        at
    }

    /// The buffer elements of the whole view, in row-major order.
    pub fn elements(&self) -> Vec<i64> {
        (0..self.len()).map(|n| self.nth(n)).collect()
    }

    /// The row-major position of `indices` inside the view, if in bounds.
    pub fn position(&self, indices: &[i64]) -> Option<i64> {
        if indices.len() != self.sizes.len() {
            return None;
        }
        let mut n = 0;
        for (index, size) in indices.iter().zip(&self.sizes) {
            if *index < 0 || index >= size {
                return None;
            }
            n = n * size + index;
        }
        Some(n)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    /// A register not written yet (an unused entry argument of another type).
    Undef,
    Int(i64),
    /// f64 bits.
    Float(u64),
    Vector(Arc<[u64]>),
    MemRef(Arc<View>),
}

impl Val {
    pub fn float(value: f64) -> Val {
        Val::Float(value.to_bits())
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Val::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The memory bits of a scalar (integers as i64, floats as f64).
    pub fn bits(&self) -> Option<u64> {
        match self {
            Val::Int(v) => Some(*v as u64),
            Val::Float(bits) => Some(*bits),
            _ => None,
        }
    }

    /// The scalar a memory cell of `element` type holds.
    /// An integer is held sign-extended from its width, as arithmetic
    /// leaves it (the partial-order reduction's analysis counts on it).
    pub fn from_bits(element: Scalar, bits: u64) -> Val {
        match element {
            Scalar::Int(width) => Val::Int(wrap(bits as i64, width)),
            Scalar::Float(_) => Val::Float(bits),
        }
    }

    /// The zero of a type: what entry arguments and fresh buffers hold.
    pub fn zero(element: Scalar) -> Val {
        match element {
            Scalar::Int(_) => Val::Int(0),
            Scalar::Float(_) => Val::float(0.0),
        }
    }
}

/// `value` wrapped to a signed integer of `bits`.
pub fn wrap(value: i64, bits: u32) -> i64 {
    if bits >= 64 {
        value
    } else {
        let shift = 64 - bits;
        (value << shift) >> shift
    }
}

fn unsigned(value: i64, bits: u32) -> u64 {
    if bits >= 64 {
        value as u64
    } else {
        (value as u64) & ((1u64 << bits) - 1)
    }
}

fn round(value: f64, bits: u32) -> f64 {
    if bits == 32 {
        value as f32 as f64
    } else {
        value
    }
}

/// The smallest signed value of `bits`.
fn signed_min(bits: u32) -> i64 {
    wrap(1i64 << (bits.min(64) - 1), bits)
}

/// Whether `value` fits a signed integer of `bits`.
fn fits_signed(value: i128, bits: u32) -> bool {
    let half = 1i128 << (bits - 1);
    (-half..half).contains(&value)
}

/// Whether `value` fits an unsigned integer of `bits`.
fn fits_unsigned(value: i128, bits: u32) -> bool {
    (0..1i128 << bits).contains(&value)
}

/// A binary op on scalars; `Err` says why MLIR gives the program no result
/// (a division by zero, a signed division that overflows, a shift by the bit
/// width or more, an overflow its flags exclude).
pub fn binary(op: BinOp, lhs: u64, rhs: u64, ty: Scalar, flags: Wrap) -> Result<u64, String> {
    match ty {
        Scalar::Int(bits) => {
            let (a, b) = (lhs as i64, rhs as i64);
            let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
            let divisor = |v: u64| if v == 0 { Err("division by zero".to_string()) } else { Ok(v) };
            let signed_divisor = || {
                divisor(b as u64)?;
                if a == signed_min(bits) && b == -1 {
                    return Err(format!("signed division overflow: the minimum i{bits} divided by -1"));
                }
                Ok(())
            };
            let shift = || {
                if ub >= bits as u64 {
                    Err(format!("a shift by {ub}, not below the bit width {bits} (poison)"))
                } else {
                    Ok(ub as u32)
                }
            };
            let overflow =
                |what: &str| Err(format!("{what} overflows i{bits}, which its overflow flags exclude (poison)"));
            let (sa, sb, wa, wb) = (a as i128, b as i128, ua as i128, ub as i128);
            let result = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => {
                    // Exact in 128 bits, except an unsigned product of two
                    // 64-bit values, which `checked_mul` bounds.
                    let (signed, unsigned) = match op {
                        BinOp::Add => (sa + sb, Some(wa + wb)),
                        BinOp::Sub => (sa - sb, Some(wa - wb)),
                        _ => (sa * sb, wa.checked_mul(wb)),
                    };
                    if flags.nsw && !fits_signed(signed, bits) {
                        return overflow("the signed result");
                    }
                    if flags.nuw && !unsigned.is_some_and(|u| fits_unsigned(u, bits)) {
                        return overflow("the unsigned result");
                    }
                    signed as i64
                }
                BinOp::DivS => {
                    signed_divisor()?;
                    a / b
                }
                BinOp::DivU => (ua / divisor(ub)?) as i64,
                // MIN % -1 is 0 (no quotient is produced).
                BinOp::RemS => a.wrapping_rem(divisor(b as u64)? as i64),
                BinOp::RemU => (ua % divisor(ub)?) as i64,
                BinOp::CeilDivS | BinOp::FloorDivS => {
                    signed_divisor()?;
                    let (q, r) = (a / b, a % b);
                    let inexact = r != 0;
                    let same_sign = (a < 0) == (b < 0);
                    match op {
                        BinOp::CeilDivS if inexact && same_sign => q + 1,
                        BinOp::FloorDivS if inexact && !same_sign => q - 1,
                        _ => q,
                    }
                }
                BinOp::And => a & b,
                BinOp::Or => a | b,
                BinOp::Xor => a ^ b,
                BinOp::Shl => {
                    let by = shift()?;
                    let result = wrap(((ua as u128) << by) as i64, bits);
                    if flags.nuw && unsigned(result, bits) >> by != ua {
                        return overflow("the shifted value");
                    }
                    if flags.nsw && result >> by != a {
                        return overflow("the shifted value");
                    }
                    result
                }
                BinOp::ShrS => a >> shift()?,
                BinOp::ShrU => (ua >> shift()?) as i64,
                BinOp::MaxS => a.max(b),
                BinOp::MinS => a.min(b),
                BinOp::MaxU => ua.max(ub) as i64,
                BinOp::MinU => ua.min(ub) as i64,
                _ => return Err(format!("{op:?} on an integer")),
            };
            Ok(wrap(result, bits) as u64)
        }
        Scalar::Float(bits) => {
            let (a, b) = (f64::from_bits(lhs), f64::from_bits(rhs));
            let result = match op {
                BinOp::AddF => a + b,
                BinOp::SubF => a - b,
                BinOp::MulF => a * b,
                BinOp::DivF => a / b,
                BinOp::MaxF => a.max(b),
                BinOp::MinF => a.min(b),
                _ => return Err(format!("{op:?} on a float")),
            };
            Ok(round(result, bits).to_bits())
        }
    }
}

/// A conversion; `Err` for a float that does not fit the integer type
/// (poison in MLIR).
pub fn cast(op: CastOp, value: u64, from: Scalar, to: Scalar) -> Result<u64, String> {
    let to_bits = match to {
        Scalar::Int(bits) | Scalar::Float(bits) => bits,
    };
    let from_bits = match from {
        Scalar::Int(bits) | Scalar::Float(bits) => bits,
    };
    let float_to_int = |signed: bool| {
        let f = f64::from_bits(value).trunc();
        // Every integer bound below 2^64 is exact in f64 from 2^-63 up.
        let fits = if signed {
            f >= -(2f64.powi(to_bits as i32 - 1)) && f < 2f64.powi(to_bits as i32 - 1)
        } else {
            f >= 0.0 && f < 2f64.powi(to_bits as i32)
        };
        if !fits {
            return Err(format!(
                "{} does not fit {} i{to_bits} (poison)",
                f64::from_bits(value),
                if signed { "a signed" } else { "an unsigned" }
            ));
        }
        Ok(if signed { wrap(f as i64, to_bits) as u64 } else { wrap(f as u64 as i64, to_bits) as u64 })
    };
    Ok(match op {
        CastOp::IntSigned => wrap(value as i64, to_bits) as u64,
        CastOp::IntUnsigned => wrap(unsigned(value as i64, from_bits) as i64, to_bits) as u64,
        CastOp::SignedToFloat => round(value as i64 as f64, to_bits).to_bits(),
        CastOp::UnsignedToFloat => round(unsigned(value as i64, from_bits) as f64, to_bits).to_bits(),
        CastOp::FloatToSigned => float_to_int(true)?,
        CastOp::FloatToUnsigned => float_to_int(false)?,
        CastOp::Float => round(f64::from_bits(value), to_bits).to_bits(),
        CastOp::NegF => (-f64::from_bits(value)).to_bits(),
    })
}

pub fn compare(pred: Pred, lhs: u64, rhs: u64, ty: Scalar) -> bool {
    match (pred, ty) {
        (Pred::F { lt, eq, gt, unordered }, _) => {
            let (a, b) = (f64::from_bits(lhs), f64::from_bits(rhs));
            if a.is_nan() || b.is_nan() {
                unordered
            } else {
                (lt && a < b) || (eq && a == b) || (gt && a > b)
            }
        }
        (_, Scalar::Int(bits)) => {
            let (a, b) = (lhs as i64, rhs as i64);
            let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
            match pred {
                Pred::Eq => a == b,
                Pred::Ne => a != b,
                Pred::Slt => a < b,
                Pred::Sle => a <= b,
                Pred::Sgt => a > b,
                Pred::Sge => a >= b,
                Pred::Ult => ua < ub,
                Pred::Ule => ua <= ub,
                Pred::Ugt => ua > ub,
                Pred::Uge => ua >= ub,
                Pred::F { .. } => unreachable!(),
            }
        }
        (_, Scalar::Float(_)) => false,
    }
}

/// `f` on each lane of two vectors, or on two scalars of one kind.
pub fn lanewise2(a: &Val, b: &Val, f: impl Fn(u64, u64) -> Result<u64, String>) -> Result<Val, String> {
    match (a, b) {
        (Val::Vector(x), Val::Vector(y)) => Ok(Val::Vector(
            x.iter().zip(y.iter()).map(|(p, q)| f(*p, *q)).collect::<Result<Vec<u64>, String>>()?.into(),
        )),
        (Val::Int(_), Val::Int(_)) => Ok(Val::Int(f(a.bits().unwrap(), b.bits().unwrap())? as i64)),
        (Val::Float(x), Val::Float(y)) => Ok(Val::Float(f(*x, *y)?)),
        _ => Err("arithmetic on unset or mismatched values".to_string()),
    }
}

/// `f` on each lane of `a` (or on the scalar); `None` for an unset value.
pub fn lanewise1(a: &Val, f: impl Fn(u64) -> Result<u64, String>, to: Scalar) -> Option<Result<Val, String>> {
    Some(match a {
        Val::Vector(x) => x.iter().map(|p| f(*p)).collect::<Result<Vec<u64>, String>>().map(|v| Val::Vector(v.into())),
        other => f(other.bits()?).map(|bits| Val::from_bits(to, bits)),
    })
}

/// The lanes of a tile (a scalar is one lane).
pub fn lanes_of(value: &Val) -> Vec<u64> {
    match value {
        Val::Vector(lanes) => lanes.to_vec(),
        other => other.bits().into_iter().collect(),
    }
}

/// One step of an `all_reduce`: `a` and `b` combined as `reduce` does
/// for `element`.
pub fn reduce(reduce: Reduce, a: u64, b: u64, element: Scalar) -> u64 {
    match element {
        Scalar::Int(bits) => {
            let (x, y) = (a as i64, b as i64);
            let r = match reduce {
                Reduce::Sum => x.wrapping_add(y),
                Reduce::Max => x.max(y),
                Reduce::Min => x.min(y),
            };
            wrap(r, bits) as u64
        }
        Scalar::Float(bits) => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let r = match reduce {
                Reduce::Sum => x + y,
                Reduce::Max => x.max(y),
                Reduce::Min => x.min(y),
            };
            if bits == 32 { r as f32 as f64 } else { r }.to_bits()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDTHS: [u32; 6] = [1, 8, 16, 32, 63, 64];
    const OPS: [BinOp; 19] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::DivS,
        BinOp::DivU,
        BinOp::RemS,
        BinOp::RemU,
        BinOp::CeilDivS,
        BinOp::FloorDivS,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::ShrS,
        BinOp::ShrU,
        BinOp::MaxS,
        BinOp::MinS,
        BinOp::MaxU,
        BinOp::MinU,
    ];

    /// The values where integer arithmetic breaks, at a width.
    fn edges(bits: u32) -> Vec<i64> {
        let min = signed_min(bits);
        let max = wrap(min.wrapping_sub(1), bits);
        let mut values = vec![0, 1, -1, 2, -2, min, max, wrap(min.wrapping_add(1), bits), bits as i64, bits as i64 - 1];
        values.iter_mut().for_each(|v| *v = wrap(*v, bits));
        values
    }

    fn int(op: BinOp, a: i64, b: i64, bits: u32, flags: Wrap) -> Result<i64, String> {
        binary(op, a as u64, b as u64, Scalar::Int(bits), flags).map(|r| r as i64)
    }

    #[test]
    fn every_integer_op_at_every_edge_is_a_value_in_its_width_or_an_error() {
        for bits in WIDTHS {
            for op in OPS {
                for a in edges(bits) {
                    for b in edges(bits) {
                        for flags in [Wrap::default(), Wrap { nsw: true, nuw: true }] {
                            if let Ok(r) = int(op, a, b, bits, flags) {
                                assert_eq!(r, wrap(r, bits), "{op:?} {a} {b} at i{bits} left its width");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn signed_division_of_the_minimum_by_minus_one_is_an_error() {
        for bits in WIDTHS.into_iter().filter(|b| *b > 1) {
            let min = signed_min(bits);
            for op in [BinOp::DivS, BinOp::CeilDivS, BinOp::FloorDivS] {
                let error = int(op, min, -1, bits, Wrap::default()).unwrap_err();
                assert!(error.contains("signed division overflow"), "{op:?} at i{bits}: {error}");
            }
            // The remainder is defined: 0.
            assert_eq!(int(BinOp::RemS, min, -1, bits, Wrap::default()), Ok(0));
        }
    }

    #[test]
    fn rounding_divisions_round_as_mlir_does() {
        let d = |op, a, b| int(op, a, b, 32, Wrap::default()).unwrap();
        assert_eq!(d(BinOp::FloorDivS, -7, 2), -4);
        assert_eq!(d(BinOp::CeilDivS, -7, 2), -3);
        assert_eq!(d(BinOp::FloorDivS, 7, -2), -4);
        assert_eq!(d(BinOp::CeilDivS, 7, 2), 4);
        assert_eq!(d(BinOp::DivS, -7, 2), -3);
        assert!(int(BinOp::DivU, 1, 0, 32, Wrap::default()).unwrap_err().contains("division by zero"));
    }

    #[test]
    fn shifts_by_the_width_or_more_are_errors() {
        for bits in WIDTHS {
            for op in [BinOp::Shl, BinOp::ShrS, BinOp::ShrU] {
                assert!(int(op, 1, bits as i64, bits, Wrap::default()).is_err(), "{op:?} by {bits} at i{bits}");
                assert!(
                    int(op, 1, bits as i64 - 1, bits, Wrap::default()).is_ok(),
                    "{op:?} by {} at i{bits}",
                    bits - 1
                );
            }
        }
        // A shift amount is unsigned: -1 is the largest.
        assert!(int(BinOp::ShrS, 5, -1, 32, Wrap::default()).is_err());
        assert_eq!(int(BinOp::ShrS, -8, 2, 32, Wrap::default()), Ok(-2));
    }

    #[test]
    fn overflow_flags_make_overflow_an_error() {
        let nsw = Wrap { nsw: true, nuw: false };
        let nuw = Wrap { nsw: false, nuw: true };
        assert_eq!(int(BinOp::Add, 100, 27, 8, nsw), Ok(127));
        assert!(int(BinOp::Add, 100, 28, 8, nsw).is_err());
        assert_eq!(int(BinOp::Add, 100, 28, 8, Wrap::default()), Ok(-128));
        assert!(int(BinOp::Sub, 0, 1, 8, nuw).is_err());
        assert!(int(BinOp::Mul, -1, -1, 64, nuw).is_err());
        assert_eq!(int(BinOp::Mul, -1, -1, 64, nsw), Ok(1));
        assert!(int(BinOp::Shl, 1, 7, 8, nsw).is_err());
        assert_eq!(int(BinOp::Shl, 1, 7, 8, nuw), Ok(-128));
        assert!(int(BinOp::Shl, -128, 1, 8, nuw).is_err());
    }

    #[test]
    fn floats_that_do_not_fit_their_integer_are_errors() {
        let to = |value: f64, bits, op| cast(op, value.to_bits(), Scalar::Float(64), Scalar::Int(bits));
        assert_eq!(to(-128.9, 8, CastOp::FloatToSigned), Ok(-128i64 as u64));
        assert!(to(128.0, 8, CastOp::FloatToSigned).is_err());
        assert!(to(f64::NAN, 32, CastOp::FloatToSigned).is_err());
        assert!(to(-1.0, 32, CastOp::FloatToUnsigned).is_err());
        assert_eq!(to(255.5, 8, CastOp::FloatToUnsigned), Ok(-1i64 as u64));
        assert!(to(1e19, 64, CastOp::FloatToSigned).is_err());
        assert!(to(1e19, 64, CastOp::FloatToUnsigned).is_ok());
        assert!(to(f64::INFINITY, 64, CastOp::FloatToUnsigned).is_err());
    }

    #[test]
    fn an_empty_buffer_of_huge_sizes_is_a_view() {
        let view = View::whole(0, Scalar::Int(8), &[0, 1 << 40, 1 << 40]);
        assert!(view.is_empty());
        assert_eq!(view.first(), None);
    }

    #[test]
    fn element_counts_that_overflow_are_none() {
        assert_eq!(element_count(&[1 << 32, 1 << 32]), None);
        assert_eq!(element_count(&[4, -1]), None);
        assert_eq!(element_count(&[0, i64::MAX, 2]), Some(0));
        assert_eq!(element_count(&[]), Some(1));
    }

    #[test]
    fn nested_views_answer_membership_and_bounds() {
        // Rows 1..3 of a 4x4 buffer, every other column from 1.
        let view = View { buffer: 0, element: Scalar::Int(32), offset: 5, sizes: vec![2, 2], strides: vec![4, 2] };
        assert!(view.is_nested());
        assert_eq!(view.bounds(), (5, 11));
        let members: Vec<i64> = (0..16).filter(|i| view.contains(*i)).collect();
        assert_eq!(members, view.elements());
        // A broadcast (stride 0) does not decompose.
        let broadcast = View { strides: vec![0, 1], ..view.clone() };
        assert!(!broadcast.is_nested());
        assert_eq!(View { sizes: vec![0, 2], ..view }.first(), None);
    }
}
