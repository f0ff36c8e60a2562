//! Rule 7: each remaining cal op becomes the `arith` ops computing B. The
//! ops are not written here: [`formula::cal_all_to_all_v_blocks_in`] is run
//! with [`Emit`], an algebra whose four operations each insert one op, so
//! the lowered form is the formula step by step:
//!
//! | formula step                     | op                     |
//! |----------------------------------|------------------------|
//! | `less_than(l, p)`                | `arith.cmpi slt, l, p` |
//! | `quotient(l, p)`                 | `arith.divsi l, p`     |
//! | `product(whole_rounds, p)`       | `arith.muli q, p`      |
//! | `select(lt, l, largest_multiple)`| `arith.select`         |
//!
//! Signed ops, as the folder reads constants as signed numbers. When P and
//! L have different types, both are brought to the wider one (index counts
//! as 64 bits; `arith.index_cast` to or from index, else `arith.extsi`), the
//! formula runs there, and B is brought back to L's type: B <= L, so the
//! final narrowing (`arith.trunci` / `arith.index_cast`) is exact.
//!
//! Like the formula, the lowered form needs P > 0 at run time (it divides by
//! P); a constant P was checked by the folder, a dynamic one (`ccl.comm_size`)
//! is a rank count.

use super::{formula, CalSite};
use crate::{framework::Eraser, ir};
use melior::{
    dialect::arith::{self, CmpiPredicate},
    ir::{operation::OperationLike, r#type::TypeLike, Location, Operation, OperationRef, Type, Value, ValueLike},
};

/// The algebra whose operations insert `arith` ops before `anchor`.
struct Emit<'c, 'a> {
    anchor: OperationRef<'c, 'a>,
    location: Location<'c>,
}

impl<'c, 'a> Emit<'c, 'a> {
    fn insert(&self, op: Operation<'c>) -> Value<'c, 'a> {
        ir::first_result(ir::insert_before(self.anchor, op))
    }

    /// `value` as type `to` (signed: sign extension).
    fn cast(&self, value: Value<'c, 'a>, to: Type<'c>) -> Value<'c, 'a> {
        let from = value.r#type();
        if from == to {
            return value;
        }
        self.insert(if from.is_index() || to.is_index() {
            arith::index_cast(value, to, self.location)
        } else if ir::int_width(from) < ir::int_width(to) {
            arith::extsi(value, to, self.location)
        } else {
            arith::trunci(value, to, self.location)
        })
    }
}

impl<'c, 'a> formula::Algebra for Emit<'c, 'a> {
    type Int = Value<'c, 'a>;
    type Bool = Value<'c, 'a>;

    fn less_than(&mut self, a: Self::Int, b: Self::Int) -> Self::Bool {
        let context = crate::ir::context_of(self.anchor);
        self.insert(arith::cmpi(context, CmpiPredicate::Slt, a, b, self.location))
    }

    fn quotient(&mut self, a: Self::Int, b: Self::Int) -> Self::Int {
        self.insert(arith::divsi(a, b, self.location))
    }

    fn product(&mut self, a: Self::Int, b: Self::Int) -> Self::Int {
        self.insert(arith::muli(a, b, self.location))
    }

    fn select(&mut self, c: Self::Bool, t: Self::Int, f: Self::Int) -> Self::Int {
        self.insert(arith::select(c, t, f, self.location))
    }
}

/// The type the formula runs in: the wider of P's and L's (L's on a tie).
fn compute_type<'c>(p: Type<'c>, l: Type<'c>) -> Type<'c> {
    if ir::int_width(p) > ir::int_width(l) {
        p
    } else {
        l
    }
}

/// Lowers every site; returns how many.
pub fn lower<'c, 'a>(sites: &[CalSite<'c, 'a>], eraser: Eraser<'_>) -> u64 {
    for site in sites {
        let op = site.cal.operation();
        let (p, l) = (site.cal.p(), site.cal.l());
        let mut emit = Emit { anchor: op, location: op.location() };
        let ty = compute_type(p.r#type(), l.r#type());
        let (p_wide, l_wide) = (emit.cast(p, ty), emit.cast(l, ty));
        let b_wide = formula::cal_all_to_all_v_blocks_in(&mut emit, p_wide, l_wide);
        let b = emit.cast(b_wide, l.r#type());
        ir::replace_all_uses(site.cal.b(), b);
        eraser.erase(op);
    }
    sites.len() as u64
}
