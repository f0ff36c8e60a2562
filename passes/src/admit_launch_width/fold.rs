//! Rules 1, 2 and 4 at the cal op: a constant operand must be positive; a
//! cal op whose two operands are constants becomes one `arith.constant` of
//! its result type holding `formula::blocks(P, L)`, which `max-blocks`
//! bounds.

use super::{formula, ir, CalSite, Errors};
use crate::names::Interned;
use melior::ir::{
    operation::{OperationBuilder, OperationLike},
    OperationRef, ValueLike,
};
use rustc_hash::FxHashSet;

/// What folding did.
pub struct Folded {
    pub count: u64,
    /// The constants folding made (checked against `max-blocks` already).
    pub constants: FxHashSet<usize>,
}

/// Folds what it can; `sites` keeps the cal ops left over, in order. Sites
/// are visited in program order, so a cal op fed by a folded one folds too.
/// Each rewritten site's scope goes to `changed`.
pub fn fold<'c, 'a>(
    names: &Interned,
    sites: &mut Vec<CalSite<'c, 'a>>,
    max_blocks: Option<i128>,
    errors: &mut Errors,
    changed: &mut Vec<OperationRef<'c, 'a>>,
) -> Folded {
    let mut folded = Folded { count: 0, constants: FxHashSet::default() };
    let mut kept = Vec::new();
    for site in sites.drain(..) {
        let op = site.op;
        let (p, l, admissible) = check_constant_operands(names, op, errors);
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
        let result = ir::first_result(op);
        let ty = result.r#type();
        let constant = ir::insert_before(
            op,
            OperationBuilder::new("arith.constant", op.location())
                .add_attributes(&[(ir::identifier(ty, "value"), ir::int_attribute(ty, b))])
                .add_results(&[ty]),
        );
        ir::replace_all_uses(result, ir::first_result(constant));
        ir::erase(op);
        folded.constants.insert(crate::ir::op_key(constant));
        folded.count += 1;
        changed.push(site.scope);
    }
    *sites = kept;
    folded
}

/// Rule 2 alone: reports a constant P <= 0 or L <= 0 (each operand on its
/// own, dynamic or not the other one) and returns the constant operands and
/// whether they are admissible.
pub fn check_constant_operands(
    names: &Interned,
    op: OperationRef<'_, '_>,
    errors: &mut Errors,
) -> (Option<i128>, Option<i128>, bool) {
    let p = ir::constant_int(names, op.operand(0).expect("p operand"));
    let l = ir::constant_int(names, op.operand(1).expect("l operand"));
    let mut admissible = true;
    for error in [p.map(formula::check_rank_count), l.map(formula::check_core_num)].into_iter().flatten() {
        if let Err(error) = error {
            errors.at(&op, error.to_string());
            admissible = false;
        }
    }
    (p, l, admissible)
}
