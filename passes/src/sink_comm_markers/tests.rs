//! Unit tests of the pieces lit sees only through their effect: constant
//! trip counts (signed and unsigned), and which markers two branches share.

use super::{
    carry::{Carry, Kind},
    Counts,
};
use crate::{
    comm_order::trip_guard,
    ir,
    test_support::{context, eraser, function, interned, parse},
};
use cclir_dialect::names::Name;

#[test]
fn constant_trip_counts() {
    let context = context();
    let module = parse(
        &context,
        r#"
        func.func @f(%n: index) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c3 = arith.constant 3 : index
          %c4 = arith.constant 4 : index
          %c10 = arith.constant 10 : index
          %u2 = arith.constant 2 : i8
          %u250 = arith.constant 250 : i8
          %u1 = arith.constant 1 : i8
          scf.for %i = %c0 to %c4 step %c1 { }
          scf.for %i = %c1 to %c0 step %c1 { }
          scf.for %i = %c0 to %c10 step %c3 { }
          scf.for %i = %c0 to %n step %c1 { }
          scf.for %i = %u2 to %u250 step %u1 : i8 { }
          scf.for unsigned %i = %u2 to %u250 step %u1 : i8 { }
          scf.for unsigned %i = %u250 to %u2 step %u1 : i8 { }
          return
        }"#,
    );
    let names = interned(&module);
    let func = function(&module, "f");
    let entry = ir::entry_block(func).unwrap();
    let counts: Vec<Option<u128>> = ir::ops(entry)
        .filter(|op| Name::of(*op) == names.scf_for)
        .map(|op| trip_guard::constant_trip_count(&names, op))
        .collect();
    // 250 as a signed i8 is -6: the signed loop from 2 runs no iteration,
    // the unsigned one 248; the unsigned one from 250 down to 2 none.
    assert_eq!(counts, vec![Some(4), Some(0), Some(4), None, Some(0), Some(248), Some(0)]);
}

/// The marker ops of `name`'s two branches, as carries built in order.
fn branch_carries(source: &str) -> (Carry<'static, 'static>, Carry<'static, 'static>, Counts) {
    // The context must outlive the carries: leaked for the test's life.
    let context: &'static melior::Context = Box::leak(Box::new(context()));
    let module: &'static melior::ir::Module<'static> = Box::leak(Box::new(parse(context, source)));
    let names = interned(module);
    let func = function(module, "f");
    let entry = ir::entry_block(func).unwrap();
    let branch = ir::ops(entry).find(|op| Name::of(*op) == names.scf_if).unwrap();
    let mut counts = Counts::default();
    let mut carries = ir::regions(branch).map(|region| {
        let mut carry = Carry::default();
        for op in ir::blocks(region).flat_map(ir::ops) {
            let kind = if ir::is_fence(&names, op) {
                Kind::Fence
            } else if ir::is_whole_cache_invalid(&names, op) {
                Kind::Whole
            } else if op.operand_count() == 1 {
                Kind::Region(ir::ValueKey::of(ir::operand(op, 0)))
            } else {
                continue;
            };
            carry.add(op, kind, &mut counts, eraser());
        }
        carry
    });
    let then = carries.next().unwrap();
    let otherwise = carries.next().unwrap();
    (then, otherwise, counts)
}

use melior::ir::operation::OperationLike;

const W: &str = "memref<64xf32, #ccl.window>";

#[test]
fn both_branches_share_their_invalidates_and_fence() {
    let (mut then, mut otherwise, mut counts) = branch_carries(&format!(
        r#"func.func @f(%a: {W}, %b: {W}, %c: i1) {{
          scf.if %c {{
            ccl.cacheinvalid %a : {W}
            ccl.cacheinvalid %b : {W}
            ccl.fence
          }} else {{
            ccl.cacheinvalid %b : {W}
            ccl.fence
          }}
          return
        }}"#
    ));
    let common = then.take_common(&mut otherwise, &mut counts, eraser());
    assert_eq!((common.regions.len(), common.whole.is_some(), common.fence.is_some()), (1, false, true));
    // The then-branch keeps %a's invalidate; the else-branch's twins are
    // erased.
    assert_eq!((then.regions.len(), then.fence.is_some()), (1, false));
    assert!(otherwise.is_empty());
    assert_eq!(counts.merged, 2);
}

#[test]
fn a_fence_in_one_branch_keeps_everything_in_place() {
    let (mut then, mut otherwise, mut counts) = branch_carries(&format!(
        r#"func.func @f(%a: {W}, %c: i1) {{
          scf.if %c {{
            ccl.cacheinvalid %a : {W}
            ccl.fence
          }} else {{
            ccl.cacheinvalid %a : {W}
          }}
          return
        }}"#
    ));
    let common = then.take_common(&mut otherwise, &mut counts, eraser());
    assert!(common.is_empty());
    assert!(then.shares_an_invalidate(&otherwise));
    assert_eq!(counts.merged, 0);
}

#[test]
fn a_whole_gm_invalidate_covers_region_ones() {
    let (then, _, counts) = branch_carries(&format!(
        r#"func.func @f(%a: {W}, %b: {W}, %c: i1) {{
          scf.if %c {{
            ccl.cacheinvalid %a : {W}
            ccl.cacheinvalid
            ccl.cacheinvalid %b : {W}
            ccl.fence
            ccl.fence
          }} else {{
          }}
          return
        }}"#
    ));
    assert!(then.whole.is_some() && then.regions.is_empty() && then.fence.is_some());
    // Any region's invalidate: the branch condition's key stands for one.
    let branch = then.whole.and_then(|op| op.parent_operation()).unwrap();
    assert!(then.covers(Kind::Region(ir::ValueKey::of(ir::operand(branch, 0)))) && then.covers(Kind::Fence));
    // %a's (covered when the whole-GM one came), %b's, the second fence.
    assert_eq!(counts.merged, 3);
}
