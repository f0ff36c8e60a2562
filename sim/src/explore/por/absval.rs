//! Abstract values of the static analysis: what a register may hold at a
//! point of the program, over every execution. Integers are sets
//! ([`ISet`]), memrefs are views whose buffer, offset, sizes and strides are
//! sets; everything else (floats, vectors, values read from memory) is any
//! value. Each transfer function over-approximates the interpreter's own
//! (`machine::execute`): the abstract result holds every concrete result.

use super::iset::{fit, ISet};
use crate::program::{BinOp, CastOp, Operand, Pred, Scalar, ViewKind, Wrap};
use crate::value::{self, Val, View};
use smallvec::SmallVec;
use std::sync::Arc;

/// Buffers a view may be of: a few ids, or any (`None`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BufSet(pub Option<SmallVec<[u32; 2]>>);

impl BufSet {
    pub fn one(buffer: u32) -> BufSet {
        BufSet(Some(smallvec::smallvec![buffer]))
    }

    pub fn any() -> BufSet {
        BufSet(None)
    }

    pub fn union(&self, other: &BufSet) -> BufSet {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => {
                let mut all: SmallVec<[u32; 2]> = a.iter().chain(b.iter()).copied().collect();
                all.sort_unstable();
                all.dedup();
                BufSet(Some(all))
            }
            _ => BufSet(None),
        }
    }

    pub fn meets(&self, other: &BufSet) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => a.iter().any(|x| b.contains(x)),
            _ => true,
        }
    }

    pub fn contains(&self, buffer: u32) -> bool {
        self.0.as_ref().is_none_or(|ids| ids.contains(&buffer))
    }
}

/// A view: its buffers, and the offset, sizes and strides as sets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AView {
    pub buffers: BufSet,
    pub offset: ISet,
    pub sizes: Vec<ISet>,
    pub strides: Vec<ISet>,
}

impl AView {
    pub fn of(view: &View) -> AView {
        AView {
            buffers: BufSet::one(view.buffer),
            offset: ISet::one(view.offset),
            sizes: view.sizes.iter().map(|s| ISet::one(*s)).collect(),
            strides: view.strides.iter().map(|s| ISet::one(*s)).collect(),
        }
    }

    /// The view, if every part is one value.
    fn concrete(&self) -> Option<View> {
        let buffers = self.buffers.0.as_ref()?;
        if buffers.len() != 1 {
            return None;
        }
        Some(View {
            buffer: buffers[0],
            element: Scalar::Int(64),
            offset: self.offset.single()?,
            sizes: self.sizes.iter().map(ISet::single).collect::<Option<_>>()?,
            strides: self.strides.iter().map(ISet::single).collect::<Option<_>>()?,
        })
    }

    /// The buffer elements the view may cover.
    pub fn elements(&self) -> ISet {
        if let Some(view) = self.concrete() {
            let len = view.len();
            if len <= super::iset::EXACT as i64 {
                return ISet::of(view.elements());
            }
            if view.is_nested() {
                let (low, high) = view.bounds();
                return ISet::range(low, high);
            }
        }
        // A few offsets of an otherwise known view (a cell of any row):
        // the union of each one's elements.
        if let Some(offsets) = self.offset.values().filter(|o| o.len() > 1) {
            let one = |offset: i64| AView { offset: ISet::one(offset), ..self.clone() }.concrete();
            if let Some(views) = offsets.iter().map(|o| one(*o)).collect::<Option<Vec<View>>>() {
                let total: i64 = views.iter().map(View::len).sum();
                if total <= super::iset::EXACT as i64 * 4 {
                    return ISet::of(views.iter().flat_map(View::elements).collect());
                }
            }
        }
        self.span()
    }

    /// Bounds of every element: the offset plus, per dimension, any index
    /// below its size times its stride.
    fn span(&self) -> ISet {
        let Some((mut low, mut high)) = self.offset.bounds().map(|(a, b)| (a as i128, b as i128)) else {
            return ISet::empty();
        };
        if matches!(self.offset, ISet::Any) {
            return ISet::Any;
        }
        for (size, stride) in self.sizes.iter().zip(&self.strides) {
            let (Some((_, size_max)), Some((stride_min, stride_max))) = (size.bounds(), stride.bounds()) else {
                return ISet::empty();
            };
            if matches!(size, ISet::Any) || matches!(stride, ISet::Any) {
                return ISet::Any;
            }
            if size_max <= 0 {
                return ISet::empty();
            }
            let last = (size_max - 1) as i128;
            low += (last * stride_min as i128).min(0);
            high += (last * stride_max as i128).max(0);
        }
        fit(low, high).map_or(ISet::Any, |(low, high)| ISet::range(low, high))
    }

    /// The elements at `indices` (each a set) and the `len` after each.
    pub fn elements_at(&self, indices: &[ISet], len: i64) -> ISet {
        let Some(view) = self.concrete() else { return self.elements() };
        if indices.len() != view.sizes.len() {
            return ISet::empty();
        }
        // Every combination of the index values, while they are few.
        let mut positions: Vec<i64> = vec![0];
        for (index, size) in indices.iter().zip(&view.sizes) {
            let Some(values) = index.values() else { return self.elements() };
            if positions.len() * values.len() > super::iset::EXACT {
                return self.elements();
            }
            positions = positions
                .iter()
                .flat_map(|p| values.iter().filter(|v| (0..*size).contains(*v)).map(move |v| p * size + v))
                .collect();
        }
        let mut elements = Vec::new();
        for p in positions {
            for n in p..(p + len).min(view.len()) {
                elements.push(view.nth(n));
            }
            if elements.len() > super::iset::EXACT * 4 {
                return self.elements();
            }
        }
        ISet::of(elements)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AVal {
    /// Written on no path yet.
    Unset,
    Int(ISet),
    View(Arc<AView>),
    /// A float, a vector, a memref of unknown buffers: anything.
    Any,
}

impl AVal {
    pub fn of(value: &Val) -> AVal {
        match value {
            Val::Undef => AVal::Unset,
            Val::Int(v) => AVal::Int(ISet::one(*v)),
            Val::MemRef(view) => AVal::View(Arc::new(AView::of(view))),
            Val::Float(_) | Val::Vector(_) => AVal::Any,
        }
    }

    /// The integers it may be (any value for anything but integers).
    pub fn ints(&self) -> ISet {
        match self {
            AVal::Int(set) => set.clone(),
            AVal::Unset => ISet::empty(),
            _ => ISet::Any,
        }
    }

    pub fn view(&self) -> Option<&AView> {
        match self {
            AVal::View(view) => Some(view),
            _ => None,
        }
    }

    pub fn join(&self, other: &AVal) -> AVal {
        match (self, other) {
            (AVal::Unset, x) | (x, AVal::Unset) => x.clone(),
            (AVal::Int(a), AVal::Int(b)) => AVal::Int(a.union(b)),
            (AVal::View(a), AVal::View(b)) if a == b => AVal::View(a.clone()),
            (AVal::View(a), AVal::View(b)) if a.sizes.len() == b.sizes.len() => AVal::View(Arc::new(AView {
                buffers: a.buffers.union(&b.buffers),
                offset: a.offset.union(&b.offset),
                sizes: a.sizes.iter().zip(&b.sizes).map(|(x, y)| x.union(y)).collect(),
                strides: a.strides.iter().zip(&b.strides).map(|(x, y)| x.union(y)).collect(),
            })),
            _ => AVal::Any,
        }
    }

    /// The join, with every integer bound that grew pushed to the end of
    /// its range, so that a loop's values stop growing.
    pub fn widen(&self, next: &AVal) -> AVal {
        let joined = self.join(next);
        match (self, &joined) {
            (AVal::Int(old), AVal::Int(new)) => AVal::Int(widen_set(old, new)),
            (AVal::View(old), AVal::View(new)) if old.sizes.len() == new.sizes.len() => AVal::View(Arc::new(AView {
                buffers: new.buffers.clone(),
                offset: widen_set(&old.offset, &new.offset),
                sizes: old.sizes.iter().zip(&new.sizes).map(|(a, b)| widen_set(a, b)).collect(),
                strides: old.strides.iter().zip(&new.strides).map(|(a, b)| widen_set(a, b)).collect(),
            })),
            _ => joined,
        }
    }
}

fn widen_set(old: &ISet, new: &ISet) -> ISet {
    if old == new {
        return new.clone();
    }
    match (old.bounds(), new.bounds()) {
        (Some((a, b)), Some((c, d))) => {
            let low = if c < a { i64::MIN } else { c };
            let high = if d > b { i64::MAX } else { d };
            if low == i64::MIN && high == i64::MAX {
                ISet::Any
            } else {
                ISet::Range(low, high)
            }
        }
        _ => new.clone(),
    }
}

/// The range of a signed integer of `bits`.
fn int_range(bits: u32) -> (i64, i64) {
    if bits >= 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    }
}

/// `low..=high` if it fits the type (else any value: it wraps).
fn in_type(bounds: Option<(i64, i64)>, bits: u32) -> Option<(i64, i64)> {
    let (low, high) = bounds?;
    let (min, max) = int_range(bits);
    (low >= min && high <= max).then_some((low, high))
}

/// An integer binary op over sets: exact on few values (through the
/// interpreter's own arithmetic), interval arithmetic on ranges where it is
/// simple, any value otherwise.
pub fn binary(op: BinOp, lhs: &AVal, rhs: &AVal, ty: Scalar, wrap: Wrap) -> AVal {
    let Scalar::Int(bits) = ty else { return AVal::Any };
    // An integer register holds a value of its type, sign-extended (every
    // producer wraps, loads included: `Val::from_bits`): any value is one
    // of the type's range.
    let typed = |set: ISet| match set {
        ISet::Any => {
            let (min, max) = int_range(bits);
            ISet::range(min, max)
        }
        set => set,
    };
    let (a, b) = (typed(lhs.ints()), typed(rhs.ints()));
    let exact = |x: i64, y: i64| value::binary(op, x as u64, y as u64, ty, wrap).ok().map(|r| r as i64);
    let bounds = |(a0, a1): (i64, i64), (b0, b1): (i64, i64)| -> Option<(i64, i64)> {
        let (a0, a1, b0, b1) = (a0 as i128, a1 as i128, b0 as i128, b1 as i128);
        let result = match op {
            BinOp::Add => fit(a0 + b0, a1 + b1),
            BinOp::Sub => fit(a0 - b1, a1 - b0),
            BinOp::Mul => {
                let p = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
                fit(*p.iter().min()?, *p.iter().max()?)
            }
            BinOp::MaxS => fit(a0.max(b0), a1.max(b1)),
            BinOp::MinS => fit(a0.min(b0), a1.min(b1)),
            // By a positive divisor the quotient is monotone in each
            // operand: its extremes are at the corners.
            BinOp::DivS | BinOp::FloorDivS | BinOp::CeilDivS if b0 > 0 => {
                let quotient = |x: i128, y: i128| match op {
                    BinOp::DivS => x / y,
                    BinOp::FloorDivS => x.div_euclid(y),
                    _ => -((-x).div_euclid(y)),
                };
                let corners = [quotient(a0, b0), quotient(a0, b1), quotient(a1, b0), quotient(a1, b1)];
                fit(*corners.iter().min()?, *corners.iter().max()?)
            }
            BinOp::RemS | BinOp::RemU if b0 > 0 && a0 >= 0 => fit(0, (b1 - 1).min(a1)),
            BinOp::DivU if b0 > 0 && a0 >= 0 => fit(a0 / b1, a1 / b0),
            BinOp::And if a0 >= 0 && b0 >= 0 => fit(0, a1.min(b1)),
            _ => None,
        }?;
        in_type(Some(result), bits)
    };
    AVal::Int(a.combine(&b, exact, bounds))
}

pub fn cast(op: CastOp, src: &AVal, from: Scalar, to: Scalar) -> AVal {
    let (Scalar::Int(from_bits), Scalar::Int(to_bits)) = (from, to) else { return AVal::Any };
    let exact = |x: i64| value::cast(op, x as u64, from, to).ok().map(|r| r as i64);
    let bounds = |(low, high): (i64, i64)| match op {
        CastOp::IntSigned => in_type(Some((low, high)), to_bits.min(from_bits)),
        CastOp::IntUnsigned if low >= 0 => in_type(Some((low, high)), to_bits.min(from_bits)),
        _ => None,
    };
    AVal::Int(src.ints().map(exact, bounds))
}

/// `cmp` as i1 (true is -1, as the interpreter holds it): decided where the
/// sets allow.
pub fn compare(pred: Pred, lhs: &AVal, rhs: &AVal, ty: Scalar) -> AVal {
    if let (Scalar::Int(_), AVal::Int(a), AVal::Int(b)) = (ty, lhs, rhs) {
        if let (Some(x), Some(y)) = (a.values(), b.values()) {
            if x.len() * y.len() <= super::iset::EXACT * 4 {
                let outcomes: Vec<i64> = x
                    .iter()
                    .flat_map(|p| y.iter().map(move |q| -(value::compare(pred, *p as u64, *q as u64, ty) as i64)))
                    .collect();
                return AVal::Int(ISet::of(outcomes));
            }
        }
    }
    AVal::Int(ISet::of(vec![0, -1]))
}

/// What `cond = pred(lhs, rhs)` being `taken` says of `lhs` (signed
/// predicates on integers; anything else is kept as it is).
pub fn refine(pred: Pred, lhs: &ISet, rhs: &ISet, taken: bool) -> ISet {
    let Some((rlow, rhigh)) = rhs.bounds() else { return ISet::empty() };
    let pred = if taken { Some(pred) } else { negate(pred) };
    match pred {
        Some(Pred::Slt) if rhigh > i64::MIN => lhs.clamp(i64::MIN, rhigh - 1),
        Some(Pred::Sle) => lhs.clamp(i64::MIN, rhigh),
        Some(Pred::Sgt) if rlow < i64::MAX => lhs.clamp(rlow + 1, i64::MAX),
        Some(Pred::Sge) => lhs.clamp(rlow, i64::MAX),
        Some(Pred::Eq) => match rhs.values() {
            Some(values) => ISet::of(values.iter().copied().filter(|v| lhs.contains(*v)).collect()),
            None => lhs.clamp(rlow, rhigh),
        },
        Some(Pred::Ne) => match rhs.single() {
            Some(value) => lhs.without(value),
            None => lhs.clone(),
        },
        _ => lhs.clone(),
    }
}

fn negate(pred: Pred) -> Option<Pred> {
    Some(match pred {
        Pred::Slt => Pred::Sge,
        Pred::Sle => Pred::Sgt,
        Pred::Sgt => Pred::Sle,
        Pred::Sge => Pred::Slt,
        Pred::Eq => Pred::Ne,
        Pred::Ne => Pred::Eq,
        _ => return None,
    })
}

/// The view a view op makes of `source` (`value` reads a register).
pub fn make_view(source: &AVal, kind: &ViewKind, value: impl Fn(&Operand) -> ISet) -> AVal {
    let Some(source) = source.view() else { return AVal::Any };
    let view = match kind {
        ViewKind::Same => source.clone(),
        ViewKind::Subview { offsets, sizes, strides, dropped } => {
            if offsets.len() != source.sizes.len() || sizes.len() != offsets.len() || strides.len() != offsets.len() {
                return AVal::Any;
            }
            let mut view = AView { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            for d in 0..offsets.len() {
                // Offsets and sizes in bounds of the source: the
                // interpreter rejects the others.
                let size_max = source.sizes[d].bounds().map_or(i64::MAX, |(_, high)| high);
                let offset = value(&offsets[d]).clamp(0, size_max);
                view.offset = view.offset.add(&offset.mul(&source.strides[d]));
                if !dropped.contains(&d) {
                    view.sizes.push(value(&sizes[d]).clamp(0, size_max));
                    view.strides.push(value(&strides[d]).mul(&source.strides[d]));
                }
            }
            view
        }
        ViewKind::Collapse { groups } => {
            let mut view = AView { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            for group in groups {
                if group.iter().any(|d| *d >= source.sizes.len()) {
                    return AVal::Any;
                }
                let size = group.iter().fold(ISet::one(1), |acc, d| acc.mul(&source.sizes[*d]));
                view.sizes.push(size);
                view.strides.push(group.last().map(|d| source.strides[*d].clone()).unwrap_or(ISet::one(1)));
            }
            view
        }
        ViewKind::Expand { groups } => {
            if groups.len() != source.sizes.len() {
                return AVal::Any;
            }
            let mut view = AView { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            for (d, sizes) in groups.iter().enumerate() {
                let mut stride = source.strides[d].clone();
                let mut strides = vec![ISet::one(1); sizes.len()];
                for (i, size) in sizes.iter().enumerate().rev() {
                    strides[i] = stride.clone();
                    stride = stride.mul(&ISet::one(*size));
                }
                view.sizes.extend(sizes.iter().map(|s| ISet::one(*s)));
                view.strides.extend(strides);
            }
            view
        }
    };
    AVal::View(Arc::new(view))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_over_peers_refines_to_the_peers() {
        // iv in 0..=4 at the header, `iv < 4` on the way in.
        let iv = ISet::range(0, 4);
        assert_eq!(refine(Pred::Slt, &iv, &ISet::one(4), true), ISet::range(0, 3));
        assert_eq!(refine(Pred::Slt, &iv, &ISet::one(4), false), ISet::one(4));
        // `iv != me` leaves the other ranks.
        assert_eq!(refine(Pred::Ne, &ISet::range(0, 3), &ISet::one(1), true).values(), Some(&[0, 2, 3][..]));
    }

    #[test]
    fn views_of_one_cell_are_one_element() {
        let whole = AVal::View(Arc::new(AView::of(&View::whole(3, Scalar::Int(32), &[4, 4]))));
        let cell = |row: ISet, col: i64| {
            make_view(
                &whole,
                &ViewKind::Subview {
                    offsets: vec![Operand::Reg(0), Operand::Static(col)],
                    sizes: vec![Operand::Static(1), Operand::Static(1)],
                    strides: vec![Operand::Static(1), Operand::Static(1)],
                    dropped: Vec::new(),
                },
                |o| match o {
                    Operand::Static(v) => ISet::one(*v),
                    Operand::Reg(_) => row.clone(),
                },
            )
        };
        assert_eq!(cell(ISet::one(2), 1).view().unwrap().elements(), ISet::one(9));
        // Any row of column 1: the column's cells, not the whole buffer.
        let column = cell(ISet::range(0, 3), 1).view().unwrap().elements();
        assert!(column.contains(1) && column.contains(13) && !column.contains(2));
    }

    #[test]
    fn wrapping_ranges_are_any_value() {
        let big = AVal::Int(ISet::range(0, i32::MAX as i64));
        let sum = binary(BinOp::Add, &big, &AVal::Int(ISet::one(1)), Scalar::Int(32), Wrap::default());
        assert_eq!(sum, AVal::Int(ISet::Any));
        let index = binary(BinOp::Add, &big, &AVal::Int(ISet::one(1)), Scalar::Int(64), Wrap::default());
        assert_eq!(index, AVal::Int(ISet::range(1, i32::MAX as i64 + 1)));
    }
}
