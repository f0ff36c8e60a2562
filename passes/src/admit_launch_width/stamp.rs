//! Rules 3 and 4 at the launch: every `ccl.all_to_all_v` whose `blocks`
//! operand is a constant B gets `launch_width = B : i64`; its
//! `signal_stride`, when given, must be at least B, and B at most
//! `max-blocks`.

use super::{ir, Errors, Launch};
use crate::names::{self, Interned};
use melior::ir::{operation::OperationLike, OperationRef, ValueLike};
use rustc_hash::FxHashSet;

/// Stamps the launches; returns how many got a new or changed `launch_width`
/// (their scopes go to `changed`). `folded` are the constants this run
/// folded, already held to `max-blocks` at their cal op (one error per
/// computation, not one per launch).
pub fn stamp<'c, 'a>(
    names: &Interned,
    launches: &[Launch<'c, 'a>],
    folded: &FxHashSet<usize>,
    max_blocks: Option<i128>,
    errors: &mut Errors,
    changed: &mut Vec<OperationRef<'c, 'a>>,
) -> u64 {
    let mut stamped = 0;
    for &Launch { op: launch, scope } in launches {
        let blocks = launch.operand(4).expect("blocks operand");
        let Some(b) = ir::constant_int(names, blocks) else { continue };
        if b <= 0 {
            errors.at(&launch, format!("launch width must be positive, got {b}"));
            continue;
        }
        let Ok(width) = i64::try_from(b) else {
            errors.at(&launch, format!("admitted launch width {b} does not fit in i64"));
            continue;
        };
        let from_fold = crate::ir::defining_op(blocks).is_some_and(|def| folded.contains(&crate::ir::op_key(def)));
        if let (Some(n), false) = (max_blocks, from_fold) {
            if b > n {
                errors.at(&launch, format!("admitted launch width {b} exceeds max-blocks={n}"));
            }
        }
        if let Ok(stride) = launch.attribute(names::ATTR_SIGNAL_STRIDE) {
            match ir::int_attribute_value(stride) {
                Some(s) if s < b => {
                    errors.at(&launch, format!("signal stride {s} is narrower than the admitted launch width {b}"))
                }
                Some(_) => {}
                None => errors.at(&launch, format!("'{}' must be an i64 integer attribute", names::ATTR_SIGNAL_STRIDE)),
            }
        }
        let attribute = ir::i64_attribute(blocks.r#type(), width);
        if launch.attribute(names::ATTR_LAUNCH_WIDTH).ok() != Some(attribute) {
            ir::set_attribute(launch, names::ATTR_LAUNCH_WIDTH, attribute);
            stamped += 1;
            changed.push(scope);
        }
    }
    stamped
}
