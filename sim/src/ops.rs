//! The op vocabulary values are computed with: scalar types, and the
//! arithmetic ops, overflow flags, casts and comparison predicates of the
//! `arith` and `index` ops the simulator executes. A leaf module: the
//! program (`program`) is written in it and values (`value`) implement it.

/// The element type of a scalar, a vector lane or a memory cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// A signless integer of this many bits (`index` is 64).
    Int(u32),
    /// A float of this many bits (computed in f64, rounded to f32 for 32).
    Float(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDivS,
    FloorDivS,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    MaxS,
    MinS,
    MaxU,
    MinU,
    AddF,
    SubF,
    MulF,
    DivF,
    MaxF,
    MinF,
}

/// The overflow flags of `arith.addi`, `subi`, `muli` and `shli`: with
/// `nsw` (`nuw`) a signed (unsigned) overflow is poison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wrap {
    pub nsw: bool,
    pub nuw: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// Sign-extend or truncate an integer (index_cast, extsi, trunci).
    IntSigned,
    /// Zero-extend or truncate (index_castui, extui).
    IntUnsigned,
    SignedToFloat,
    UnsignedToFloat,
    FloatToSigned,
    FloatToUnsigned,
    /// Float to float (extf, truncf).
    Float,
    NegF,
}

/// `arith.cmpi`/`index.cmp` and `arith.cmpf` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pred {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
    /// Float predicates: (ordered comparison, accepts unordered).
    F {
        lt: bool,
        eq: bool,
        gt: bool,
        unordered: bool,
    },
}

/// What an `all_reduce` combines with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduce {
    Sum,
    Max,
    Min,
}
