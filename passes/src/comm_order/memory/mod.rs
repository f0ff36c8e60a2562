//! Where a memory access lands, and whether two accesses of one block may
//! touch the same element (docs/passes/verify-comm-order.md, "The overlap
//! analysis"). The checker's rule for writes in flight and the sink's
//! soundness conditions both ask it.
//!
//! An access is described by the rank whose memory it touches, the buffer
//! it is in (its *base*: a function argument, an allocation, or a memref
//! value the analysis does not look through), and a hull of the elements
//! it touches in that buffer, `[lo, lo + span]` in the buffer's row-major
//! element order. `lo` and the rank are affine expressions over SSA values
//! (`arith` constants, additions, subtractions, multiplications by a
//! constant and integer casts are looked through); views (`memref.subview`,
//! `memref.cast`, `memref.collapse_shape`, `memref.expand_shape`) add their
//! offsets, and the strides and sizes are read from the view's type.
//!
//! MLIR's C API reaches none of the C++ analyses that answer this
//! (`ValueBoundsOpInterface`, alias analysis), so the reasoning is written
//! here, and is deliberately small. Two accesses *provably differ* when:
//!
//! 1. their ranks differ by a non-zero constant (`peer = rank + 1` against
//!    this rank), or
//! 2. their buffers differ: two allocations, an allocation and an argument,
//!    or two arguments the caller never passes the same buffer for (the
//!    [`Aliases`] of the function; without them every two memref arguments
//!    may be one buffer), or
//! 3. their hulls are disjoint: `lo_b - lo_a` is a constant outside
//!    `[-span_b, span_a]`, or `c * step * n + k` where the only symbol that
//!    differs between the two accesses is the induction variable of one
//!    loop (coefficient `c`, constant step `step`) whose back edge lies
//!    between them (`n >= 1` iterations apart for `scf.for`, `n != 0` for a
//!    one-dimensional `scf.parallel`), and no such `n` brings the hulls
//!    together.
//!
//! Anything else may overlap: a value the analysis does not look through
//! is equal to itself only when no back edge of a construct around its
//! definition lies between the two accesses ([`Origin`]); otherwise it is
//! another value, unrelated. Integer arithmetic is read as exact (no
//! wrap-around): an index that wraps is out of bounds anyway.

use crate::ir;
use cclir_dialect::ffi::keys::{OpKey, ValueKey};
use melior::ir::{
    attribute::DenseI64ArrayAttribute,
    block::BlockLike,
    operation::OperationLike,
    r#type::{MemRefType, ShapedTypeLike},
    BlockRef, OperationRef, RegionLike, TypeLike, Value, ValueLike,
};
use smallvec::SmallVec;

/// How many defining ops an expression or view is followed through.
const MAX_DEPTH: u32 = 32;

/// A leaf of an index expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    /// `ccl.rank`: the same everywhere in a launch of a block.
    Rank,
    /// `ccl.block_id`: the same everywhere in a launch of a block.
    Block,
    /// Any other value.
    Value(ValueKey),
}

/// `Σ coefficient · symbol + constant`, terms sorted by symbol, no zero
/// coefficient.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affine {
    pub terms: SmallVec<[(Sym, i128); 2]>,
    pub constant: i128,
}

impl Affine {
    pub fn constant(constant: i128) -> Self {
        Affine { terms: SmallVec::new(), constant }
    }

    pub fn sym(sym: Sym) -> Self {
        let mut terms = SmallVec::new();
        terms.push((sym, 1));
        Affine { terms, constant: 0 }
    }

    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self + k · other`, or `None` on overflow.
    pub fn add_scaled(&self, other: &Affine, k: i128) -> Option<Affine> {
        let mut terms: SmallVec<[(Sym, i128); 2]> = self.terms.clone();
        for &(sym, c) in &other.terms {
            let c = c.checked_mul(k)?;
            match terms.binary_search_by_key(&sym, |(s, _)| *s) {
                Ok(at) => terms[at].1 = terms[at].1.checked_add(c)?,
                Err(at) => terms.insert(at, (sym, c)),
            }
        }
        terms.retain(|(_, c)| *c != 0);
        Some(Affine { terms, constant: self.constant.checked_add(other.constant.checked_mul(k)?)? })
    }

    pub fn scaled(&self, k: i128) -> Option<Affine> {
        Affine::default().add_scaled(self, k)
    }
}

/// What stands between two instances of a value: the ops around its
/// definition whose regions may run again (loops, `scf.while`, unknown ops
/// with regions, and regions of several blocks for values outside their
/// entry block), innermost first, and whether it is a loop's induction
/// variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub enclosing: SmallVec<[OpKey; 4]>,
    pub iv: Option<Iv>,
}

/// The induction variable of a loop with a constant step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iv {
    pub of: OpKey,
    pub step: i128,
    /// `scf.for`: a later iteration has a larger value; `scf.parallel`:
    /// another iteration has another value, larger or smaller.
    pub ordered: bool,
}

/// The buffer an access is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// Argument `index` of the function (its entry block).
    Arg(u32),
    /// The memory a `memref.alloc` / `memref.alloca` made.
    Alloc(OpKey),
    /// The lines earlier launches left dirty in this block slot's cache.
    Leftover,
    /// A memref value the analysis does not look through (a block argument
    /// of a nested region, an `arith.select`, a call's result): any buffer.
    Opaque,
}

/// The elements one access touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The rank whose memory it touches.
    pub rank: Affine,
    pub base: Base,
    /// The first element of the hull, in the buffer's row-major order
    /// (`None`: unknown).
    pub lo: Option<Affine>,
    /// Last minus first element of the hull (`None`: unknown).
    pub span: Option<i128>,
    /// Where each value symbol of `rank` and `lo` is defined.
    pub origins: SmallVec<[(ValueKey, Origin); 4]>,
}

impl Access {
    /// An access of anything, anywhere (an opaque call).
    pub fn anything() -> Self {
        Access { rank: Affine::default(), base: Base::Opaque, lo: None, span: None, origins: SmallVec::new() }
            .with_unknown_rank()
    }

    /// Any element of this rank's memory.
    pub fn anywhere_here() -> Self {
        Access { rank: Affine::sym(Sym::Rank), base: Base::Opaque, lo: None, span: None, origins: SmallVec::new() }
    }

    /// The lines earlier launches left dirty in this block slot's cache.
    pub fn leftover() -> Self {
        Access { rank: Affine::sym(Sym::Rank), base: Base::Leftover, lo: None, span: None, origins: SmallVec::new() }
    }

    fn with_unknown_rank(mut self) -> Self {
        // A rank no comparison can prove different: an opaque symbol
        // whose origin makes every instance another value.
        self.rank = Affine::sym(Sym::Value(UNKNOWN));
        self
    }

    fn origin(&self, key: ValueKey) -> Option<&Origin> {
        self.origins.iter().find(|(k, _)| *k == key).map(|(_, o)| o)
    }
}

/// The symbol of a value nothing is known about (every instance is another
/// value): a key no live value has (tests number their keys from 1).
const UNKNOWN: ValueKey = ValueKey::synthetic(0);

/// Which function arguments may be the same buffer, and which buffers
/// earlier launches may have left dirty lines of (the program's answer:
/// `comm_order::buffers`; without it, anything may alias anything).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aliases {
    /// Per argument of the function, the program's buffers it may be
    /// (sorted; `None`: any buffer, or not a memref).
    pub roots: Vec<Option<SmallVec<[u32; 2]>>>,
    /// The buffers lines of which may be left dirty at a kernel's return
    /// (sorted; `None`: any).
    pub leftovers: Option<Vec<u32>>,
    /// Whether `roots` and `leftovers` were computed (else every answer is
    /// "may").
    pub known: bool,
}

impl Aliases {
    /// The answer without the program: every two arguments may be one
    /// buffer, and any may hold lines earlier launches left dirty.
    pub fn unknown() -> Self {
        Aliases::default()
    }

    fn roots(&self, arg: u32) -> Option<&SmallVec<[u32; 2]>> {
        if !self.known {
            return None;
        }
        self.roots.get(arg as usize).and_then(Option::as_ref)
    }

    /// Whether arguments `a` and `b` may be one buffer.
    pub fn args_alias(&self, a: u32, b: u32) -> bool {
        if a == b {
            return true;
        }
        match (self.roots(a), self.roots(b)) {
            (Some(x), Some(y)) => x.iter().any(|r| y.binary_search(r).is_ok()),
            _ => true,
        }
    }

    /// Whether argument `a` may be a buffer earlier launches left dirty.
    pub fn arg_may_be_leftover(&self, a: u32) -> bool {
        let Some(left) = self.leftovers.as_ref().filter(|_| self.known) else { return true };
        match self.roots(a) {
            Some(roots) => roots.iter().any(|r| left.binary_search(r).is_ok()),
            None => !left.is_empty(),
        }
    }

    /// Whether any buffer may hold lines earlier launches left dirty.
    pub fn any_leftovers(&self) -> bool {
        !self.known || self.leftovers.as_ref().is_none_or(|left| !left.is_empty())
    }
}

/// Whether the buffers of two accesses may be one.
fn bases_alias(a: Base, b: Base, aliases: &Aliases) -> bool {
    match (a, b) {
        (Base::Opaque, _) | (_, Base::Opaque) => true,
        (Base::Arg(x), Base::Arg(y)) => aliases.args_alias(x, y),
        (Base::Alloc(x), Base::Alloc(y)) => x == y,
        (Base::Alloc(_), Base::Arg(_)) | (Base::Arg(_), Base::Alloc(_)) => false,
        (Base::Leftover, Base::Leftover) => true,
        (Base::Leftover, Base::Arg(x)) | (Base::Arg(x), Base::Leftover) => aliases.arg_may_be_leftover(x),
        (Base::Leftover, Base::Alloc(_)) | (Base::Alloc(_), Base::Leftover) => false,
    }
}

/// The difference of two instances of an expression: `constant + k · n`
/// over the iterations `n` between them that `shift` allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Difference {
    constant: i128,
    /// `(k, ordered)`: `n >= 1` when ordered, else `n != 0`.
    shift: Option<(i128, bool)>,
}

/// `b - a` where `a` is an expression of access `ea`, made `ca` back edges
/// ago, and `b` one of access `eb`, made `cb` back edges ago (sorted op
/// keys of the constructs whose back edges lie between the access and
/// now); `None` when it is not of the form [`Difference`].
fn difference(a: &Affine, ea: &Access, ca: &[OpKey], b: &Affine, eb: &Access, cb: &[OpKey]) -> Option<Difference> {
    let mut out = Difference { constant: b.constant.checked_sub(a.constant)?, shift: None };
    let (mut i, mut j) = (0, 0);
    while i < a.terms.len() || j < b.terms.len() {
        let (sym, ka, kb) = match (a.terms.get(i), b.terms.get(j)) {
            (Some(&(sa, ka)), Some(&(sb, kb))) if sa == sb => {
                i += 1;
                j += 1;
                (sa, ka, kb)
            }
            (Some(&(sa, ka)), Some(&(sb, _))) if sa < sb => {
                i += 1;
                (sa, ka, 0)
            }
            (Some(&(sa, ka)), None) => {
                i += 1;
                (sa, ka, 0)
            }
            (_, Some(&(sb, kb))) => {
                j += 1;
                (sb, 0, kb)
            }
            (None, None) => unreachable!("the loop condition"),
        };
        // A symbol both sides do not share with one coefficient leaves the
        // difference depending on its value.
        if ka != kb {
            return None;
        }
        let Sym::Value(key) = sym else { continue };
        if key == UNKNOWN {
            return None;
        }
        let origin = ea.origin(key).or_else(|| eb.origin(key))?;
        let between = |crossed: &[OpKey]| -> SmallVec<[OpKey; 2]> {
            origin.enclosing.iter().copied().filter(|op| crossed.binary_search(op).is_ok()).collect()
        };
        let (since_a, since_b) = (between(ca), between(cb));
        // The back edges between the two instances: those after the older.
        let sign = match (since_a.as_slice(), since_b.as_slice()) {
            // The same instance on both sides: the terms cancel.
            ([], []) => continue,
            // `a` is that many iterations of one loop older than `b`.
            ([only], []) => (*only, 1),
            ([], [only]) => (*only, -1),
            _ => return None,
        };
        let iv = origin.iv.filter(|iv| iv.of == sign.0)?;
        if out.shift.is_some() {
            return None;
        }
        out.shift = Some((ka.checked_mul(iv.step)?.checked_mul(sign.1)?, iv.ordered));
    }
    Some(out)
}

/// Whether `d + k · n` stays outside `[-below, above]` for every `n` the
/// difference allows.
fn always_outside(d: Difference, below: i128, above: i128) -> bool {
    let outside = |v: i128| v > above || v < -below;
    match d.shift {
        None => outside(d.constant),
        Some((k, ordered)) => {
            // Monotone in n: the value nearest the interval is at n = 1
            // (moving away) or there is none (moving through).
            let forward = |k: i128| match k.signum() {
                0 => outside(d.constant),
                1 => d.constant.checked_add(k).is_some_and(|v| v > above),
                _ => d.constant.checked_add(k).is_some_and(|v| v < -below),
            };
            forward(k) && (ordered || forward(-k))
        }
    }
}

/// Whether access `a`, made `crossed` back edges before (sorted op keys of
/// the loops, `scf.while`s and other repeated constructs whose back edges
/// lie between), and access `b`, made now, may touch one element.
pub fn may_overlap(a: &Access, crossed: &[OpKey], b: &Access, aliases: &Aliases) -> bool {
    may_overlap_instances(a, crossed, b, &[], aliases)
}

/// Whether access `a`, made `ca` back edges ago, and access `b`, made `cb`
/// back edges ago, may touch one element.
pub fn may_overlap_instances(a: &Access, ca: &[OpKey], b: &Access, cb: &[OpKey], aliases: &Aliases) -> bool {
    if let Some(d) = difference(&a.rank, a, ca, &b.rank, b, cb) {
        if always_outside(d, 0, 0) {
            return false;
        }
    }
    if !bases_alias(a.base, b.base, aliases) {
        return false;
    }
    if a.base != b.base || matches!(a.base, Base::Opaque | Base::Leftover) {
        return true;
    }
    let (Some(lo_a), Some(lo_b), Some(span_a), Some(span_b)) = (&a.lo, &b.lo, a.span, b.span) else {
        return true;
    };
    match difference(lo_a, a, ca, lo_b, b, cb) {
        Some(d) => !always_outside(d, span_b, span_a),
        None => true,
    }
}

/// Whether `cover` (a region invalidate, made now) touches every element of
/// `inner` (a store made `crossed` back edges before) on the same rank: the
/// same buffer, and a hull that contains the other's.
pub fn covers(cover: &Access, inner: &Access, crossed: &[OpKey], size_of_base: Option<i128>) -> bool {
    let same_rank = difference(&inner.rank, inner, crossed, &cover.rank, cover, &[])
        .is_some_and(|d| d.shift.is_none() && d.constant == 0);
    same_rank && covers_elements(cover, inner, crossed, size_of_base)
}

/// Whether region invalidate `cover` drops every line of `inner`'s
/// elements from this block's cache, whichever rank's copy they are of:
/// SEMANTICS.md's `cacheinvalid(W)` drops the lines of W's elements (the
/// reference keys a line by buffer and element, and drops every rank's).
pub fn covers_elements(cover: &Access, inner: &Access, crossed: &[OpKey], size_of_base: Option<i128>) -> bool {
    if cover.base != inner.base || matches!(cover.base, Base::Opaque | Base::Leftover) {
        return false;
    }
    let Some(lo) = cover.lo.as_ref().and_then(Affine::as_constant) else {
        return contains(cover, inner, crossed);
    };
    // The whole buffer covers anything in it.
    if lo == 0 && cover.span.zip(size_of_base).is_some_and(|(span, size)| span + 1 >= size) {
        return true;
    }
    contains(cover, inner, crossed)
}

fn contains(cover: &Access, inner: &Access, crossed: &[OpKey]) -> bool {
    let (Some(lo_c), Some(lo_i), Some(span_c), Some(span_i)) = (&cover.lo, &inner.lo, cover.span, inner.span) else {
        return false;
    };
    // inner.lo - cover.lo, a constant in [0, span_c - span_i].
    match difference(lo_c, cover, &[], lo_i, inner, crossed) {
        Some(Difference { constant, shift: None }) => constant >= 0 && constant + span_i <= span_c,
        _ => false,
    }
}

mod reader;
pub use reader::*;

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: usize) -> ValueKey {
        ValueKey::synthetic(n as u32)
    }

    fn op(n: u32) -> OpKey {
        OpKey::synthetic(n)
    }

    fn access(base: Base, lo: Affine, span: i128, origins: &[(ValueKey, Origin)]) -> Access {
        Access {
            rank: Affine::sym(Sym::Rank),
            base,
            lo: Some(lo),
            span: Some(span),
            origins: origins.iter().cloned().collect(),
        }
    }

    fn iv_origin(of: u32, step: i128, ordered: bool) -> Origin {
        Origin { enclosing: [op(of)].into_iter().collect(), iv: Some(Iv { of: op(of), step, ordered }) }
    }

    #[test]
    fn constant_offsets_of_one_buffer() {
        let known = Aliases::unknown();
        let a = access(Base::Arg(0), Affine::constant(0), 0, &[]);
        let b = access(Base::Arg(0), Affine::constant(1), 0, &[]);
        assert!(!may_overlap(&a, &[], &b, &known));
        let whole = access(Base::Arg(0), Affine::constant(0), 1, &[]);
        assert!(may_overlap(&whole, &[], &b, &known));
        // Two arguments may be one buffer unless the program says not.
        let c = access(Base::Arg(1), Affine::constant(5), 0, &[]);
        assert!(may_overlap(&a, &[], &c, &known));
        let program = Aliases {
            roots: vec![Some([0].into_iter().collect()), Some([1].into_iter().collect())],
            leftovers: Some(vec![]),
            known: true,
        };
        assert!(!may_overlap(&a, &[], &c, &program));
    }

    #[test]
    fn rows_of_a_loop_differ_between_iterations() {
        let known = Aliases::unknown();
        let row = key(1);
        let origin = iv_origin(10, 1, true);
        // row * 64 .. row * 64 + 63
        let lo = Affine::sym(Sym::Value(row)).scaled(64).unwrap();
        let a = access(Base::Arg(0), lo.clone(), 63, &[(row, origin.clone())]);
        // The same iteration: the same row.
        assert!(may_overlap(&a, &[], &a, &known));
        // An earlier iteration: another row.
        assert!(!may_overlap(&a, &[op(10)], &a, &known));
        // Rows of 65 elements overlap the next row.
        let wide = access(Base::Arg(0), lo, 64, &[(row, origin.clone())]);
        assert!(may_overlap(&wide, &[op(10)], &wide, &known));
        // Parallel iterations come in either order.
        let unordered = iv_origin(10, 2, false);
        let e = access(Base::Arg(0), Affine::sym(Sym::Value(row)), 1, &[(row, unordered.clone())]);
        assert!(!may_overlap(&e, &[op(10)], &e, &known));
        let f = access(Base::Arg(0), Affine::sym(Sym::Value(row)), 2, &[(row, unordered)]);
        assert!(may_overlap(&f, &[op(10)], &f, &known));
        // Crossing an outer loop's back edge makes the row another value.
        let nested = Origin { enclosing: [op(10), op(20)].into_iter().collect(), iv: origin.iv };
        let g = access(Base::Arg(0), Affine::sym(Sym::Value(row)), 0, &[(row, nested)]);
        assert!(may_overlap(&g, &[op(10), op(20)], &g, &known));
        assert!(!may_overlap(&g, &[op(10)], &g, &known));
    }

    #[test]
    fn ranks_and_blocks() {
        let known = Aliases::unknown();
        let mut a = access(Base::Arg(0), Affine::constant(0), 0, &[]);
        let mut b = a.clone();
        b.rank = Affine::sym(Sym::Rank).add_scaled(&Affine::constant(1), 1).unwrap();
        assert!(!may_overlap(&a, &[], &b, &known));
        // A peer the analysis cannot see through may be this rank.
        b.rank = Affine::sym(Sym::Value(key(3)));
        b.origins.push((key(3), Origin::default()));
        assert!(may_overlap(&a, &[], &b, &known));
        // Offsets in the block id are equal for one block.
        a.lo = Some(Affine::sym(Sym::Block));
        let c = a.clone();
        assert!(may_overlap(&a, &[], &c, &known));
    }

    #[test]
    fn covering() {
        let a = access(Base::Arg(0), Affine::constant(0), 63, &[]);
        let b = access(Base::Arg(0), Affine::constant(8), 7, &[]);
        assert!(covers(&a, &b, &[], Some(64)));
        assert!(!covers(&b, &a, &[], Some(64)));
        let c = access(Base::Arg(1), Affine::constant(8), 7, &[]);
        assert!(!covers(&a, &c, &[], Some(64)));
    }
}
