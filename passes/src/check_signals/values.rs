//! What the instantiation knows of a value: an integer (as MLIR computes it,
//! wrapped to its type's width), a view of a buffer, or nothing. Data read
//! from memory is never known: the analysis follows signals, not data.

use super::program::RootId;

/// A strided view of a buffer: element `(i0, i1, ...)` is element
/// `offset + i0 * strides[0] + i1 * strides[1] + ...` of the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub offset: i64,
    pub sizes: Vec<i64>,
    pub strides: Vec<i64>,
}

/// The most elements one access may list; a larger one is not followed.
pub const MAX_ELEMENTS: i64 = 1 << 16;

impl Layout {
    /// The row-major layout of a buffer of `shape`.
    pub fn identity(shape: &[i64]) -> Layout {
        let mut strides = vec![1; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1].max(1);
        }
        Layout { offset: 0, sizes: shape.to_vec(), strides }
    }

    /// Elements in the view.
    pub fn elements(&self) -> i64 {
        self.sizes.iter().product()
    }

    /// The buffer index of the view's element at row-major position `n`.
    pub fn nth(&self, mut n: i64) -> i64 {
        let mut index = self.offset;
        for d in (0..self.sizes.len()).rev() {
            let size = self.sizes[d].max(1);
            index += (n % size) * self.strides[d];
            n /= size;
        }
        index
    }

    /// The row-major position of `indices` in the view, when in bounds.
    pub fn position(&self, indices: &[i64]) -> Option<i64> {
        if indices.len() != self.sizes.len() {
            return None;
        }
        let mut position = 0;
        for (index, size) in indices.iter().zip(&self.sizes) {
            if *index < 0 || index >= size {
                return None;
            }
            position = position * size + index;
        }
        Some(position)
    }

    /// The buffer indices of `count` elements from row-major position
    /// `start`, when they are in the view and few enough to list.
    pub fn run(&self, start: i64, count: i64) -> Option<Vec<i64>> {
        if start < 0 || !(0..=MAX_ELEMENTS).contains(&count) || start + count > self.elements() {
            return None;
        }
        Some((start..start + count).map(|n| self.nth(n)).collect())
    }
}

/// A view: its buffer, and its layout when every offset, size and stride is
/// known; else, when its offsets and strides are known and its sizes
/// bounded, `within`, the largest view it may be (the elements it may touch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub root: RootId,
    pub layout: Option<Layout>,
    pub within: Option<Layout>,
}

impl View {
    /// A view whose layout is known.
    pub fn exact(root: RootId, layout: Option<Layout>) -> View {
        View { root, layout, within: None }
    }

    /// The layout, or the largest the view may be.
    pub fn bound(&self) -> Option<&Layout> {
        self.layout.as_ref().or(self.within.as_ref())
    }
}

/// An abstract value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Int(i64),
    /// An integer between the two bounds (inclusive, `lo < hi`): what a
    /// clamp of an unknown value gives.
    Range(i64, i64),
    View(View),
    Unknown,
}

impl Val {
    pub fn int(&self) -> Option<i64> {
        match self {
            Val::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The bounds of an integer (`i64::MIN`/`MAX` where not known), `None`
    /// for what is not an integer known at all.
    pub fn bounds(&self) -> Option<(i64, i64)> {
        match self {
            Val::Int(v) => Some((*v, *v)),
            Val::Range(lo, hi) => Some((*lo, *hi)),
            _ => None,
        }
    }

    /// An integer between `lo` and `hi`.
    pub fn between(lo: i64, hi: i64) -> Val {
        match lo.cmp(&hi) {
            std::cmp::Ordering::Equal => Val::Int(lo),
            std::cmp::Ordering::Less if (lo, hi) != (i64::MIN, i64::MAX) => Val::Range(lo, hi),
            _ => Val::Unknown,
        }
    }

    /// The value both of two control paths may produce: itself if they
    /// agree, else unknown.
    pub fn merge(self, other: &Val) -> Val {
        if &self == other {
            self
        } else {
            Val::Unknown
        }
    }
}

/// `v` wrapped to `width` bits, read as signed (index is 64 bits).
pub fn wrap(v: i64, width: u32) -> i64 {
    if width >= 64 || width == 0 {
        v
    } else {
        let shift = 64 - width;
        (v << shift) >> shift
    }
}

/// `v` as an unsigned number of `width` bits.
fn unsigned(v: i64, width: u32) -> u64 {
    if width >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << width) - 1)
    }
}

/// An `arith` (or `index`) binary integer op on known operands of `width`
/// bits, as MLIR defines it; `None` for an op it does not know or a result
/// MLIR leaves undefined (a division by zero, a shift too far).
pub fn binary(name: &str, a: i64, b: i64, width: u32) -> Option<i64> {
    let (ua, ub) = (unsigned(a, width), unsigned(b, width));
    let result = match name {
        "arith.addi" | "index.add" => a.wrapping_add(b),
        "arith.subi" | "index.sub" => a.wrapping_sub(b),
        "arith.muli" | "index.mul" => a.wrapping_mul(b),
        "arith.divsi" | "index.divs" => a.checked_div(b)?,
        "arith.divui" | "index.divu" => ua.checked_div(ub)? as i64,
        "arith.remsi" | "index.rems" => a.checked_rem(b)?,
        "arith.remui" | "index.remu" => ua.checked_rem(ub)? as i64,
        "arith.ceildivsi" | "index.ceildivs" => {
            let q = a.checked_div(b)?;
            if a % b != 0 && ((a < 0) == (b < 0)) {
                q + 1
            } else {
                q
            }
        }
        "arith.floordivsi" | "index.floordivs" => {
            let q = a.checked_div(b)?;
            if a % b != 0 && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        "arith.andi" | "index.and" => a & b,
        "arith.ori" | "index.or" => a | b,
        "arith.xori" | "index.xor" => a ^ b,
        "arith.shli" | "index.shl" if ub < width as u64 => a.wrapping_shl(ub as u32),
        "arith.shrsi" | "index.shrs" if ub < width as u64 => a >> ub,
        "arith.shrui" | "index.shru" if ub < width as u64 => (ua >> ub) as i64,
        "arith.maxsi" | "index.maxs" => a.max(b),
        "arith.minsi" | "index.mins" => a.min(b),
        "arith.maxui" | "index.maxu" => ua.max(ub) as i64,
        "arith.minui" | "index.minu" => ua.min(ub) as i64,
        _ => return None,
    };
    Some(wrap(result, width))
}

/// `arith.cmpi` with its predicate number (MLIR's `CmpIPredicate`).
pub fn compare(predicate: i64, a: i64, b: i64, width: u32) -> Option<bool> {
    let (ua, ub) = (unsigned(a, width), unsigned(b, width));
    Some(match predicate {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        5 => a >= b,
        6 => ua < ub,
        7 => ua <= ub,
        8 => ua > ub,
        9 => ua >= ub,
        _ => return None,
    })
}

/// An integer cast from `from` to `to` bits (`signed`: sign-extends).
pub fn cast(v: i64, from: u32, to: u32, signed: bool) -> i64 {
    let v = if signed { wrap(v, from) } else { unsigned(v, from) as i64 };
    wrap(v, to)
}

/// A subview of `layout`: offsets, sizes and strides per dimension, and the
/// dimensions a rank-reducing subview drops.
pub fn subview(layout: &Layout, offsets: &[i64], sizes: &[i64], steps: &[i64], dropped: &[usize]) -> Option<Layout> {
    let rank = layout.sizes.len();
    if offsets.len() != rank || sizes.len() != rank || steps.len() != rank {
        return None;
    }
    let mut offset = layout.offset;
    let (mut new_sizes, mut new_strides) = (Vec::new(), Vec::new());
    for d in 0..rank {
        if offsets[d] < 0 || sizes[d] < 0 || (sizes[d] > 0 && offsets[d] + (sizes[d] - 1) * steps[d] >= layout.sizes[d])
        {
            return None;
        }
        offset += offsets[d] * layout.strides[d];
        if !dropped.contains(&d) {
            new_sizes.push(sizes[d]);
            new_strides.push(layout.strides[d] * steps[d]);
        }
    }
    Some(Layout { offset, sizes: new_sizes, strides: new_strides })
}

/// `memref.collapse_shape`: each group of dimensions becomes one, when the
/// group is laid out contiguously.
pub fn collapse(layout: &Layout, groups: &[Vec<usize>]) -> Option<Layout> {
    let (mut sizes, mut strides) = (Vec::new(), Vec::new());
    for group in groups {
        let last = *group.last()?;
        for pair in group.windows(2) {
            if layout.strides[pair[0]] != layout.strides[pair[1]] * layout.sizes[pair[1]] {
                return None;
            }
        }
        sizes.push(group.iter().map(|&d| layout.sizes[d]).product());
        strides.push(layout.strides[last]);
    }
    Some(Layout { offset: layout.offset, sizes, strides })
}

/// `memref.expand_shape`: each dimension becomes a group of the given
/// static sizes.
pub fn expand(layout: &Layout, groups: &[Vec<i64>]) -> Option<Layout> {
    if groups.len() != layout.sizes.len() {
        return None;
    }
    let (mut sizes, mut strides) = (Vec::new(), Vec::new());
    for (d, group) in groups.iter().enumerate() {
        if group.iter().product::<i64>() != layout.sizes[d] {
            return None;
        }
        let mut inner = layout.strides[d];
        let mut group_strides = vec![0; group.len()];
        for k in (0..group.len()).rev() {
            group_strides[k] = inner;
            inner *= group[k];
        }
        sizes.extend_from_slice(group);
        strides.extend(group_strides);
    }
    Some(Layout { offset: layout.offset, sizes, strides })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_as_mlir_computes_them() {
        assert_eq!(binary("arith.addi", 127, 1, 8), Some(-128));
        assert_eq!(binary("arith.remui", -1, 3, 8), Some(0)); // 255 % 3
        assert_eq!(binary("arith.divsi", 1, 0, 32), None);
        assert_eq!(binary("arith.ceildivsi", 7, 2, 64), Some(4));
        assert_eq!(binary("arith.floordivsi", -7, 2, 64), Some(-4));
        assert_eq!(compare(6, -1, 1, 32), Some(false)); // ult: 2^32-1 < 1
        assert_eq!(cast(-1, 32, 64, false), 0xffff_ffff);
        assert_eq!(cast(-1, 32, 64, true), -1);
    }

    #[test]
    fn views_address_the_elements_of_their_buffer() {
        let whole = Layout::identity(&[2, 3]);
        assert_eq!(whole.strides, vec![3, 1]);
        let row = subview(&whole, &[1, 0], &[1, 3], &[1, 1], &[0]).expect("in bounds");
        assert_eq!((row.offset, row.sizes.clone(), row.strides.clone()), (3, vec![3], vec![1]));
        assert_eq!(row.run(1, 2), Some(vec![4, 5]));
        let column = subview(&whole, &[0, 2], &[2, 1], &[1, 1], &[]).expect("in bounds");
        assert_eq!(column.run(0, 2), Some(vec![2, 5]));
        assert_eq!(subview(&whole, &[2, 0], &[1, 1], &[1, 1], &[]), None);
        let flat = collapse(&whole, &[vec![0, 1]]).expect("contiguous");
        assert_eq!(flat.sizes, vec![6]);
        assert_eq!(collapse(&column, &[vec![0, 1]]), None);
        let back = expand(&flat, &[vec![2, 3]]).expect("sizes match");
        assert_eq!(back, whole);
        assert_eq!(whole.position(&[1, 2]), Some(5));
        assert_eq!(whole.position(&[2, 0]), None);
    }
}
