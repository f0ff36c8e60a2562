//! Rules 3 and 4 at the launch: every `ccl.all_to_all_v` whose `blocks`
//! operand is a constant B gets `launch_width = B : i64`; its
//! `signal_stride`, when given, must be at least B, and B at most
//! `max-blocks`.

use super::Errors;
use crate::ir;
use cclir_dialect::{names::Interned, ods::AllToAllV};
use rustc_hash::FxHashSet;

/// Stamps the launches; returns how many got a new or changed `launch_width`
///. `folded` are the constants this run
/// folded, already held to `max-blocks` at their cal op (one error per
/// computation, not one per launch).
pub fn stamp<'c, 'a>(
    names: &Interned,
    launches: &[AllToAllV<'c, 'a>],
    folded: &FxHashSet<crate::ir::OpKey>,
    max_blocks: Option<i128>,
    errors: &mut Errors<'c>,
) -> u64 {
    let mut stamped = 0;
    for &view in launches {
        let launch = view.operation();
        let blocks = view.blocks();
        let Some(b) = ir::constant_int(names, blocks) else { continue };
        if b <= 0 {
            errors.at(&launch, format!("launch width must be positive, got {b}"));
            continue;
        }
        let Ok(width) = i64::try_from(b) else {
            errors.at(&launch, format!("admitted launch width {b} does not fit in i64"));
            continue;
        };
        let from_fold = crate::ir::defining_op(blocks).is_some_and(|def| folded.contains(&crate::ir::OpKey::of(def)));
        if let (Some(n), false) = (max_blocks, from_fold) {
            if b > n {
                errors.at(&launch, format!("admitted launch width {b} exceeds max-blocks={n}"));
            }
        }
        // The dialect verifier holds signal_stride to an i64.
        if let Some(stride) = view.signal_stride().filter(|&s| i128::from(s) < b) {
            errors.at(&launch, format!("signal stride {stride} is narrower than the admitted launch width {b}"));
        }
        if view.launch_width() != Some(width) {
            view.set_launch_width(width);
            stamped += 1;
        }
    }
    stamped
}
