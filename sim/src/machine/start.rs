//! The initial state: every rank's host at the entry with its arguments,
//! the entry's buffers allocated on every rank, and new frames and
//! buffers as the program calls and allocates.

use super::*;

impl Machine {
    /// The initial state: entry arguments allocated and zero-filled on every
    /// rank (scalars zero unless set), every host at the entry function's
    /// first observable step.
    pub fn initial(&self) -> State {
        let threads_n = self.thread_count();
        let entry = &self.program.funcs[self.program.entry as usize];
        let mut state = State {
            threads: Vec::new(),
            buffers: Vec::new(),
            caches: Vec::new(),
            inflight: Vec::new(),
            inflight_index: Derived::default(),
            dirty_index: Derived::default(),
            signal_clocks: BTreeMap::new(),
            passed_early: Default::default(),
            allocations: BTreeMap::new(),
            alloc_counts: BTreeMap::new(),
            launch_counts: BTreeMap::new(),
            rests: Derived::default(),
            signalled: Derived::default(),
            finding: None,
            cost: Tally::default(),
        };
        // Every thread has a vector clock of every thread.
        let clocks = (threads_n as u64).pow(2).saturating_mul(4).saturating_add(threads_n as u64 * 256);
        if let Err(finding) = self.reserve(clocks, || format!("the state of {threads_n} threads")) {
            state.finding = Some(Arc::new(finding.located(entry.site)));
            return state;
        }
        state.threads = (0..threads_n)
            .map(|t| {
                let mut clock = vec![0; threads_n];
                clock[t] = 1;
                Shared::new(Thread {
                    status: Status::Idle,
                    frames: Vec::new(),
                    clock: Shared::new(clock),
                    launch: 0,
                    kernel: None,
                    writes: 0,
                })
            })
            .collect();
        state.caches = (0..threads_n).map(|_| Shared::new(BTreeMap::new())).collect();
        state.inflight = vec![Vec::new(); threads_n];
        match self.entry_arguments(&mut state) {
            Ok(args) => self.start(&mut state, &args),
            Err(finding) => state.finding = Some(Arc::new(finding.located(entry.site))),
        }
        state
    }

    /// The entry's arguments: memrefs allocated, scalars as set or zero.
    pub(super) fn entry_arguments(&self, state: &mut State) -> Result<Vec<Val>, Fail> {
        let entry = &self.program.funcs[self.program.entry as usize];
        let mut args = Vec::new();
        for (n, ty) in entry.param_types.iter().enumerate() {
            let set = self.entry_args.get(n).cloned().flatten();
            args.push(match ty {
                Ty::Scalar(s) => set.unwrap_or_else(|| Val::zero(*s)),
                Ty::Vector { element, len } => {
                    self.reserve(*len as u64 * 8, || format!("argument #{n} of @{}", entry.name))?;
                    Val::Vector(Arc::from(vec![Val::zero(*element).bits().unwrap(); *len]))
                }
                Ty::MemRef { element, shape } => {
                    let Some(shape) = shape.iter().copied().collect::<Option<Vec<i64>>>() else {
                        return Err(fail(
                            None,
                            format!(
                                "the entry @{} takes a memref of dynamic shape: ccl-sim needs static shapes",
                                entry.name
                            ),
                        ));
                    };
                    let what = format!("argument #{n} of @{}", entry.name);
                    let signal = self.facts.may_signal(crate::analysis::Root::Entry(n));
                    let id = self.new_buffer(state, *element, &shape, None, signal, &what)?;
                    Val::MemRef(Arc::new(View::whole(id, *element, &shape)))
                }
                Ty::Other(_) => Val::Undef,
            });
        }
        Ok(args)
    }

    /// Every host starts the entry (a kernel entry is launched).
    pub(super) fn start(&self, state: &mut State, args: &[Val]) {
        let entry = &self.program.funcs[self.program.entry as usize];
        for rank in 0..self.ranks {
            let host = self.host_of(rank);
            let result = if entry.kind == Kind::InCore {
                let width = entry.launch_width.unwrap_or(1);
                state.threads[host as usize].status = Status::Running;
                self.launch(state, host, self.program.entry, args, width, None)
            } else {
                let frame = self.frame(self.program.entry, args, Vec::new());
                let thread = &mut state.threads[host as usize];
                thread.frames.push(frame);
                thread.status = Status::Running;
                Ok(vec![host])
            };
            if let Err(finding) = result.and_then(|ready| self.settle(state, ready)) {
                state.finding = Some(Arc::new(finding.located(entry.site)));
                return;
            }
        }
    }

    /// The elements of a buffer of `shape`, checked before anything is
    /// allocated.
    pub(super) fn buffer_len(&self, shape: &[i64], what: &str) -> Result<u32, Fail> {
        value::element_count(shape).and_then(|len| u32::try_from(len).ok()).ok_or_else(|| {
            limit(
                None,
                format!(
                    "{what} has {} elements: ccl-sim holds at most {MAX_BUFFER_ELEMENTS} in one buffer: no conclusion",
                    shape.iter().map(i64::to_string).collect::<Vec<_>>().join(" x ")
                ),
            )
        })
    }

    /// A zero-filled copy of `len` elements, if memory allows.
    pub(super) fn new_copy(
        &self,
        element: Scalar,
        len: u32,
        copies: u64,
        what: &str,
    ) -> Result<Shared<Vec<Cell>>, Fail> {
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<Cell>() as u64).saturating_mul(copies);
        self.reserve(bytes, || what.to_string())?;
        let zero = Cell { bits: Val::zero(element).bits().unwrap(), writer: None };
        Ok(Shared::new(vec![zero; len as usize]))
    }

    /// A buffer of `shape`: on every rank (`rank` None, the entry's
    /// arguments), or on `rank` alone, the others' copies made as they run
    /// the same allocation.
    pub(super) fn new_buffer(
        &self,
        state: &mut State,
        element: Scalar,
        shape: &[i64],
        rank: Option<u16>,
        signal: bool,
        what: &str,
    ) -> Result<u32, Fail> {
        let len = self.buffer_len(shape, what)?;
        let id = u32::try_from(state.buffers.len())
            .map_err(|_| limit(None, format!("{what}: more than {} buffers: no conclusion", u32::MAX)))?;
        let buffer = match rank {
            // One copy shared by the ranks until one of them writes it.
            None => Buffer {
                element,
                ranks: vec![self.new_copy(element, len, self.ranks as u64, what)?; self.ranks as usize],
                copies: vec![Presence::Live; self.ranks as usize],
                len,
                shadow: vec![Shared::default(); self.ranks as usize],
                signal,
            },
            Some(rank) => {
                // The absent copies share one empty vector.
                let absent = Shared::new(Vec::new());
                let mut buffer = Buffer {
                    element,
                    ranks: vec![absent; self.ranks as usize],
                    copies: vec![Presence::Absent; self.ranks as usize],
                    len,
                    shadow: vec![Shared::default(); self.ranks as usize],
                    signal,
                };
                buffer.ranks[rank as usize] = self.new_copy(element, len, 1, what)?;
                buffer.copies[rank as usize] = Presence::Live;
                buffer
            }
        };
        state.buffers.push(Shared::new(buffer));
        Ok(id)
    }

    pub(super) fn frame(&self, func: FuncId, args: &[Val], results: Vec<Reg>) -> Frame {
        let f = &self.program.funcs[func as usize];
        let mut regs = vec![Val::Undef; f.registers as usize];
        for (param, arg) in f.params.iter().zip(args) {
            regs[*param as usize] = arg.clone();
        }
        Frame { func, pc: 0, regs, results }
    }

    // -----------------------------------------------------------------
    // Choices
    // -----------------------------------------------------------------
}
