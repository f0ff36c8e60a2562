//! The IR vocabulary of the ccl passes: what the dialect crate adds to
//! melior (`cclir_dialect::ir`, re-exported here, so a pass names all of it
//! as `ir::...`), and the helpers the passes share on top of it:
//!
//! - [`walk`]: the programs of a module, block ends, structural dominance;
//! - [`markers`]: making and recognising `ccl.fence` and `ccl.cacheinvalid`,
//!   and window-bound memrefs;
//! - [`constants`]: integer widths and `arith.constant` values;
//! - [`insert`]: placing new ops.
//!
//! Nothing here knows about a particular pass.

pub mod constants;
pub mod insert;
pub mod markers;
pub mod walk;

pub use cclir_dialect::ir::*;
pub use constants::{constant_int, int_attribute_value, int_width};
pub use insert::{first_result, insert_after, insert_at_start, insert_before};
pub use markers::{
    contains_view, create_cache_invalid, create_fence, is_fence, is_region_cache_invalid_of, is_whole_cache_invalid,
    is_window_bound, protected_by_region_invalidate, read_memref,
};
pub use walk::{dominates_structurally, ends_its_block, first_block_of, is_module, is_side_effect_free, programs};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{context, function, parse};
    use melior::ir::operation::OperationLike;

    #[test]
    fn links_melior_lacks() {
        let context = context();
        let module = parse(&context, "func.func @f() {\n  ccl.fence\n  ccl.barrier\n  return\n}\n");
        let entry = entry_block(function(&module, "f")).expect("a body");
        let forward: Vec<&str> = ops(entry).map(op_name).collect();
        let mut backward: Vec<&str> = ops_reversed(entry).map(op_name).collect();
        backward.reverse();
        assert_eq!(forward, ["ccl.fence", "ccl.barrier", "func.return"]);
        assert_eq!(backward, forward);
        let first = ops(entry).next().expect("an op");
        assert_eq!(previous_in_block(first), None);
        assert_eq!(previous_in_block(first.next_in_block().expect("a second op")), Some(first));
        // A block without a terminator (the module's body) has a last op too.
        let body = blocks(regions(module.as_operation()).next().expect("a region")).next().expect("a block");
        assert_eq!(last_in_block(body).map(op_name), Some("func.func"));
    }
}
