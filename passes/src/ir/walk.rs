//! Reading the structure of the IR: the programs of a module, block ends,
//! side-effect-free ops, structural dominance, the first block of a region.

use cclir_dialect::{
    ffi::walk::{blocks, ops, regions},
    names::{self, has_side_effect_free_name},
};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike};

/// The programs a ccl pass run on `module` handles, each on its own
/// (docs/semantics.md, "Nested modules"): `module`, then every
/// `builtin.module` in the body of a program, recursively, in pre-order.
/// A module is a symbol table of its own: its functions call and launch
/// only each other. Only the top-level ops of each module are read.
pub fn programs<'c, 'a>(module: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut programs = vec![module];
    let mut next = 0;
    while next < programs.len() {
        let program = programs[next];
        next += 1;
        let nested: Vec<OperationRef<'c, 'a>> =
            regions(program).flat_map(blocks).flat_map(ops).filter(|op| is_module(*op)).collect();
        // Pre-order: a module's nested modules come right after it.
        programs.splice(next..next, nested);
    }
    programs
}

/// Whether `op` is a `builtin.module`.
pub fn is_module(op: OperationRef<'_, '_>) -> bool {
    cclir_dialect::ffi::operations::op_name(op) == names::BUILTIN_MODULE
}

/// Whether `op` is its block's terminator as MLIR knows it (an op with the
/// terminator trait at the end of its block: `scf.forall.in_parallel`,
/// `cf.br`), whatever its name.
pub fn ends_its_block(op: OperationRef<'_, '_>) -> bool {
    match op.block().and_then(|block| block.terminator()) {
        Some(terminator) => terminator == op,
        None => false,
    }
}

/// The side-effect-free ops of docs/semantics.md (`arith`, `index`, `math`, the pure
/// ccl ops) and terminators: by name, or by ending its block as one.
pub fn is_side_effect_free(op: OperationRef<'_, '_>) -> bool {
    has_side_effect_free_name(op) || ends_its_block(op)
}

/// Whether `first` properly dominates `later` by structure alone: `later` is
/// in `first`'s block, or nested in an op of that block, after `first`.
/// Anything else (other blocks of a CFG region, sibling branches) is "no":
/// the pass only relies on this to merge, so "no" is always safe.
pub fn dominates_structurally<'c, 'a>(first: OperationRef<'c, 'a>, later: OperationRef<'c, 'a>) -> bool {
    let Some(block) = first.block() else { return false };
    let mut current = later;
    loop {
        match current.block() {
            Some(b) if b == block => {
                return current != first && first.is_before_in_block(current);
            }
            _ => match current.parent_operation() {
                Some(parent) => current = parent,
                None => return false,
            },
        }
    }
}

/// The first block of region `index` of `op`.
pub fn first_block_of<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<BlockRef<'c, 'a>> {
    regions(op).nth(index)?.first_block()
}
