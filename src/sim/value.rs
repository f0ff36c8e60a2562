//! Runtime values: integers and floats as 64-bit patterns, vectors (tiles),
//! and memref views over a buffer. Arithmetic wraps to the type's width, as
//! MLIR's `arith` and `index` define it.

use super::program::{BinOp, CastOp, Pred, Scalar};
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

impl View {
    /// A whole buffer of `shape`, row-major.
    pub fn whole(buffer: u32, element: Scalar, shape: &[i64]) -> View {
        let mut strides = vec![1; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1];
        }
        View { buffer, element, offset: 0, sizes: shape.to_vec(), strides }
    }

    pub fn len(&self) -> i64 {
        self.sizes.iter().product()
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
    pub fn from_bits(element: Scalar, bits: u64) -> Val {
        match element {
            Scalar::Int(_) => Val::Int(bits as i64),
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

/// A binary op on scalars; `Err` for division by zero.
pub fn binary(op: BinOp, lhs: u64, rhs: u64, ty: Scalar) -> Result<u64, String> {
    match ty {
        Scalar::Int(bits) => {
            let (a, b) = (lhs as i64, rhs as i64);
            let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
            let divisor = |v: u64| if v == 0 { Err("division by zero".to_string()) } else { Ok(v) };
            let result = match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::DivS => a.wrapping_div(divisor(b as u64)? as i64),
                BinOp::DivU => (ua / divisor(ub)?) as i64,
                BinOp::RemS => a.wrapping_rem(divisor(b as u64)? as i64),
                BinOp::RemU => (ua % divisor(ub)?) as i64,
                BinOp::CeilDivS => {
                    divisor(b as u64)?;
                    let q = a.wrapping_div(b);
                    if (a % b != 0) && ((a < 0) == (b < 0)) {
                        q + 1
                    } else {
                        q
                    }
                }
                BinOp::FloorDivS => {
                    divisor(b as u64)?;
                    let q = a.wrapping_div(b);
                    if (a % b != 0) && ((a < 0) != (b < 0)) {
                        q - 1
                    } else {
                        q
                    }
                }
                BinOp::And => a & b,
                BinOp::Or => a | b,
                BinOp::Xor => a ^ b,
                BinOp::Shl => {
                    if ub >= bits as u64 {
                        0
                    } else {
                        a << ub
                    }
                }
                BinOp::ShrS => a >> ub.min(bits as u64 - 1),
                BinOp::ShrU => {
                    if ub >= bits as u64 {
                        0
                    } else {
                        (ua >> ub) as i64
                    }
                }
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

pub fn cast(op: CastOp, value: u64, from: Scalar, to: Scalar) -> u64 {
    let to_bits = match to {
        Scalar::Int(bits) | Scalar::Float(bits) => bits,
    };
    let from_bits = match from {
        Scalar::Int(bits) | Scalar::Float(bits) => bits,
    };
    match op {
        CastOp::IntSigned => wrap(value as i64, to_bits) as u64,
        CastOp::IntUnsigned => wrap(unsigned(value as i64, from_bits) as i64, to_bits) as u64,
        CastOp::SignedToFloat => round(value as i64 as f64, to_bits).to_bits(),
        CastOp::UnsignedToFloat => round(unsigned(value as i64, from_bits) as f64, to_bits).to_bits(),
        CastOp::FloatToSigned => wrap(f64::from_bits(value) as i64, to_bits) as u64,
        CastOp::FloatToUnsigned => wrap(f64::from_bits(value) as u64 as i64, to_bits) as u64,
        CastOp::Float => round(f64::from_bits(value), to_bits).to_bits(),
        CastOp::NegF => (-f64::from_bits(value)).to_bits(),
    }
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
