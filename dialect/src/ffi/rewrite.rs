//! Changing the IR through shared references: melior moves, erases and
//! rewires only through `&mut`, which a pass walking the IR with shared
//! references cannot have. Each function says what stays valid.
//!
//! Erasing is the one change that frees memory, and `OperationRef` is
//! `Copy`: a pass may hold copies of a reference to the op it erases
//! anywhere (a list, a walk's position, a carry of markers). So no safe
//! function here destroys an op. [`Erasures::erase`] takes the op out of
//! the IR at once (it is moved, regions and all, into a detached holder op,
//! where it is nobody's operand and no walk of the IR meets it), and the
//! op is destroyed when the scope that owns the `Erasures` ends: after
//! `CclPass::run` returned (the pass bridge), or after the closure of
//! [`with_erasures`]. References made inside that scope cannot outlive it
//! (their lifetime is the scope's), so none can reach a destroyed op.

use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, Module, OperationRef, Value, ValueLike};
use mlir_sys::{MlirBlock, MlirOperation};
use std::cell::Cell;

/// Moves `op` (in a block already) to right after `anchor`, or to the
/// start of `block` when there is no anchor; whether it was elsewhere.
/// Panics if `op` or `anchor` is in no block (MLIR's move would follow a
/// null block).
pub fn move_to<'c, 'a>(
    op: OperationRef<'c, 'a>,
    anchor: Option<OperationRef<'c, 'a>>,
    block: BlockRef<'c, 'a>,
) -> bool {
    assert!(op.block().is_some(), "move_to: the op to move is in no block");
    match anchor {
        Some(anchor) => {
            assert!(anchor.block().is_some(), "move_to: the anchor is in no block");
            if anchor.next_in_block() == Some(op) {
                return false;
            }
            // SAFETY: both ops are live and in blocks (checked); moving keeps
            // every reference to them valid.
            unsafe { mlir_sys::mlirOperationMoveAfter(op.to_raw(), anchor.to_raw()) }
        }
        None => match block.first_operation() {
            Some(first) if first == op => return false,
            // SAFETY: as above (`first` is in `block`).
            Some(first) => unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), first.to_raw()) },
            None => unreachable!("a block that holds an op to move before is not empty"),
        },
    }
    true
}

/// Replaces every use of `old` with `new`.
pub fn replace_all_uses(old: Value<'_, '_>, new: Value<'_, '_>) {
    // SAFETY: both values are live; the users stay valid.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

thread_local! {
    /// Ops erased on this thread so far: a walk compares it before and
    /// after each visit to see whether its positions may have left the IR.
    static ERASED: Cell<u64> = const { Cell::new(0) };
}

/// How many ops this thread has erased (see [`crate::ffi::walk::walk_nested`]).
pub(crate) fn erased_so_far() -> u64 {
    ERASED.with(Cell::get)
}

/// The ops erased in one scope (a pass run, or [`with_erasures`]): out of
/// the IR from the call of [`Erasures::erase`], destroyed when the scope
/// ends. Only this module makes one, for a scope no reference outlives.
pub struct Erasures {
    /// The op the scope runs on: only ops nested in it may be erased. Null
    /// for [`Erasures::leaking`]: any op in a block.
    root: MlirOperation,
    /// A detached `builtin.module` whose body holds the erased ops (made
    /// at the first erasure), or null.
    holder: Cell<MlirOperation>,
}

impl Erasures {
    /// Erasures for a scope over `root`, whose end destroys them.
    ///
    /// # Safety
    /// `root` must be live, and the `Erasures` must be dropped (or
    /// [`Erasures::finish`]ed) while it still is, after every reference to
    /// an op nested in `root` made since is gone.
    pub(crate) unsafe fn new(root: MlirOperation) -> Self {
        Self { root, holder: Cell::new(MlirOperation { ptr: std::ptr::null_mut() }) }
    }

    /// Erasures that never destroy what they erase (the memory is leaked):
    /// for tests that run a pass's pieces without a scope. Any op in a
    /// block may be erased.
    pub fn leaking() -> Self {
        Self {
            root: MlirOperation { ptr: std::ptr::null_mut() },
            holder: Cell::new(MlirOperation { ptr: std::ptr::null_mut() }),
        }
    }

    /// Erases `op`: takes it out of its block now, and destroys it (with
    /// its regions) when the scope ends. Until then references to it stay
    /// valid: it is in a detached op of its own, no operand of the IR's
    /// refers to it, and no walk from the IR reaches it.
    ///
    /// Panics (a bug of the caller, which the pass bridge reports as an
    /// internal error) if `op` is not nested in the op the scope runs on,
    /// which is also the case for an op erased already, or if a result of
    /// `op` is still used outside the ops erased: replace the uses first.
    pub fn erase(&self, op: OperationRef<'_, '_>) {
        let raw = op.to_raw();
        let holder = self.holder.get();
        let in_scope = if self.root.ptr.is_null() {
            // SAFETY: `op` is live.
            !unsafe { mlir_sys::mlirOperationGetBlock(raw) }.ptr.is_null()
                && (holder.ptr.is_null() || !is_nested_in(raw, holder))
        } else {
            is_nested_in(raw, self.root)
        };
        assert!(in_scope, "erase: the op is not nested in the op the pass runs on (or was erased already)");
        assert!(
            values_of(raw).all(|value| uses_are_in(value, holder)),
            "erase: a result of '{}' is still used; replace its uses first",
            crate::ffi::operations::op_name(op)
        );
        let body = self.body(raw);
        // SAFETY: `op` is live and in a block (checked above); detached, it is owned by nobody, and appending it
        // to the holder's body makes the holder its owner.
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(raw);
            mlir_sys::mlirBlockAppendOwnedOperation(body, raw);
        }
        ERASED.with(|count| count.set(count.get() + 1));
    }

    /// The holder's body, made on first use.
    fn body(&self, op: MlirOperation) -> MlirBlock {
        let mut holder = self.holder.get();
        if holder.ptr.is_null() {
            // SAFETY: `op` is live; the new module is detached, and this
            // value owns it.
            holder = unsafe {
                mlir_sys::mlirModuleGetOperation(mlir_sys::mlirModuleCreateEmpty(mlir_sys::mlirOperationGetLocation(
                    op,
                )))
            };
            self.holder.set(holder);
        }
        // SAFETY: the holder is a live `builtin.module`: one region, one block.
        unsafe { mlir_sys::mlirRegionGetFirstBlock(mlir_sys::mlirOperationGetFirstRegion(holder)) }
    }

    /// Destroys the erased ops, unless a value one of them defines is
    /// still used by an op outside them (the caller wired an erased op's
    /// result in again), or the op the scope runs on was moved among them:
    /// destroying would leave that user with a freed operand, or the
    /// scope's owner with a freed op, so they stay, detached (leaked), and
    /// the error says so.
    fn destroy(&mut self) -> Result<(), String> {
        let holder = self.holder.replace(MlirOperation { ptr: std::ptr::null_mut() });
        if holder.ptr.is_null() || self.root.ptr.is_null() {
            return Ok(());
        }
        if is_nested_in(self.root, holder) {
            // The op the scope runs on (or an op around it) was moved among
            // the erased ops: its owner still holds it.
            return Err("internal error: the op the pass runs on was moved among the erased ops".to_string());
        }
        let mut used = false;
        // SAFETY: the holder is live; the walk only reads.
        crate::ffi::walk::walk_nested(unsafe { OperationRef::from_raw(holder) }, |op| {
            used |= !values_of(op.to_raw()).chain(block_arguments_of(op.to_raw())).all(|v| uses_are_in(v, holder));
            crate::ffi::walk::Walk::Advance
        });
        if used {
            return Err("internal error: an erased op defines a value still used outside the erased ops".to_string());
        }
        // SAFETY: the holder is detached and owned by this value; every
        // reference to the ops in it died with the scope (the contract of
        // `new`), and no op outside it uses a value defined in it (above).
        unsafe { mlir_sys::mlirOperationDestroy(holder) };
        Ok(())
    }

    /// Ends the scope: destroys the erased ops (see `destroy`).
    pub(crate) fn finish(mut self) -> Result<(), String> {
        self.destroy()
    }
}

impl Drop for Erasures {
    /// A scope that ends without `finish` (a panicking pass) destroys what
    /// it erased the same way.
    fn drop(&mut self) {
        let _ = self.destroy();
    }
}

/// Runs `f` on `module` with an [`Erasures`] for it, and destroys what `f`
/// erased when `f` returns: the scope of a pass run, for code that runs
/// passes' pieces on a module of its own (tests, tools). The module is
/// borrowed exclusively, so no reference into it made before the call
/// exists, and none made in `f` outlives it.
pub fn with_erasures<'c, R>(
    module: &mut Module<'c>,
    f: impl for<'a> FnOnce(OperationRef<'c, 'a>, &'a Erasures) -> R,
) -> R {
    let op = module.as_operation();
    // SAFETY: the module is live for the call, and the erasures are
    // finished before it returns, after `f` (and every reference it made:
    // their lifetime is the closure's) is done.
    let erasures = unsafe { Erasures::new(op.to_raw()) };
    let result = f(op, &erasures);
    if let Err(message) = erasures.finish() {
        panic!("{message}");
    }
    result
}

/// Whether `op` is nested in `ancestor` (and is not `ancestor`).
fn is_nested_in(op: MlirOperation, ancestor: MlirOperation) -> bool {
    let mut at = op;
    loop {
        // SAFETY: `at` is a live op; its parent (or null) is too.
        at = unsafe { mlir_sys::mlirOperationGetParentOperation(at) };
        if at.ptr.is_null() {
            return false;
        }
        if at.ptr == ancestor.ptr {
            return true;
        }
    }
}

/// The results of `op`.
fn values_of(op: MlirOperation) -> impl Iterator<Item = mlir_sys::MlirValue> {
    // SAFETY: `op` is live; each index is below its result count.
    let count = unsafe { mlir_sys::mlirOperationGetNumResults(op) };
    // SAFETY: as above.
    (0..count).map(move |index| unsafe { mlir_sys::mlirOperationGetResult(op, index) })
}

/// The arguments of the blocks of `op`'s regions.
fn block_arguments_of(op: MlirOperation) -> impl Iterator<Item = mlir_sys::MlirValue> {
    // SAFETY: `op` is live.
    let op = unsafe { OperationRef::from_raw(op) };
    let blocks: Vec<MlirBlock> =
        crate::ffi::walk::regions(op).flat_map(crate::ffi::walk::blocks).map(|block| block.to_raw()).collect();
    blocks.into_iter().flat_map(|block| {
        // SAFETY: `block` is a live block of `op`; each index is below its
        // argument count.
        let count = unsafe { mlir_sys::mlirBlockGetNumArguments(block) };
        // SAFETY: as above.
        (0..count).map(move |index| unsafe { mlir_sys::mlirBlockGetArgument(block, index) })
    })
}

/// Whether every use of `value` is by an op nested in `holder` (true with
/// no uses).
fn uses_are_in(value: mlir_sys::MlirValue, holder: MlirOperation) -> bool {
    // SAFETY: `value` is live; its uses (or null) are live operands.
    let mut operand = unsafe { mlir_sys::mlirValueGetFirstUse(value) };
    while !operand.ptr.is_null() {
        // SAFETY: `operand` is a live use; its owner is a live op.
        let user = unsafe { mlir_sys::mlirOpOperandGetOwner(operand) };
        if holder.ptr.is_null() || !is_nested_in(user, holder) {
            return false;
        }
        // SAFETY: as above.
        operand = unsafe { mlir_sys::mlirOpOperandGetNextUse(operand) };
    }
    true
}
