//! The scheduler's view of a state: what each thread rests at, which steps
//! are enabled (a step, a landing, a collective), and the transition that
//! takes one and lets every thread it woke run eagerly to its next
//! observable step (the local-step reduction).

use super::cache::count_down;
use super::footprint::{Part, Touch};
use super::*;

/// The most elements a read may touch and still be tried as a local step.
const LOCAL_READ_ELEMENTS: i64 = 1 << 16;

impl Machine {
    /// Every action possible in `state`, in a fixed order.
    pub fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        if state.finding.is_some() {
            return;
        }
        for t in 0..state.threads.len() as ThreadId {
            if self.running(state, t) && self.enabled(state, t) || self.joinable(state, t) {
                actions.push(Action::Step(t));
            }
        }
        for (t, queue) in state.inflight.iter().enumerate() {
            for u in 0..queue.len() {
                actions.push(Action::Land(t as ThreadId, u as u16));
            }
        }
        if self.collective_ready(state) {
            actions.push(Action::Collective);
        }
    }

    /// Whether `t` is running. A thread found resting is: its status is
    /// not read.
    fn running(&self, state: &State, t: ThreadId) -> bool {
        matches!(state.rests.0.get(t as usize), Some(Some(_))) || state.threads[t as usize].status == Status::Running
    }

    /// No finding yet, no action, and not finished.
    pub fn deadlocked(&self, state: &State) -> bool {
        if state.finding.is_some() || self.finished(state) {
            return false;
        }
        let mut actions = Vec::new();
        self.actions(state, &mut actions);
        actions.is_empty()
    }

    /// Every thread has finished (and nothing is in flight).
    pub fn finished(&self, state: &State) -> bool {
        state.threads.iter().all(|t| matches!(t.status, Status::Done | Status::Idle))
            && state.inflight.iter().all(Vec::is_empty)
    }

    /// The ccl op `t` rests at, if any (what reports name a step by).
    pub fn site_at(&self, state: &State, t: ThreadId) -> Option<SiteId> {
        match self.instr(state, t) {
            Some(Instr::Ccl { site, .. }) => Some(*site),
            _ => None,
        }
    }

    pub(super) fn instr<'p>(&'p self, state: &State, t: ThreadId) -> Option<&'p Instr> {
        let frame = state.threads[t as usize].frames.last()?;
        self.program.funcs[frame.func as usize].code.get(frame.pc as usize)
    }

    pub(super) fn enabled(&self, state: &State, t: ThreadId) -> bool {
        match state.rests.0.get(t as usize) {
            Some(Some(Rest::Notify)) => return true,
            Some(Some(Rest::Wait(wait))) => return self.wait_holds(state, *wait),
            _ => {}
        }
        if let Some(wait) = self.wait_at(state, t) {
            return self.wait_holds(state, wait);
        }
        match self.instr(state, t) {
            Some(Instr::Ccl { op, .. }) => match op {
                // A wait with a bad operand or an empty view: the step
                // reports it.
                CclOp::Wait { .. } => true,
                CclOp::Fence => state.inflight[t as usize].is_empty(),
                // A host runs a collective with every other host (the
                // Collective action); a block stepping one reports the
                // error of `ccl` instead of waiting for ever.
                op if op.is_collective() => self.slot_of(t) != 0,
                _ => true,
            },
            Some(_) => true,
            None => false,
        }
    }

    /// The wait `t` rests at, from the memo or its registers; `None` if
    /// `t` is not at a `ccl.wait` or its operands are bad.
    pub(super) fn wait_at(&self, state: &State, t: ThreadId) -> Option<WaitAt> {
        if let Some(Some(Rest::Wait(wait))) = state.rests.0.get(t as usize) {
            return Some(*wait);
        }
        let Some(Instr::Ccl { op: CclOp::Wait { signal, expected, equal }, .. }) = self.instr(state, t) else {
            return None;
        };
        let frame = state.threads[t as usize].frames.last().unwrap();
        let (Val::MemRef(view), Some(expected)) =
            (&frame.regs[*signal as usize], frame.regs[*expected as usize].as_int())
        else {
            return None;
        };
        let first = view.first()?;
        Some(WaitAt {
            loc: Loc { rank: self.rank_of(t), buffer: view.buffer, index: first as u32 },
            expected,
            equal: *equal,
        })
    }

    /// Whether a wait's condition holds (a cell that does not exist: the
    /// step reports it).
    pub(super) fn wait_holds(&self, state: &State, wait: WaitAt) -> bool {
        let loc = wait.loc;
        let Some(cell) = state.buffers[loc.buffer as usize].ranks[loc.rank as usize].get(loc.index as usize) else {
            return true;
        };
        let current = cell.bits as i64;
        if wait.equal {
            current == wait.expected
        } else {
            current >= wait.expected
        }
    }

    /// Whether a `ge` wait whose operands `wait_at` could not read rests:
    /// a signal that is not a memref or an empty view is a scheduling
    /// point; an expected value that is not an integer rests only where
    /// waits are not taken eagerly (the step reports it).
    pub(super) fn bad_wait_rests(&self, state: &State, t: ThreadId) -> bool {
        let Some(Instr::Ccl { op: CclOp::Wait { signal, .. }, .. }) = self.instr(state, t) else { return true };
        let frame = state.threads[t as usize].frames.last().unwrap();
        let Val::MemRef(view) = &frame.regs[*signal as usize] else { return true };
        view.first().is_none() || !self.eager_waits()
    }

    /// Whether a `ge` wait is taken as soon as it holds: with eager
    /// wake-ups, unless the rule is off (`early_waits`; docs/ccl-sim.md,
    /// "Waits taken as soon as they hold").
    pub(super) fn eager_waits(&self) -> bool {
        self.eager_wakeups && !self.no_reduction && self.early_waits
    }

    /// Another thread than the one that passed a wait on `loc` early lowers
    /// or overwrites it (`by` the writer; `None`: a write with no thread of
    /// its own, a landing or a collective): the rule's condition failed on
    /// some schedule. The schedule ends with no conclusion, and the search
    /// is run again without the rule (`crate::run`).
    pub(super) fn lowered(&self, state: &State, loc: Loc, by: Option<ThreadId>, site: SiteId) -> Result<(), Fail> {
        let passed = state.passed_early.range((loc, 0)..=(loc, ThreadId::MAX)).any(|(_, t)| Some(*t) != by);
        if passed {
            self.early_waits_broken.store(true, std::sync::atomic::Ordering::Relaxed);
            return Err(limit(
                Some(site),
                "a cell a wait passed on as soon as it held went down again: waits are taken as they come instead",
            ));
        }
        Ok(())
    }

    /// Forgets what every thread rests at: a launch, a join or a
    /// collective changes other threads' frames.
    pub(super) fn forget_rests(state: &mut State) {
        state.rests.0.iter_mut().for_each(|rest| *rest = None);
    }

    /// Whether `t` rests, by what it was found resting at (`None`: not
    /// known, ask `rests_at`). A notify always rests; a wait as in
    /// `rests_at`.
    pub(super) fn rests_as_before(&self, state: &State, t: ThreadId) -> Option<bool> {
        match state.rests.0.get(t as usize)? {
            Some(Rest::Notify) => Some(true),
            Some(Rest::Wait(wait)) if wait.equal || !self.eager_waits() => Some(true),
            Some(Rest::Wait(wait)) => Some(!self.wait_holds(state, *wait)),
            None => None,
        }
    }

    /// Whether settling `t` after a step may run it: it is running and not
    /// known to rest. A thread at a notify or an `eq` wait rests until it
    /// steps; at a `ge` wait, until its cell is written (every pass leaves
    /// it resting, and nothing but a notify or a landing writes a cell
    /// between two passes: an allocation or a deallocation forgets what
    /// every thread rests at).
    fn may_move(&self, state: &State, t: ThreadId) -> bool {
        match state.rests.0.get(t as usize) {
            Some(Some(Rest::Notify)) => false,
            Some(Some(Rest::Wait(wait))) if wait.equal || !self.eager_waits() => false,
            Some(Some(Rest::Wait(wait))) => state.signalled.0.contains(&wait.loc),
            // A thread found resting is running (what it rests at is
            // forgotten when its status changes); this one is not known.
            _ => state.threads[t as usize].status == Status::Running,
        }
    }

    /// What `t` waits for, if it cannot take a step (a deadlock's report
    /// names it): a wait and the value its cell holds, a collective, or its
    /// launch's end.
    pub fn blocked(&self, state: &State, t: ThreadId) -> Option<Blocked> {
        let thread = &state.threads[t as usize];
        match thread.status {
            Status::Joining { first, count } if !self.launch_complete(state, first, count) => {
                Some(Blocked::Launch { first, count })
            }
            Status::Running if !self.enabled(state, t) => {
                if let Some(wait) = self.wait_at(state, t) {
                    let value = state.buffers[wait.loc.buffer as usize].ranks[wait.loc.rank as usize]
                        .get(wait.loc.index as usize)
                        .map(|cell| cell.bits as i64);
                    return Some(Blocked::Wait { wait, value });
                }
                match self.instr(state, t) {
                    Some(Instr::Ccl { op, .. }) if op.is_collective() => Some(Blocked::Collective),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether a notify of the program may write `buffer`
    /// (`analysis::Facts::may_signal`, by where the buffer comes from).
    pub fn signal_may_be_written(&self, state: &State, buffer: u32) -> bool {
        state.buffers[buffer as usize].signal
    }

    /// The call a joining host launched its blocks from.
    pub fn launch_site(&self, state: &State, t: ThreadId) -> Option<SiteId> {
        let frame = state.threads[t as usize].frames.last()?;
        self.program.funcs[frame.func as usize].sites.get((frame.pc as usize).checked_sub(1)?).copied()
    }

    /// The cell of the wait `t` rests at, if it does not hold there (the
    /// dynamic search then reads it without taking a step:
    /// `explore::dpor::races`).
    pub fn failing_wait_at(&self, state: &State, t: ThreadId) -> Option<Loc> {
        if !self.running(state, t) {
            return None;
        }
        let wait = self.wait_at(state, t)?;
        (!self.wait_holds(state, wait)).then_some(wait.loc)
    }

    /// The cell of the `ge` wait `t` rests at, if it rests at one.
    pub fn ge_wait_at(&self, state: &State, t: ThreadId) -> Option<Loc> {
        let wait = self.wait_at(state, t)?;
        (!wait.equal).then_some(wait.loc)
    }

    pub(super) fn collective_ready(&self, state: &State) -> bool {
        (0..self.ranks).all(|rank| {
            let host = self.host_of(rank);
            state.threads[host as usize].status == Status::Running
                && matches!(self.instr(state, host), Some(Instr::Ccl { op, .. }) if op.is_collective())
        })
    }

    /// The state after `action`; a finding (race, error) ends the schedule.
    pub fn next(&self, state: &State, action: Action) -> State {
        let mut next = state.clone();
        self.apply(&mut next, action);
        next
    }

    /// Takes `action` in `next` itself (a search that keeps no earlier
    /// state saves the copy).
    pub fn apply(&self, next: &mut State, action: Action) {
        let result = match action {
            Action::Step(t) if self.joinable(next, t) => {
                let ready = self.join_step(next, t);
                self.settle(next, ready)
            }
            Action::Step(t) => {
                self.touch(Part::Thread(t), Touch::Write);
                self.step(next, t).and_then(|mut ready| {
                    ready.push(t);
                    self.settle(next, ready)
                })
            }
            Action::Land(t, u) => {
                let unit = next.inflight[t as usize].remove(u as usize);
                self.touch(Part::Queue(t), Touch::Add);
                if self.footprint.is_some() {
                    self.touch(Part::Unit(record::unit_key(&unit)), Touch::Write);
                }
                for (loc, _) in &unit.writes {
                    self.touch(Part::Elem(*loc), Touch::Write);
                    self.touch(Part::Meta(*loc), Touch::Add);
                }
                self.note(next, t, Some(unit.site), || EventKind::Land {
                    unit: record::unit_key(&unit),
                    writes: unit.writes.len(),
                });
                for (loc, _) in &unit.writes {
                    count_down(&mut next.inflight_index.0, *loc);
                }
                next.signalled.0.extend(unit.writes.iter().map(|(loc, _)| *loc));
                let mut landed = Ok(());
                for (loc, cell) in unit.writes {
                    if landed.is_err() {
                        break;
                    }
                    landed = self.lowered(next, loc, None, unit.site);
                    match Shared::make_mut(&mut next.buffers[loc.buffer as usize].ranks[loc.rank as usize])
                        .get_mut(loc.index as usize)
                    {
                        Some(slot) => *slot = cell,
                        None => {
                            landed = Err(fail(
                                Some(unit.site),
                                format!(
                                    "a write in flight landed in rank {}'s copy of a buffer it deallocated",
                                    loc.rank
                                ),
                            ))
                        }
                    }
                }
                // A fence waiting for this queue may proceed now: it is a
                // step of its own (enabled), nothing to settle. The last
                // landing of a finished launch completes it: with eager
                // wake-ups its host joins now and runs on.
                let host = self.host_of(self.rank_of(t));
                landed.and_then(|()| match self.eager_wakeups && self.slot_of(t) != 0 {
                    true => match self.joining(next, host) {
                        Some((first, count)) => {
                            let ready = self.join(next, host, first, count);
                            self.settle(next, ready)
                        }
                        None => Ok(()),
                    },
                    false => Ok(()),
                })
            }
            Action::Collective => {
                for rank in 0..self.ranks {
                    self.touch(Part::Thread(self.host_of(rank)), Touch::Write);
                }
                let site = self.site_at(next, 0);
                let result = self.collective(next).and_then(|ready| self.settle(next, ready));
                match site {
                    Some(site) => result.map_err(|f| f.located(site)),
                    None => result,
                }
            }
        };
        // Whatever became local (a wait now enabled, a fence whose writes
        // landed, a read whose location went quiet) runs now.
        let result = result.and_then(|()| {
            if !self.eager_wakeups {
                return Ok(());
            }
            let running: Vec<ThreadId> =
                (0..next.threads.len() as ThreadId).filter(|t| self.may_move(next, *t)).collect();
            self.settle(next, running)
        });
        next.signalled.0.clear();
        if let Err(finding) = result {
            next.finding = Some(Arc::new(finding));
        }
    }

    // -----------------------------------------------------------------
    // Running threads
    // -----------------------------------------------------------------

    /// Runs each thread of `ready` (and every thread that becomes ready on
    /// the way) up to its next observable step.
    pub(super) fn settle(&self, state: &mut State, mut ready: Vec<ThreadId>) -> Result<(), Fail> {
        while let Some(t) = ready.pop() {
            let mut budget = self.limits.max_steps;
            loop {
                if state.threads[t as usize].status != Status::Running {
                    break;
                }
                if self.rests_as_before(state, t) == Some(true) {
                    break;
                }
                let Some(instr) = self.instr(state, t) else { break };
                if self.rests_at(state, t, instr) {
                    let rest = match instr {
                        Instr::Ccl { op: CclOp::Notify { .. }, .. } => Some(Rest::Notify),
                        Instr::Ccl { op: CclOp::Wait { .. }, .. } => self.wait_at(state, t).map(Rest::Wait),
                        _ => None,
                    };
                    let rests = &mut state.rests.0;
                    if rests.len() <= t as usize {
                        rests.resize(t as usize + 1, None);
                    }
                    rests[t as usize] = rest;
                    break;
                }
                if budget == 0 {
                    return Err(self.out_of_steps(state, t));
                }
                budget -= 1;
                let more = self.step(state, t)?;
                ready.extend(more);
            }
        }
        Ok(())
    }

    /// The limit `t` reached: `--max-steps` local steps in a row, named by
    /// the loop it was in (or the op it was at).
    pub(super) fn out_of_steps(&self, state: &State, t: ThreadId) -> Fail {
        let frame = state.threads[t as usize].frames.last().expect("a running thread has a frame");
        let func = &self.program.funcs[frame.func as usize];
        let max = self.limits.max_steps;
        let who = self.thread_name(t);
        match func.loop_at(frame.pc) {
            Some(span) => limit(
                Some(span.site),
                format!(
                    "{who} ran {max} steps in this '{}' without one another thread can observe (--max-steps {max}): no conclusion",
                    self.program.site(span.site).op
                ),
            ),
            None => limit(
                func.sites.get(frame.pc as usize).copied(),
                format!("{who} ran {max} steps without one another thread can observe (--max-steps {max}): no conclusion"),
            ),
        }
    }

    /// Whether `t` stops before `instr` (a step other threads can observe).
    pub(super) fn rests_at(&self, state: &State, t: ThreadId, instr: &Instr) -> bool {
        let Instr::Ccl { op, .. } = instr else { return false };
        if self.no_reduction {
            return true;
        }
        let frame = state.threads[t as usize].frames.last().unwrap();
        let rank = self.rank_of(t);
        let hits = |view: &Val, rank: u16, positions: std::ops::Range<i64>| -> bool {
            let mut positions = positions;
            // Too many elements to look at: a scheduling point (always sound).
            if positions.end - positions.start > LOCAL_READ_ELEMENTS {
                return false;
            }
            let Val::MemRef(view) = view else { return false };
            positions
                .all(|n| self.read_is_local(state, t, Loc { rank, buffer: view.buffer, index: view.nth(n) as u32 }))
        };
        match op {
            CclOp::TileStore { .. }
            | CclOp::TensorWrite { .. }
            | CclOp::RemoteStore { .. }
            | CclOp::CacheInvalid { .. } => false,
            // Without eager wake-ups a fence is a step of its own, enabled on
            // an empty queue: the step that reaches it does not look at the
            // queue, so it commutes with the landings.
            CclOp::Fence if !self.eager_wakeups => true,
            CclOp::Fence => !state.inflight[t as usize].is_empty(),
            CclOp::Put { src, .. } => {
                let v = &frame.regs[*src as usize];
                let len = match v {
                    Val::MemRef(view) => view.len(),
                    _ => return true,
                };
                !hits(v, rank, 0..len)
            }
            CclOp::Get { src, peer, .. } | CclOp::RemoteLoad { src, peer, .. } => {
                let v = &frame.regs[*src as usize];
                let (Val::MemRef(view), Some(peer)) = (v, frame.regs[*peer as usize].as_int()) else { return true };
                if peer < 0 || peer >= self.ranks as i64 {
                    return true;
                }
                !hits(v, peer as u16, 0..view.len())
            }
            CclOp::Read { src, indices, .. } | CclOp::TileLoad { src, indices, .. } => {
                let len = match op {
                    CclOp::TileLoad { len, .. } => *len as i64,
                    _ => 1,
                };
                let v = &frame.regs[*src as usize];
                let Val::MemRef(view) = v else { return true };
                let idx: Option<Vec<i64>> = indices.iter().map(|i| frame.regs[*i as usize].as_int()).collect();
                let Some(start) = idx.and_then(|idx| view.position(&idx)) else { return true };
                if start.checked_add(len).is_none_or(|end| end > view.len()) {
                    return true;
                }
                !hits(v, rank, start..start + len)
            }
            // Without eager wake-ups a wait is a step of its own thread:
            // coming to rest at it does not read the cell.
            CclOp::Wait { .. } if !self.eager_wakeups => true,
            // A `ge` wait on a cell only ever added to runs as soon as it is
            // enabled: the cell's clock only grows, so the earliest wait
            // acquires the least happens-before, and any race of a later
            // wait is a race of this one too.
            CclOp::Wait { equal: false, .. } if !self.eager_waits() => true,
            CclOp::Wait { equal: false, .. } => match self.wait_at(state, t) {
                Some(wait) => {
                    self.touch(Part::Elem(wait.loc), Touch::Read);
                    !self.wait_holds(state, wait)
                }
                // A bad operand: the step reports it, unless the view is
                // not a memref or empty (then a scheduling point, as ever).
                None => self.bad_wait_rests(state, t),
            },
            _ => true,
        }
    }

    /// Whether a read of `loc` by `t` commutes with every other thread's
    /// steps: it hits `t`'s cache, it returns `t`'s own write still in
    /// flight, or `loc` is quiet (no write to it in flight, no dirty line
    /// of it in another cache). A write to a quiet
    /// location that some other thread issues later cannot happen before
    /// this read (the read's thread has passed every wait it depends on), so
    /// reading now or after it finds the same races; nothing else changes
    /// memory under a running block (a collective needs its host, which is
    /// joining the launch).
    pub(super) fn read_is_local(&self, state: &State, t: ThreadId, loc: Loc) -> bool {
        // `t`'s own newest write not landed: a dirty line returns the same
        // whenever the read runs; a write in flight does not (once it lands
        // the read returns the line or memory, and keeps a line).
        if let Some((_, in_flight)) = self.own_unlanded(state, t, loc) {
            return !in_flight;
        }
        // A hit: only `t` changes its cache.
        if state.caches[t as usize].contains_key(&loc) {
            return true;
        }
        // A notify writes memory with nothing in flight: a read of a cell
        // one may write is never quiet.
        if state.buffers[loc.buffer as usize].signal {
            return false;
        }
        let in_flight = state.inflight_index.0.contains_key(&loc);
        // `t` has no line of `loc` (else it hit): any dirty one is another's.
        let dirty_elsewhere = state.dirty_index.0.contains_key(&loc);
        !in_flight && !dirty_elsewhere
    }
}
