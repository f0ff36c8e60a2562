//! A kernel's code: its episodes and the code around them (the
//! all_to_all_v's staging, reads of a collective's or an earlier kernel's
//! output, random markers), and the cells' values it leaves.

use super::shape::{Buf, Collective, Data, Fetch, Gen, Item, Kernel, Plan, Publish, Stmt, Thread, Value};
use super::Feature;

impl Gen {
    // -- kernels -------------------------------------------------------------

    /// Writes kernel `name`: `episodes` episodes, launched `rounds` times;
    /// `stages` (it runs before an all_to_all_v), `after` (a collective ran
    /// before a launch of it), `reads` (an earlier kernel's data).
    pub(super) fn kernel(
        &mut self,
        name: &str,
        rounds: usize,
        stages: bool,
        after: bool,
        reads: Option<(Vec<(Data, Value)>, usize)>,
    ) -> String {
        self.k =
            Kernel { rounds, bodies: (0..self.ranks * self.width).map(|_| Vec::new()).collect(), ..Kernel::default() };
        let threads = self.ranks as usize * self.width as usize;
        // Sized so that the unreduced search stays small: fewer episodes
        // where more blocks interleave or the kernel runs twice, or a
        // second kernel follows.
        let two_kernels = self.plan == Plan::Then;
        let episodes = match (rounds, threads, two_kernels) {
            (1, t, false) if t <= 2 => *self.rng.pick(&[2, 2, 3, 3, 4]),
            (1, t, true) if t <= 2 => *self.rng.pick(&[1, 2, 2, 3]),
            (1, _, false) => *self.rng.pick(&[1, 2, 2, 3]),
            (1, _, true) => *self.rng.pick(&[1, 1, 2]),
            (_, t, _) if t <= 2 => *self.rng.pick(&[1, 2, 2]),
            _ => *self.rng.pick(&[1, 1, 1, 2]),
        };
        let reads = match reads {
            Some((published, rounds)) => self.plan_reads(&published, rounds),
            None => Vec::new(),
        };
        for _ in 0..episodes {
            self.episode();
        }
        if stages && self.collective == Collective::AllToAllV {
            self.stage_all_to_all();
        }
        if after && self.rng.chance(80) {
            self.read_collective_output();
        }
        self.read_published(reads);
        if self.rng.chance(22) {
            self.random_markers();
        }
        self.render_kernel(name)
    }

    /// Appends `stmts` to `t`'s code.
    pub(super) fn push(&mut self, t: Thread, stmts: Vec<Stmt>) {
        let i = self.thread_index(t);
        self.k.bodies[i].extend(stmts);
    }

    /// After a kernel: the value each cell copy it used holds.
    pub(super) fn settle_cells(&mut self) {
        let rounds = self.k.rounds as i64;
        for (key, u) in &self.k.cells {
            let value = if u.closed { u.last_set + 1000 * (rounds - 1) } else { u.start + rounds * u.net };
            self.cell_values.insert(*key, value);
        }
    }

    // -- the parts around the episodes ---------------------------------------

    /// Every rank's block 0 stages what the all_to_all_v after the launch
    /// sends: one element to the next rank.
    fn stage_all_to_all(&mut self) {
        for rank in 0..self.ranks {
            let t = Thread { rank, block: 0 };
            let mut out = Vec::new();
            let ty = format!("memref<{}xi32, #ccl.window>", self.ranks);
            let one = self.c(1);
            out.push(Stmt::Op(format!("ccl.tensor_write %scnt[%nexti], {one} : {ty}, i32")));
            let base = self.fresh_value();
            let v = self.value(&mut out, base);
            out.push(Stmt::Op(format!("ccl.tensor_write %snd[%nexti], {v} : {ty}, i32")));
            self.feature(Feature::TensorWrite);
            self.push(t, out);
        }
    }

    /// A block reads what the collective before the launch wrote.
    fn read_collective_output(&mut self) {
        let threads = self.threads();
        let t = *self.rng.pick(&threads);
        let mut out = Vec::new();
        match self.collective {
            Collective::Barrier => return,
            Collective::AllReduce => {
                let len = self.buf_len(self.reduce_src);
                let e = self.rng.below(len);
                let e = self.ix(e);
                let ty = self.acc_ty();
                let r = self.name("sum");
                out.push(Stmt::Op(format!("{r} = ccl.read %acc[{e}] : {ty} -> i32")));
            }
            Collective::AllToAllV => {
                let (buf, ty) = if self.rng.chance(60) {
                    ("%rcv", format!("memref<{}xi32, #ccl.window>", self.ranks))
                } else {
                    ("%rcnt", format!("memref<{}xi32>", self.ranks))
                };
                let r = self.name("got");
                out.push(Stmt::Op(format!("{r} = ccl.read {buf}[%previ] : {ty} -> i32")));
            }
        }
        self.feature(Feature::Read);
        self.feature(Feature::ReadsCollectiveOutput);
        let i = self.thread_index(t);
        out.append(&mut self.k.bodies[i]);
        self.k.bodies[i] = out;
    }

    /// A block of a later kernel reads what an earlier one published.
    /// Chooses what a later kernel reads of an earlier one's data (before
    /// its episodes, which then leave those elements alone): the block,
    /// the data and the value the last launch wrote.
    fn plan_reads(&mut self, published: &[(Data, Value)], rounds: usize) -> Vec<(Thread, Data, Value)> {
        let mut reads = Vec::new();
        if published.is_empty() {
            return reads;
        }
        let threads = self.threads();
        for _ in 0..1 + self.rng.below(2) {
            let (d, v) = *self.rng.pick(published);
            let t = *self.rng.pick(&threads);
            if matches!(d.buf, Buf::Plain(_)) && d.rank != t.rank {
                continue;
            }
            for e in d.elem..d.elem + d.len {
                self.k.data_used.insert((d.buf, e, d.rank));
            }
            // What the last round wrote: this kernel runs once.
            reads.push((t, d, Value { base: v.base + 1000 * (rounds as i64 - 1), step: v.step }));
        }
        reads
    }

    /// The reads `plan_reads` chose, at the start of their blocks' code.
    fn read_published(&mut self, reads: Vec<(Thread, Data, Value)>) {
        for (t, d, value) in reads {
            let mut out = Vec::new();
            let fetch = if d.rank != t.rank {
                Fetch::RemoteLoad
            } else if self.rng.chance(70) {
                Fetch::Read
            } else {
                Fetch::TileLoad
            };
            let item = Item { data: d, publish: Publish::TensorWrite, fetch, looped: false };
            if matches!(d.buf, Buf::Plain(_)) {
                self.feature(Feature::PlainWriteReadElsewhere);
                self.hazards.insert("a plain buffer read by a later launch");
            }
            let read = self.fetch(t, &mut out, &item, value);
            self.feature(Feature::ReadsEarlierLaunch);
            self.use_value(t, &mut out, read);
            let i = self.thread_index(t);
            out.append(&mut self.k.bodies[i]);
            self.k.bodies[i] = out;
        }
    }

    /// 1 to 3 markers at random places of random blocks' code.
    fn random_markers(&mut self) {
        self.feature(Feature::MarkersAtRandom);
        for _ in 0..1 + self.rng.below(3) {
            let threads = self.threads();
            let t = *self.rng.pick(&threads);
            let i = self.thread_index(t);
            let at = self.rng.below(self.k.bodies[i].len() + 1);
            let marker = match self.rng.below(3) {
                0 => {
                    self.feature(Feature::Fence);
                    "ccl.fence".to_string()
                }
                1 => {
                    self.feature(Feature::WholeInvalidate);
                    "ccl.cacheinvalid".to_string()
                }
                _ => {
                    self.feature(Feature::RegionInvalidate);
                    let buf = if self.rng.chance(70) {
                        Buf::Win(self.rng.below(self.windows.len()))
                    } else {
                        Buf::Plain(self.rng.below(self.plains.len()))
                    };
                    format!("ccl.cacheinvalid {} : {}", self.buf_name(buf), self.buf_ty(buf))
                }
            };
            self.k.bodies[i].insert(at, Stmt::Op(marker));
        }
    }
}
