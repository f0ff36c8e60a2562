//! The trip guard of an `scf.for`: an `scf.if` right after the loop whose
//! condition is `arith.cmpi slt %lb, %ub` (`ult` when the loop compares
//! unsigned) on the loop's own bound values. The loop runs at least one
//! iteration exactly when that condition holds (`scf.for` requires a
//! positive step), so the guard's then-branch runs exactly on the paths
//! that went through the loop body, and its else-branch on the paths that
//! skipped it.
//!
//! `ccl-sink-comm-markers` builds guards to take a loop body's markers
//! out of the loop without running them when the loop runs zero times; the
//! program model (`model`) reads the pair as the one construct it is, so
//! that the checker does not follow the impossible path "the body ran, then
//! the guard's else-branch".

use crate::ir;
use cclir_dialect::names::{Interned, Name};
use melior::{
    dialect::{arith, scf},
    ir::{operation::OperationLike, Block, BlockLike, BlockRef, OperationRef, Region, RegionLike},
};

/// `arith.cmpi` predicates, as MLIR numbers them.
const SLT: i64 = arith::CmpiPredicate::Slt as i64;
const ULT: i64 = arith::CmpiPredicate::Ult as i64;

/// Whether `scf_for` compares its bounds unsigned (`scf.for unsigned`).
fn is_unsigned(scf_for: OperationRef<'_, '_>) -> bool {
    scf_for.has_attribute("unsignedCmp")
}

/// Whether `guard` (any op) is the trip guard of `scf_for` (an `scf.for`):
/// an `scf.if` on `arith.cmpi slt|ult` of exactly the loop's lower and
/// upper bound values. Where the guard sits is the caller's question.
pub fn is_trip_guard(names: &Interned, guard: OperationRef<'_, '_>, scf_for: OperationRef<'_, '_>) -> bool {
    if Name::of(guard) != names.scf_if || Name::of(scf_for) != names.scf_for || scf_for.operand_count() < 2 {
        return false;
    }
    let Some(condition) = guard.operand(0).ok() else { return false };
    let Some(compare) = ir::defining_op(condition) else { return false };
    if Name::of(compare) != names.arith_cmpi || compare.operand_count() != 2 {
        return false;
    }
    let expected = if is_unsigned(scf_for) { ULT } else { SLT };
    ir::i64_attr(compare, "predicate") == Some(expected)
        && ir::ValueKey::of(ir::operand(compare, 0)) == ir::ValueKey::of(ir::operand(scf_for, 0))
        && ir::ValueKey::of(ir::operand(compare, 1)) == ir::ValueKey::of(ir::operand(scf_for, 1))
}

/// Puts the trip guard of `scf_for` right after it (the comparison, then
/// an `scf.if` with an empty else-branch), at the loop's location; returns
/// the guard's then-block, which holds only its `scf.yield`.
pub fn build<'c, 'a>(names: &Interned, scf_for: OperationRef<'c, 'a>) -> BlockRef<'c, 'a> {
    debug_assert!(Name::of(scf_for) == names.scf_for);
    let context = ir::context_of(scf_for);
    let location = scf_for.location();
    let predicate = if is_unsigned(scf_for) { arith::CmpiPredicate::Ult } else { arith::CmpiPredicate::Slt };
    let compare = arith::cmpi(context, predicate, ir::operand(scf_for, 0), ir::operand(scf_for, 1), location);
    let compare = ir::insert_after(scf_for, compare);
    let then = Region::new();
    let block = Block::new(&[]);
    block.append_operation(scf::r#yield(&[], location));
    then.append_block(block);
    let guard = ir::insert_after(compare, scf::r#if(ir::first_result(compare), &[], then, Region::new(), location));
    ir::first_block_of(guard, 0).expect("the guard has its then-block")
}

/// The trip count of `scf_for` when its bounds and step are constants
/// (`None` when any is not), as the loop counts: signed, or unsigned at the
/// bound type's width.
pub fn constant_trip_count(names: &Interned, scf_for: OperationRef<'_, '_>) -> Option<u128> {
    if scf_for.operand_count() < 3 {
        return None;
    }
    let bound = |index| ir::constant_int(names, ir::operand(scf_for, index));
    let (lower, upper, step) = (bound(0)?, bound(1)?, bound(2)?);
    let (lower, upper, step) = if is_unsigned(scf_for) {
        let width = ir::int_width(melior::ir::ValueLike::r#type(&ir::operand(scf_for, 0)))?;
        let unsigned = |v: i128| if width >= 128 { v as u128 } else { (v as u128) & ((1u128 << width) - 1) };
        (unsigned(lower) as i128, unsigned(upper) as i128, unsigned(step) as i128)
    } else {
        (lower, upper, step)
    };
    if step <= 0 {
        return None;
    }
    Some(if upper <= lower { 0 } else { ((upper - lower) as u128).div_ceil(step as u128) })
}
