//! Rules 1, 2 and 4 at the cal op: a constant operand must be positive; a
//! cal op whose two operands are constants becomes one `arith.constant` of
//! its result type holding `formula::blocks(P, L)`, which `max-blocks`
//! bounds.

use super::{formula, CalSite, Errors};
use crate::{framework::Eraser, ir};
use cclir_dialect::{names::Interned, ods::CalAllToAllVBlocks};
use melior::ir::{operation::OperationLike, ValueLike};
use rustc_hash::FxHashSet;

/// What folding did.
pub struct Folded {
    pub count: u64,
    /// The constants folding made (checked against `max-blocks` already).
    pub constants: FxHashSet<crate::ir::OpKey>,
}

/// Folds what it can; `sites` keeps the cal ops left over, in order. Sites
/// are visited in program order, so a cal op fed by a folded one folds too.
pub fn fold<'c, 'a>(
    names: &Interned,
    sites: &mut Vec<CalSite<'c, 'a>>,
    max_blocks: Option<i128>,
    errors: &mut Errors<'c>,
    eraser: Eraser<'_>,
) -> Folded {
    let mut folded = Folded { count: 0, constants: FxHashSet::default() };
    let mut kept = Vec::new();
    for site in sites.drain(..) {
        let op = site.cal.operation();
        let (p, l, admissible) = check_constant_operands(names, site.cal, errors);
        let (Some(p), Some(l), true) = (p, l, admissible) else {
            kept.push(site);
            continue;
        };
        let b = formula::blocks(p, l).expect("operands were checked");
        if let Some(n) = max_blocks {
            if b > n {
                errors.at(&op, format!("admitted launch width {b} exceeds max-blocks={n}"));
            }
        }
        let result = site.cal.b();
        let ty = result.r#type();
        let constant = ir::insert_before(
            op,
            melior::dialect::arith::constant(ir::context(ty), ir::int_attribute(ty, b), op.location()),
        );
        ir::replace_all_uses(result, ir::first_result(constant));
        eraser.erase(op);
        folded.constants.insert(crate::ir::OpKey::of(constant));
        folded.count += 1;
    }
    *sites = kept;
    folded
}

/// Rule 2 alone: reports a constant P <= 0 or L <= 0 (each operand on its
/// own, dynamic or not the other one) and returns the constant operands and
/// whether they are admissible.
pub fn check_constant_operands<'c>(
    names: &Interned,
    cal: CalAllToAllVBlocks<'c, '_>,
    errors: &mut Errors<'c>,
) -> (Option<i128>, Option<i128>, bool) {
    let op = cal.operation();
    let p = ir::constant_int(names, cal.p());
    let l = ir::constant_int(names, cal.l());
    let mut admissible = true;
    for error in [p.map(formula::check_rank_count), l.map(formula::check_core_num)].into_iter().flatten() {
        if let Err(error) = error {
            errors.at(&op, error.to_string());
            admissible = false;
        }
    }
    (p, l, admissible)
}
