//! Rule 6: cal ops of one function with the same two operands compute the
//! same B, so each is merged into the first one (its uses now use the first
//! one's result, and it is erased). MLIR's `cse` does not do this: IRDL ops
//! carry no `Pure` trait.
//!
//! "The first" must dominate the duplicate, or the replaced uses would not
//! see a defined value. Dominance is decided structurally (same block, or
//! nested under a later op of that block); a duplicate in a sibling branch
//! of the first is kept, and becomes the first of its own branch.

use super::CalSite;
use crate::{framework::Eraser, ir};
use rustc_hash::FxHashMap;

/// Merges duplicates; `sites` keeps the survivors, in order. Returns how
/// many ops were merged away.
pub fn merge<'c, 'a>(sites: &mut Vec<CalSite<'c, 'a>>, eraser: Eraser<'_>) -> u64 {
    let mut merged = 0;
    let mut firsts: FxHashMap<(Option<crate::ir::OpKey>, crate::ir::ValueKey, crate::ir::ValueKey), Vec<usize>> =
        FxHashMap::default();
    let mut kept: Vec<CalSite<'_, '_>> = Vec::new();
    for site in sites.drain(..) {
        let op = site.cal.operation();
        let p = crate::ir::ValueKey::of(site.cal.p());
        let l = crate::ir::ValueKey::of(site.cal.l());
        let candidates = firsts.entry((site.function.map(crate::ir::OpKey::of), p, l)).or_default();
        let first = candidates
            .iter()
            .map(|&index| kept[index].cal.operation())
            .find(|&first| ir::dominates_structurally(first, op));
        match first {
            Some(first) => {
                ir::replace_all_uses(site.cal.b(), ir::first_result(first));
                eraser.erase(op);
                merged += 1;
            }
            None => {
                candidates.push(kept.len());
                kept.push(site);
            }
        }
    }
    *sites = kept;
    merged
}
