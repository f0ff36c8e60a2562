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
