//! The walk of one kernel: every block once, first op to last, carrying the
//! markers it passes until an op stops them (T1), merging what meets (T2),
//! taking a loop body's or both branches' markers out when nothing inside
//! needs them there (T3, T4), and erasing fences that nothing needs (T5).
//! docs/passes/sink-comm-markers.md says why each step is sound.
//!
//! A block's walk ends with what it still carries at its terminator; the
//! op that owns the block decides whether that leaves the block (a loop
//! body whose iterations do not need it, both branches of an `scf.if`) or
//! is placed before the terminator. Regions are walked when their op is
//! met, inside out, so each op is visited once and the cost is linear in
//! the kernel's size.

use super::{
    carry::{merge, Carry, Kind},
    effects::{self, Effect, Flags},
    sound::Knowledge,
    Counts,
};
use crate::{comm_order::trip_guard, framework::Eraser, ir};
use cclir_dialect::{
    names::{Interned, Name},
    ods::OpKind,
};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef};
use smallvec::SmallVec;

/// The walk of one kernel.
pub struct Walker<'n, 'c, 'a> {
    names: &'n Interned,
    know: &'n Knowledge<'n>,
    eraser: Eraser<'n>,
    pub counts: Counts,
    /// Fences placed at the end of an `scf.if` branch (or in a trip guard)
    /// that a later fence of an enclosing block makes useless if no
    /// exposure comes between (T5). A block's walk truncates the list to
    /// where it found it at every exposure, and a fence it places erases
    /// everything above that mark.
    tentative: Vec<OperationRef<'c, 'a>>,
    /// An `scf.if` kept an invalidate both branches end with because only
    /// one branch had a fence, and a tentative fence was erased: that
    /// fence may have been the one, and a second walk may take the
    /// invalidates out (`Walker::settled`).
    kept_for_a_fence: bool,
    erased_tentative: bool,
}

/// What a block's ops (nested ones included, placed markers too) do that
/// the carried markers may not pass (sink-comm-markers.md, "Sound by
/// construction").
#[derive(Clone, Debug, Default)]
struct Passed<'c, 'a> {
    /// GM reads (and the sources of `put` / `get`): an invalidate that
    /// drops a line one reads stays before it.
    reads: SmallVec<[OperationRef<'c, 'a>; 4]>,
    /// Ops that issue writes in flight (remote writes, placed invalidates,
    /// calls): an invalidate whose write-back may overlap one stays before
    /// it, with the fence.
    writes: SmallVec<[OperationRef<'c, 'a>; 4]>,
    /// A fence runs (on some path): an invalidate without a fence stays
    /// before it, so that its write-back lands where it did.
    fence: bool,
    /// A write that may overlap an earlier write on some path: a fence
    /// stays before it.
    conflict: bool,
    /// Stores into plain (non-window) buffers, by their destination: an
    /// invalidate that would write one back stays before it.
    plain_writes: SmallVec<[melior::ir::Value<'c, 'a>; 2]>,
}

impl<'c, 'a> Passed<'c, 'a> {
    fn join(&mut self, other: &Passed<'c, 'a>) {
        self.reads.extend(other.reads.iter().copied());
        self.writes.extend(other.writes.iter().copied());
        self.fence |= other.fence;
        self.conflict |= other.conflict;
        self.plain_writes.extend(other.plain_writes.iter().copied());
    }
}

/// One block's walk, kept until the op that owns the block has decided
/// what leaves it.
struct BlockWalk<'c, 'a> {
    block: BlockRef<'c, 'a>,
    /// The last op markers must stay after (anything but pure ops and the
    /// carried markers); `None`: the block's start.
    anchor: Option<OperationRef<'c, 'a>>,
    /// What the ops walked do, for the carried markers.
    passed: Passed<'c, 'a>,
    /// The last `scf.for` passed, with the anchor before it, while it is
    /// the anchor (for its trip guard, which must stay right after it).
    last_loop: Option<(OperationRef<'c, 'a>, Option<OperationRef<'c, 'a>>)>,
    /// The invalidates placed since the walk last passed anything but
    /// markers (the memory they cleaned is clean still: an invalidate of
    /// it now does nothing), by target; `None` for a whole-GM one.
    clean: SmallVec<[Option<ir::ValueKey>; 2]>,
    /// Whether a write may be in flight since the last fence (T5); unknown,
    /// so true, at the block's start.
    unfenced: bool,
    /// The length of `Walker::tentative` when the walk began.
    mark: usize,
    /// While the anchor is a `ccl.wait`: the wait, and the anchor before
    /// it.
    waited: Option<(OperationRef<'c, 'a>, Option<OperationRef<'c, 'a>>)>,
    flags: Flags,
    carry: Carry<'c, 'a>,
}

impl<'n, 'c, 'a> Walker<'n, 'c, 'a> {
    pub fn new(names: &'n Interned, know: &'n Knowledge<'n>, eraser: Eraser<'n>) -> Self {
        Self {
            names,
            know,
            eraser,
            counts: Counts::default(),
            tentative: Vec::new(),
            kept_for_a_fence: false,
            erased_tentative: false,
        }
    }

    /// Whether a second walk of the function would find it as this one
    /// left it. The one case it might not: T4 kept an invalidate in both
    /// branches of an `scf.if` because one branch ended with a fence, and
    /// T5 erased that fence later, for a fence after the `scf.if`.
    pub fn settled(&self) -> bool {
        !(self.kept_for_a_fence && self.erased_tentative)
    }

    /// Walks the body of `func` (an InCore function with a body). Every
    /// block of the body places what it carries before its terminator
    /// (`func.return` exposes everything; a branch keeps markers in their
    /// block).
    pub fn function(&mut self, func: OperationRef<'c, 'a>) {
        for region in ir::regions(func) {
            for block in ir::blocks(region) {
                let mut walk = self.block(block);
                self.place_all(&mut walk);
                self.tentative.truncate(walk.mark);
            }
        }
    }

    fn block(&mut self, block: BlockRef<'c, 'a>) -> BlockWalk<'c, 'a> {
        let mut walk = BlockWalk::new(block, self.tentative.len(), Carry::default());
        let mut cursor = block.first_operation();
        while let Some(op) = cursor {
            // The next op is taken first: a trip guard built after `op`
            // is not walked, and placed markers only move behind `op`.
            cursor = op.next_in_block();
            if cursor.is_none() && ir::ends_its_block(op) {
                // The terminator: the owner decides. One with regions of
                // its own (`scf.reduce`, `scf.forall.in_parallel`) is not
                // looked into, so it may do anything.
                if op.region_count() > 0 {
                    walk.flags.join(Flags::ALL);
                }
                break;
            }
            self.op(&mut walk, op);
        }
        walk
    }

    fn op(&mut self, walk: &mut BlockWalk<'c, 'a>, op: OperationRef<'c, 'a>) {
        let effect = effects::of(self.names, op);
        // An invalidate of what one placed right before it (only markers
        // between) cleaned: it writes back and drops nothing.
        if let Effect::Invalidate(target) = effect {
            let target = target.map(ir::ValueKey::of);
            if walk.clean.contains(&None) || walk.clean.contains(&target) {
                merge(op, &mut self.counts, self.eraser);
                return;
            }
        }
        let kind = match effect {
            Effect::Invalidate(None) => Some(Kind::Whole),
            Effect::Invalidate(Some(target)) => Some(Kind::Region(ir::ValueKey::of(target))),
            _ => None,
        };
        // An invalidate whose write-back may overlap a write still in
        // flight: the fences before it stay before it. Unless one carried
        // covers it: it merges, and the one placed later writes the lines
        // back once.
        if let Some(kind) = kind {
            if self.know.conflicting.contains(&ir::OpKey::of(op)) && !walk.carry.covers(kind) {
                if walk.carry.fence.is_some() {
                    match (kind, walk.waited) {
                        // A wait's own invalidate (nothing but
                        // side-effect-free ops and markers between): the
                        // fences go before the wait, where the rules put
                        // them. A wait neither reads nor writes memory, so
                        // that lands the same writes before the same ops;
                        // and a later run of the pipeline, whose insertion
                        // puts the wait's invalidate right after the wait,
                        // finds them where this run left them (between
                        // the two, they would stay, and its invalidate's
                        // write-back would get a fence the rules' has not).
                        (Kind::Whole, Some((wait, before))) => {
                            walk.anchor = before;
                            self.place_all(walk);
                            if walk.anchor.is_none_or(|anchor| anchor.is_before_in_block(wait)) {
                                walk.anchor = Some(wait);
                            }
                        }
                        _ => {
                            self.place_all(walk);
                        }
                    }
                }
                self.tentative.truncate(walk.mark);
            }
        }
        match effect {
            Effect::Fence => walk.carry.add(op, Kind::Fence, &mut self.counts, self.eraser),
            Effect::Invalidate(None) => walk.carry.add(op, Kind::Whole, &mut self.counts, self.eraser),
            Effect::Invalidate(Some(target)) => {
                walk.carry.add(op, Kind::Region(ir::ValueKey::of(target)), &mut self.counts, self.eraser)
            }
            Effect::Pure { .. } => {}
            Effect::Op(flags) => {
                // Markers with a fence among them come next: the fence
                // lands what any invalidate carried past the write writes
                // back.
                let fenced = flags.local_write && effects::followed_by_a_fence(self.names, op);
                let mut passed = Passed::default();
                if flags.read {
                    passed.reads.push(op);
                }
                if flags.in_flight {
                    passed.writes.push(op);
                }
                passed.conflict = self.know.conflicting.contains(&ir::OpKey::of(op));
                if let Some(dst) = super::complete::store_destination(self.names, op) {
                    if !ir::is_window_bound(self.names, dst) {
                        passed.plain_writes.push(dst);
                    }
                }
                self.stop(walk, flags, fenced, &passed);
                walk.unfenced |= flags.in_flight;
                walk.flags.join(flags);
                walk.passed.join(&passed);
                let before = walk.anchor;
                walk.set_anchor(op);
                if self.names.is(Name::of(op), OpKind::Wait) {
                    walk.waited = Some((op, before));
                }
                // What it does may dirty or cache anything again.
                walk.clean.clear();
            }
            Effect::Regions => {
                self.region_op(walk, op);
                walk.clean.clear();
            }
        }
    }

    /// Places what an op with `flags` stops (the op comes after the
    /// block's anchor): before an exposure, everything that publishes (a
    /// fence, and the invalidates with it; a whole-GM invalidate alone
    /// only drops lines for this block's later reads and passes); before a
    /// read, the whole-GM invalidate; and, unless `write_may_pass`, an
    /// invalidate without a fence before a write (its write-back would
    /// include the write, with no fence to land it before it is exposed).
    ///
    /// And what `passed` (the op, or everything inside an op with regions)
    /// stops, so that no move adds a behaviour: a fence stays before a
    /// write that may overlap one still in flight (and a fence met in a
    /// branch is needed there); an invalidate stays before a read of a line
    /// it drops, before a write its write-back may overlap (with the fence
    /// after it, so the two are not in flight together), and, without a
    /// fence, before a fence (where its write-back landed).
    fn stop(&mut self, walk: &mut BlockWalk<'c, 'a>, flags: Flags, write_may_pass: bool, passed: &Passed<'c, 'a>) {
        if flags.exposure {
            if walk.carry.publishes() {
                self.place_all(walk);
            }
            // A fence met so far in a branch is needed here.
            self.tentative.truncate(walk.mark);
        }
        if passed.conflict {
            if walk.carry.fence.is_some() {
                self.place_all(walk);
            }
            self.tentative.truncate(walk.mark);
        }
        let know = self.know;
        let meets = |marker: OperationRef<'c, 'a>| passed.writes.iter().any(|w| know.write_back_meets(marker, *w));
        if walk.carry.invalidates().any(meets) {
            self.place_all(walk);
        }
        if flags.read {
            if let Some(whole) = walk.carry.whole.take() {
                self.place(walk, whole);
            }
        }
        let drops = |marker: OperationRef<'c, 'a>| passed.reads.iter().any(|r| know.drops_line_of(marker, *r));
        if walk.carry.invalidates().any(drops) {
            self.place_invalidates(walk);
        }
        if passed.fence && walk.carry.has_invalidates() && walk.carry.fence.is_none() {
            self.place_invalidates(walk);
        }
        if flags.local_write && !write_may_pass && walk.carry.has_invalidates() && walk.carry.fence.is_none() {
            self.place_invalidates(walk);
        }
        if walk.carry.invalidates().any(|marker| self.writes_back_a_plain_write(marker, passed)) {
            self.place_invalidates(walk);
        }
    }

    /// Whether invalidate `marker`, carried past what `passed` did, would
    /// write back one of its plain-buffer stores. The rules' placement
    /// leaves those lines dirty (it writes back windows only), and which
    /// plain lines a kernel leaves dirty at its return is what the scan of
    /// `placement=minimal` reads of every other kernel (the leftovers an
    /// earlier launch may leave, `Buffers::plain_write_roots`): a move
    /// that writes more back would change what a second run of the
    /// pipeline finds, and so its output (not a fixed point).
    fn writes_back_a_plain_write(&self, marker: OperationRef<'c, 'a>, passed: &Passed<'c, 'a>) -> bool {
        if passed.plain_writes.is_empty() {
            return false;
        }
        if marker.operand_count() == 0 {
            return true;
        }
        let target = ir::operand(marker, 0);
        passed.plain_writes.iter().any(|dst| ir::contains_view(self.names, target, *dst))
    }

    // -- ops with regions --------------------------------------------------

    fn region_op(&mut self, walk: &mut BlockWalk<'c, 'a>, op: OperationRef<'c, 'a>) {
        let names = self.names;
        let name = Name::of(op);
        let inner_mark = self.tentative.len();
        let mut passed = Passed::default();
        let (flags, leaving) = if name == names.scf_for {
            self.scf_for(op, &mut passed)
        } else if name == names.scf_if {
            self.scf_if(op, &mut passed)
        } else if name == names.scf_while {
            self.scf_while(op, &mut passed)
        } else if name == names.scf_parallel {
            self.scf_parallel(op, &mut passed)
        } else if name == names.scf_execute_region || name == names.scf_index_switch {
            // One region runs, once: its blocks keep their markers.
            (self.blocks_in_place(op, true, &mut passed), Leaving::Nothing)
        } else if name == names.scf_forall {
            (self.blocks_in_place(op, false, &mut passed), Leaving::Nothing)
        } else {
            // Anything else may run its regions any way and do anything.
            self.blocks_in_place(op, false, &mut passed);
            passed.conflict = true;
            passed.fence = true;
            passed.writes.push(op);
            passed.reads.push(op);
            (Flags::ALL, Leaving::Nothing)
        };
        // The op's tentative fences are after anything placed before it.
        let inner = self.tentative.split_off(inner_mark);
        // A trip guard stays right after its loop (the checker reads the
        // two as one): what stops before the guard is placed before the
        // loop, which it was carried past.
        let guard_of_last_loop = name == names.scf_if
            && walk.last_loop.is_some_and(|(scf_for, _)| {
                walk.anchor == Some(scf_for) && trip_guard::is_trip_guard(names, op, scf_for)
            });
        let anchor = walk.anchor;
        if guard_of_last_loop {
            walk.anchor = walk.last_loop.and_then(|(_, before)| before);
        }
        // What the parent carries passes the op if nothing in it stops it;
        // so do the markers that leave it, for an invalidate among them
        // whose write-back may overlap a write still in flight (before the
        // loop: what comes after it is its trip guard).
        self.stop(walk, flags, false, &passed);
        let leaving_carry = match &leaving {
            Leaving::Always(carry) | Leaving::Guarded(carry) => Some(carry),
            Leaving::Nothing => None,
        };
        if let Some(carry) = leaving_carry {
            self.before_leaving(walk, carry);
        }
        if guard_of_last_loop && walk.anchor == walk.last_loop.and_then(|(_, before)| before) {
            walk.anchor = anchor;
        }
        walk.unfenced |= flags.in_flight;
        walk.flags.join(flags);
        walk.passed.join(&passed);
        walk.last_loop = (name == names.scf_for).then_some((op, walk.anchor));
        walk.set_anchor(op);
        if !flags.exposure {
            self.tentative.extend(inner);
        }
        match leaving {
            Leaving::Nothing => {}
            Leaving::Always(carry) => walk.carry.absorb(carry, &mut self.counts, self.eraser),
            Leaving::Guarded(carry) => self.guard(walk, op, carry),
        }
    }

    /// Walks every block of `op` and places what each carries before its
    /// terminator; the join of their flags. The fences its branches leave
    /// tentative stay so only if `once` (its one region runs once) and no
    /// region has several blocks (a later block may expose first) — or,
    /// for a repeated body, if nothing in it exposes.
    fn blocks_in_place(&mut self, op: OperationRef<'c, 'a>, once: bool, passed: &mut Passed<'c, 'a>) -> Flags {
        let mut flags = Flags::default();
        let mark = self.tentative.len();
        let mut single_blocks = true;
        for region in ir::regions(op) {
            for (index, block) in ir::blocks(region).enumerate() {
                single_blocks &= index == 0;
                let mut walk = self.block(block);
                self.place_all(&mut walk);
                flags.join(walk.flags);
                passed.join(&walk.passed);
            }
        }
        if !single_blocks || (!once && flags.exposure) {
            self.tentative.truncate(mark);
        }
        flags
    }

    /// T3 for `scf.for`: the body's markers leave it when the body needs
    /// none of them, unconditionally when the loop runs at least once by
    /// its constant bounds, behind a trip guard when it may run zero times.
    fn scf_for(&mut self, op: OperationRef<'c, 'a>, passed: &mut Passed<'c, 'a>) -> (Flags, Leaving<'c, 'a>) {
        let Some(body) = ir::first_block_of(op, 0) else { return (Flags::default(), Leaving::Nothing) };
        let mut walk = self.block(body);
        let flags = walk.flags;
        let trips = trip_guard::constant_trip_count(self.names, op);
        // A loop that never runs never runs its markers either.
        if !self.may_leave(op, &walk, flags, &walk.passed) || trips == Some(0) {
            let flags = self.keep(&mut walk);
            passed.join(&walk.passed);
            return (flags, Leaving::Nothing);
        }
        passed.join(&walk.passed);
        let carry = self.take_out(&mut walk);
        (flags, if trips.is_some() { Leaving::Always(carry) } else { Leaving::Guarded(carry) })
    }

    /// T3 for `scf.parallel`: only when its constant bounds run it.
    fn scf_parallel(&mut self, op: OperationRef<'c, 'a>, passed: &mut Passed<'c, 'a>) -> (Flags, Leaving<'c, 'a>) {
        let Some(body) = ir::first_block_of(op, 0) else { return (Flags::default(), Leaving::Nothing) };
        let mut walk = self.block(body);
        let flags = walk.flags;
        if self.may_leave(op, &walk, flags, &walk.passed) && parallel_runs(self.names, op) {
            passed.join(&walk.passed);
            return (flags, Leaving::Always(self.take_out(&mut walk)));
        }
        let flags = self.keep(&mut walk);
        passed.join(&walk.passed);
        (flags, Leaving::Nothing)
    }

    /// T3 for `scf.while`: what the `before` region carries at its end runs
    /// on every exit (the loop leaves after `before`, which runs at least
    /// once); it leaves when nothing in the whole loop needs it. The
    /// `after` region's markers stay (it may run zero times).
    fn scf_while(&mut self, op: OperationRef<'c, 'a>, passed: &mut Passed<'c, 'a>) -> (Flags, Leaving<'c, 'a>) {
        let (Some(before), Some(after)) = (ir::first_block_of(op, 0), ir::first_block_of(op, 1)) else {
            return (self.blocks_in_place(op, false, passed), Leaving::Nothing);
        };
        let mut before = self.block(before);
        let mut after = self.block(after);
        let mut flags = before.flags;
        flags.join(after.flags);
        let mut both = before.passed.clone();
        both.join(&after.passed);
        let leaving = self.may_leave(op, &before, flags, &both);
        // Each region is repeated: an exposure anywhere in the loop may
        // follow a branch's fence in either.
        after.flags.exposure |= flags.exposure;
        before.flags.exposure |= flags.exposure;
        flags.join(self.keep(&mut after));
        if leaving {
            passed.join(&before.passed);
            passed.join(&after.passed);
            return (flags, Leaving::Always(self.take_out(&mut before)));
        }
        flags.join(self.keep(&mut before));
        passed.join(&before.passed);
        passed.join(&after.passed);
        (flags, Leaving::Nothing)
    }

    /// T4: the markers both branches end with leave the `scf.if` as one;
    /// the rest stay at the end of their branch, where a fence becomes
    /// tentative (a later fence before any exposure makes it useless).
    fn scf_if(&mut self, op: OperationRef<'c, 'a>, passed: &mut Passed<'c, 'a>) -> (Flags, Leaving<'c, 'a>) {
        // Both branches are walked before either places what it carries
        // (what leaves needs both); each keeps its tentative fences apart
        // meanwhile, so that a fence placed in one never erases the other's.
        let mut branch = |block| {
            let walk = self.block(block);
            let tentative = self.tentative.split_off(walk.mark);
            (walk, tentative)
        };
        let mut then = ir::first_block_of(op, 0).map(&mut branch);
        let mut otherwise = ir::first_block_of(op, 1).map(&mut branch);
        let mut flags = Flags::default();
        let mut common = Carry::default();
        if let (Some((then, _)), Some((otherwise, _))) = (&mut then, &mut otherwise) {
            common = then.carry.take_common(&mut otherwise.carry, &mut self.counts, self.eraser);
            self.counts.hoisted += common.ops().count() as u64;
            self.kept_for_a_fence |= then.carry.shares_an_invalidate(&otherwise.carry);
        }
        for (walk, tentative) in [then.as_mut(), otherwise.as_mut()].into_iter().flatten() {
            walk.mark = self.tentative.len();
            self.tentative.append(tentative);
            // The branch ends where the op does: its fence is needed only
            // if no fence of the parent comes before the next exposure.
            if let Some(fence) = self.place_all(walk) {
                self.tentative.push(fence);
            }
            flags.join(walk.flags);
            passed.join(&walk.passed);
        }
        let leaving = if common.is_empty() { Leaving::Nothing } else { Leaving::Always(common) };
        (flags, leaving)
    }

    // -- taking markers out ------------------------------------------------

    /// Whether what `walk` (a loop body, or a while's `before` region)
    /// carries at its end may leave the loop, whose ops do `flags`: what
    /// the loop does would not stop it in one block (nothing exposes data
    /// if it publishes, so that no iteration needs it before a later one
    /// does; nothing reads GM if a whole-GM invalidate leaves; nothing
    /// writes if an invalidate leaves without a fence), and every
    /// invalidated value is defined outside the block (so it still names
    /// something after the loop).
    ///
    /// And nothing in the loop (`passed`: its ops, every iteration's) may
    /// stop it either (`stop`): a fence does not leave a loop a pair of
    /// overlapping writes spans the back edge of (a pair in one iteration
    /// has its fence placed in the body; one with a write before the loop,
    /// before the loop), an invalidate one that
    /// reads a line it drops, writes what its write-back may overlap, or,
    /// without the fence, runs a fence.
    fn may_leave(
        &self,
        loop_op: OperationRef<'c, 'a>,
        walk: &BlockWalk<'c, 'a>,
        flags: Flags,
        passed: &Passed<'c, 'a>,
    ) -> bool {
        let carry = &walk.carry;
        let know = self.know;
        let stopped = (carry.publishes() && flags.exposure)
            || (carry.whole.is_some() && flags.read)
            || (carry.has_invalidates() && carry.fence.is_none() && flags.local_write)
            || (carry.fence.is_some() && know.carried.contains(&ir::OpKey::of(loop_op)))
            || (carry.fence.is_some() && self.wraps_unfenced(loop_op, walk))
            || (carry.has_invalidates() && carry.fence.is_none() && passed.fence)
            || carry.invalidates().any(|marker| {
                self.writes_back_a_plain_write(marker, passed)
                    || passed.reads.iter().any(|r| know.drops_line_of(marker, *r))
                    || passed.writes.iter().any(|w| know.write_back_meets(marker, *w))
            });
        !carry.is_empty()
            && !stopped
            && carry
                .regions
                .iter()
                .all(|(_, op)| ir::owner_block(ir::operand(*op, 0)).is_none_or(|defined_in| defined_in != walk.block))
    }

    /// Whether a pair of overlapping writes that meet around the back
    /// edge of loop `loop_op`, whose body `walk` walked (`Knowledge::wrapped`),
    /// has no fence placed in the body between them: none after the
    /// earlier write's op (to the body's end), none before the later's
    /// (a fence placed in the body runs on every iteration, so one of
    /// them is on every path from the one to the other). The fence the
    /// body carries at its end is then the one between them, and stays.
    /// (The carried fence is still where the walk met it: it does not
    /// count.)
    fn wraps_unfenced(&self, loop_op: OperationRef<'c, 'a>, walk: &BlockWalk<'c, 'a>) -> bool {
        let key = ir::OpKey::of(loop_op);
        if !self.know.wrapped.iter().any(|(construct, _, _)| *construct == key) {
            return false;
        }
        let carried = walk.carry.fence.map(ir::OpKey::of);
        let mut position: rustc_hash::FxHashMap<ir::OpKey, usize> = rustc_hash::FxHashMap::default();
        let mut fences: Vec<usize> = Vec::new();
        for (index, op) in ir::ops(walk.block).enumerate() {
            if ir::is_fence(self.names, op) && Some(ir::OpKey::of(op)) != carried {
                fences.push(index);
            }
            position.insert(ir::OpKey::of(op), index);
            ir::walk_nested(op, |inner| {
                position.insert(ir::OpKey::of(inner), index);
                ir::Walk::Advance
            });
        }
        self.know.wrapped.iter().filter(|(construct, _, _)| *construct == key).any(|(_, first, second)| {
            // Not in this block (a write before the loop, the other region
            // of an scf.while, any write): no fence of the block is known
            // to be between them.
            let (Some(&earlier), Some(&later)) = (first.and_then(|first| position.get(&first)), position.get(second))
            else {
                return true;
            };
            !fences.iter().any(|&fence| fence > earlier || fence < later)
        })
    }

    /// Takes what `walk` carries out of its block. The fences a branch
    /// inside left tentative stay so: if the carry has a fence, it is
    /// placed after them with no exposure between, so they go now.
    fn take_out(&mut self, walk: &mut BlockWalk<'c, 'a>) -> Carry<'c, 'a> {
        let carry = std::mem::take(&mut walk.carry);
        if carry.fence.is_some() {
            self.drop_tentative(walk.mark);
        }
        self.counts.hoisted += carry.ops().count() as u64;
        carry
    }

    /// Places what a repeated block's walk carries before its terminator;
    /// the block's flags after that. When the block exposes, the next
    /// iteration needs the fences of its branches: they stop being
    /// tentative.
    fn keep(&mut self, walk: &mut BlockWalk<'c, 'a>) -> Flags {
        self.place_all(walk);
        if walk.flags.exposure {
            self.tentative.truncate(walk.mark);
        }
        walk.flags
    }

    /// Places `carry`, which left loop `op` that may run zero times, right
    /// after it in a trip guard (an `scf.if` that runs when the loop ran),
    /// leaving out what the parent carries past the loop anyway.
    fn guard(&mut self, walk: &mut BlockWalk<'c, 'a>, op: OperationRef<'c, 'a>, carry: Carry<'c, 'a>) {
        let mut guarded = Carry::default();
        for (kind, marker) in carry.into_items() {
            if walk.carry.covers(kind) {
                merge(marker, &mut self.counts, self.eraser);
            } else {
                guarded.add(marker, kind, &mut self.counts, self.eraser);
            }
        }
        if guarded.is_empty() {
            return;
        }
        // The loop's guard may be there already (a later run of the
        // pipeline: the insert pass put markers back into the loop body).
        // Then they join what it holds: the walk meets it next.
        if let Some(then) = self.existing_guard(op) {
            let mut start = BlockWalk::new(then, self.tentative.len(), guarded);
            for (_, marker) in std::mem::take(&mut start.carry).into_items() {
                self.place(&mut start, marker);
            }
            return;
        }
        let then = trip_guard::build(self.names, op);
        self.counts.guards += 1;
        let guard_op = then.parent_operation().expect("a guard's block is in the guard");
        let mut inside = BlockWalk::new(then, self.tentative.len(), guarded);
        // The guard ends where the loop does, as a branch would.
        if let Some(fence) = self.place_all(&mut inside) {
            self.tentative.push(fence);
        }
        walk.unfenced |= inside.flags.in_flight;
        walk.flags.join(inside.flags);
        walk.set_anchor(guard_op);
    }

    /// The then-block of the trip guard of loop `op` when it is the first
    /// op after the loop that is not side-effect-free (its comparison may
    /// come between).
    fn existing_guard(&self, op: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
        let next = std::iter::successors(op.next_in_block(), |o| o.next_in_block())
            .find(|o| !matches!(effects::of(self.names, *o), Effect::Pure { .. }))?;
        if !trip_guard::is_trip_guard(self.names, next, op) {
            return None;
        }
        ir::first_block_of(next, 0)
    }

    // -- placing -----------------------------------------------------------

    /// Places every carried marker after the walk's anchor: the
    /// invalidates, then the fence unless nothing can be in flight (T5);
    /// a placed fence makes the tentative fences above the walk's mark
    /// useless.
    /// Returns the fence it placed.
    fn place_all(&mut self, walk: &mut BlockWalk<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
        self.place_invalidates(walk);
        let fence = walk.carry.fence.take()?;
        if !walk.unfenced {
            self.eraser.erase(fence);
            self.counts.dropped += 1;
            return None;
        }
        self.place(walk, fence);
        walk.unfenced = false;
        self.drop_tentative(walk.mark);
        Some(fence)
    }

    fn place_invalidates(&mut self, walk: &mut BlockWalk<'c, 'a>) {
        // Region invalidates stay after the views they name.
        let mut regions = std::mem::take(&mut walk.carry.regions);
        for (_, op) in &regions {
            walk.stay_after_definition(ir::operand(*op, 0));
        }
        // In the order their targets are defined (not the order they were
        // picked up, which a later run of the pipeline changes: the
        // insert pass puts markers back after each store).
        regions.sort_by(|(_, a), (_, b)| definition_order(ir::operand(*a, 0), ir::operand(*b, 0)));
        for (_, op) in regions {
            self.place(walk, op);
        }
        if let Some(whole) = walk.carry.whole.take() {
            self.place(walk, whole);
        }
    }

    /// Moves marker `op` right after the walk's anchor, which it becomes.
    fn place(&mut self, walk: &mut BlockWalk<'c, 'a>, op: OperationRef<'c, 'a>) {
        if ir::move_to(op, walk.anchor, walk.block) {
            self.counts.moved += 1;
        }
        if ir::is_fence(self.names, op) {
            walk.passed.fence = true;
        } else {
            // (Not `op.operand(0)`: on a whole-GM invalidate, melior prints
            // the op into its error, and printing verifies the module that
            // other threads are changing.)
            walk.clean.push((op.operand_count() > 0).then(|| ir::ValueKey::of(ir::operand(op, 0))));
            // An invalidate starts write-backs; one that may overlap a
            // write in flight is where a fence carried past this block
            // must stop.
            walk.unfenced = true;
            walk.flags.in_flight = true;
            walk.passed.writes.push(op);
            walk.passed.conflict |= self.know.conflicting.contains(&ir::OpKey::of(op));
        }
        walk.set_anchor(op);
    }

    /// Before markers that left an op with regions join what the block
    /// carries (or go into a trip guard after it): an invalidate among
    /// them whose write-back may overlap a write in flight, and that the
    /// block's carry does not cover, has the block's fence (and what comes
    /// with it) placed before it.
    fn before_leaving(&mut self, walk: &mut BlockWalk<'c, 'a>, leaving: &Carry<'c, 'a>) {
        let conflicting = leaving
            .regions
            .iter()
            .map(|(value, op)| (Kind::Region(*value), *op))
            .chain(leaving.whole.map(|op| (Kind::Whole, op)))
            .any(|(kind, op)| self.know.conflicting.contains(&ir::OpKey::of(op)) && !walk.carry.covers(kind));
        if conflicting {
            if walk.carry.fence.is_some() {
                self.place_all(walk);
            }
            self.tentative.truncate(walk.mark);
        }
    }

    /// Erases the tentative fences above `mark`: a fence placed after them,
    /// with no exposure between, does their work.
    fn drop_tentative(&mut self, mark: usize) {
        for fence in self.tentative.drain(mark..) {
            self.eraser.erase(fence);
            self.counts.dropped += 1;
            self.erased_tentative = true;
        }
    }
}

impl<'c, 'a> BlockWalk<'c, 'a> {
    /// A walk at the start of `block`, carrying `carry`.
    fn new(block: BlockRef<'c, 'a>, mark: usize, carry: Carry<'c, 'a>) -> Self {
        BlockWalk {
            block,
            anchor: None,
            passed: Passed::default(),
            last_loop: None,
            clean: SmallVec::new(),
            unfenced: true,
            mark,
            waited: None,
            flags: Flags::default(),
            carry,
        }
    }

    /// Moves the anchor to the op defining `value` if that op is in this
    /// block after the anchor (a view, an `arith.select`, anything the
    /// walk passed as side-effect-free): a marker naming `value` must stay
    /// after its definition.
    fn stay_after_definition(&mut self, value: melior::ir::Value<'c, 'a>) {
        let Some(def) = ir::defining_op(value) else { return };
        if def.block() != Some(self.block) {
            return;
        }
        if self.anchor.is_none_or(|anchor| anchor != def && anchor.is_before_in_block(def)) {
            self.anchor = Some(def);
            self.waited = None;
        }
    }

    /// Markers now stay after `op`, the last op passed.
    fn set_anchor(&mut self, op: OperationRef<'c, 'a>) {
        self.anchor = Some(op);
        self.waited = None;
    }
}

/// The order of two values by where they are defined, when they are in one
/// block (arguments first, by number, then results by their ops' order);
/// `Equal` otherwise (a stable sort keeps the order it had).
fn definition_order(a: melior::ir::Value<'_, '_>, b: melior::ir::Value<'_, '_>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (Some(block_a), Some(block_b)) = (ir::owner_block(a), ir::owner_block(b)) else { return Ordering::Equal };
    if block_a != block_b || ir::ValueKey::of(a) == ir::ValueKey::of(b) {
        return Ordering::Equal;
    }
    let argument = |v: melior::ir::Value<'_, '_>| {
        (0..block_a.argument_count()).find(|&i| ir::ValueKey::of(ir::block_argument(block_a, i)) == ir::ValueKey::of(v))
    };
    match (ir::defining_op(a), ir::defining_op(b)) {
        (None, None) => argument(a).cmp(&argument(b)),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) if x == y => Ordering::Equal,
        (Some(x), Some(y)) => {
            if x.is_before_in_block(y) {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
    }
}

/// What leaves an op with regions.
enum Leaving<'c, 'a> {
    Nothing,
    /// Runs whenever the op has run: joins the parent's carry after it.
    Always(Carry<'c, 'a>),
    /// Runs only if the loop ran at least once: a trip guard after it.
    Guarded(Carry<'c, 'a>),
}

/// Whether `scf.parallel` op runs at least once by its constant bounds.
fn parallel_runs(names: &Interned, op: OperationRef<'_, '_>) -> bool {
    let (Some(lower), Some(upper)) = (ir::operand_segment(op, 0), ir::operand_segment(op, 1)) else {
        return false;
    };
    lower.len() == upper.len()
        && lower.zip(upper).all(|(l, u)| {
            match (ir::constant_int(names, ir::operand(op, l)), ir::constant_int(names, ir::operand(op, u))) {
                (Some(l), Some(u)) => l < u,
                _ => false,
            }
        })
}
