//! The producer's side of an episode: what item it publishes and how
//! (`tensor_write`, `tile_store`, `get`, `remote_store`, `put`, a plain
//! write, a loop, a helper call), with the write-backs that put two writes
//! in flight.

use super::shape::{Buf, Data, Fetch, Gen, Item, Publish, Stmt, Thread, Value};
use super::Feature;

impl Gen {
    pub(super) fn choose_item(&mut self, x: Thread, y: Thread) -> Item {
        let same = x.rank == y.rank;
        // A method whose data has free elements; after a few tries (or, 3%
        // of the time, on purpose) elements another write of the kernel
        // uses: a hazard.
        let collide = self.rng.chance(3);
        let mut chosen = None;
        for attempt in 0..8 {
            let publish = if same {
                match self.rng.below(100) {
                    0..=29 => Publish::TensorWrite,
                    30..=54 => Publish::TileStore,
                    55..=64 => Publish::GetLocal,
                    65..=78 => Publish::Plain,
                    79..=89 => Publish::RemoteStore,
                    _ => Publish::Put,
                }
            } else {
                match self.rng.below(100) {
                    0..=21 => Publish::TensorWrite,
                    22..=37 => Publish::TileStore,
                    38..=45 => Publish::GetLocal,
                    46..=73 => Publish::RemoteStore,
                    _ => Publish::Put,
                }
            };
            let remote = matches!(publish, Publish::RemoteStore | Publish::Put);
            let home = if remote { y.rank } else { x.rank };
            let looped = matches!(publish, Publish::TensorWrite | Publish::RemoteStore) && self.rng.chance(18);
            let len = match publish {
                Publish::Plain => 1,
                Publish::TensorWrite if !looped => 1,
                _ if self.rng.chance(35) => 2,
                _ => 1,
            };
            let window = publish != Publish::Plain;
            let last = attempt == 7 || collide;
            let found = self
                .free_data(home, window, len)
                .or_else(|| (len > 1).then(|| self.free_data(home, window, 1)).flatten());
            let data = match found {
                Some(d) if !collide => d,
                _ if last => {
                    self.hazards.insert("data shared by two writes");
                    self.any_data(home, window, len)
                }
                _ => continue,
            };
            chosen = Some((publish, looped, data));
            break;
        }
        let (publish, looped, data) = chosen.expect("the last attempt always chooses");
        for e in data.elem..data.elem + data.len {
            self.k.data_used.insert((data.buf, e, data.rank));
        }
        if matches!(publish, Publish::RemoteStore | Publish::Put) && data.rank == x.rank {
            self.feature(Feature::PeerIsSelf);
        }
        let home = data.rank;
        let fetch = if home == y.rank {
            match self.rng.below(100) {
                0..=59 => Fetch::Read,
                60..=89 => Fetch::TileLoad,
                _ => Fetch::GetRead,
            }
        } else if self.rng.chance(70) {
            Fetch::RemoteLoad
        } else {
            Fetch::GetRead
        };
        // A loop writes one element per iteration: as many as the data has.
        Item { data, publish, fetch, looped }
    }

    /// `x` publishes `item`; returns what it wrote. `twice`: two writes of
    /// each element in flight together; `read_back`: `x` reads the element
    /// back while its write is in flight.
    pub(super) fn publish(
        &mut self,
        x: Thread,
        out: &mut Vec<Stmt>,
        item: &Item,
        twice: bool,
        read_back: bool,
    ) -> Value {
        let d = item.data;
        match item.publish {
            Publish::TensorWrite | Publish::Plain if item.looped => {
                let base = self.fresh_value();
                self.write_loop(x, out, d, base, false);
                Value { base, step: 1 }
            }
            Publish::RemoteStore if item.looped => {
                let base = self.fresh_value();
                self.write_loop(x, out, d, base, true);
                Value { base, step: 1 }
            }
            Publish::TensorWrite | Publish::Plain => self.publish_by_write(x, out, item, twice, read_back),
            Publish::TileStore => self.publish_by_tile_store(x, out, d, twice, read_back),
            Publish::GetLocal => self.publish_by_local_get(x, out, d),
            Publish::RemoteStore | Publish::Put => self.publish_remotely(x, out, item, twice, read_back),
        }
    }

    /// A `tensor_write` of each element (into a window or a plain buffer),
    /// sometimes through a helper function.
    fn publish_by_write(&mut self, x: Thread, out: &mut Vec<Stmt>, item: &Item, twice: bool, read_back: bool) -> Value {
        let d = item.data;
        if item.publish == Publish::Plain {
            self.feature(Feature::PlainWriteReadElsewhere);
            self.hazards.insert("a plain buffer read by another block");
        }
        let window = matches!(d.buf, Buf::Win(_));
        let first = self.fresh_value();
        if window && !twice && !read_back && self.rng.chance(18) {
            self.store_by_call(out, d, first);
            return Value { base: first, step: 0 };
        }
        let base = self.once_or_twice(out, first, twice, |g, out, base| {
            let v = g.value(out, base);
            let (at, ty) = g.element(out, d.buf, d.elem);
            out.push(Stmt::Op(format!("ccl.tensor_write {at}, {v} : {ty}, i32")));
            g.feature(Feature::TensorWrite);
            if twice || read_back {
                g.write_back(x, out, d);
            }
        });
        if read_back {
            let (at, ty) = self.element(out, d.buf, d.elem);
            let r = self.name("back");
            out.push(Stmt::Op(format!("{r} = ccl.read {at} : {ty} -> i32")));
            self.feature(Feature::Read);
            self.feature(Feature::ReadBackInFlight);
        }
        Value { base, step: 0 }
    }

    /// A `tile_store` of the item's elements.
    fn publish_by_tile_store(
        &mut self,
        x: Thread,
        out: &mut Vec<Stmt>,
        d: Data,
        twice: bool,
        read_back: bool,
    ) -> Value {
        let first = self.fresh_value();
        let base = self.once_or_twice(out, first, twice, |g, out, base| {
            let v = g.vector(out, d.len, base);
            let (buf, ty) = (g.buf_name(d.buf), g.buf_ty(d.buf));
            let e = g.ix(d.elem);
            out.push(Stmt::Op(format!("ccl.tile_store {v}, {buf}[{e}] : vector<{}xi32>, {ty}", d.len)));
            g.feature(Feature::TileStore);
            if twice || read_back {
                g.write_back(x, out, d);
            }
        });
        if read_back {
            let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
            let e = self.ix(d.elem);
            let r = self.name("back");
            out.push(Stmt::Op(format!("{r} = ccl.tile_load {buf}[{e}] : {ty} -> vector<{}xi32>", d.len)));
            self.feature(Feature::TileLoad);
            self.feature(Feature::ReadBackInFlight);
        }
        Value { base, step: 0 }
    }

    /// Stages the value in `x`'s own memory, then gets it into the window
    /// from `x`'s own rank.
    fn publish_by_local_get(&mut self, x: Thread, out: &mut Vec<Stmt>, d: Data) -> Value {
        let base = self.fresh_value();
        let (src, src_ty, _) = self.staging(x, out, d.len);
        self.fill(out, &src, &src_ty, d.len, base);
        let (dst, dst_ty) = self.view(x, out, d);
        let peer = self.peer(x, x.rank);
        out.push(Stmt::Op(format!("ccl.get {dst}, {src}, {peer} : {dst_ty}, {src_ty}, i32")));
        self.feature(Feature::Get);
        self.feature(Feature::PeerIsSelf);
        Value { base, step: 0 }
    }

    /// A `remote_store` (of a scalar or a vector) or a `put` from a staged
    /// copy, toward the item's rank.
    fn publish_remotely(&mut self, x: Thread, out: &mut Vec<Stmt>, item: &Item, twice: bool, read_back: bool) -> Value {
        let d = item.data;
        let first = self.fresh_value();
        let staged = (item.publish == Publish::Put).then(|| self.staging(x, out, d.len));
        let (dst, dst_ty) = self.view(x, out, d);
        let peer = self.peer(x, d.rank);
        if read_back && self.rng.chance(60) {
            // The line of what it writes is in the writer's cache before
            // the write: read back once the write lands, it hides it
            // unless an invalidate drops it between them.
            self.read_remote(out, &dst, &dst_ty, &peer, d.len, "cached");
            self.feature(Feature::ReadBackCachedLine);
        }
        let base = self.once_or_twice(out, first, twice, |g, out, base| match &staged {
            Some((src, src_ty, _)) => {
                g.fill(out, src, src_ty, d.len, base);
                out.push(Stmt::Op(format!("ccl.put {dst}, {src}, {peer} : {dst_ty}, {src_ty}, i32")));
                g.feature(Feature::Put);
            }
            None => {
                let (v, v_ty) = if d.len == 1 && g.rng.chance(70) {
                    (g.value(out, base), "i32".to_string())
                } else {
                    (g.vector(out, d.len, base), format!("vector<{}xi32>", d.len))
                };
                out.push(Stmt::Op(format!("ccl.remote_store {v}, {dst}, {peer} : {v_ty}, {dst_ty}, i32")));
                g.feature(Feature::RemoteStore);
            }
        });
        if read_back {
            self.read_remote(out, &dst, &dst_ty, &peer, d.len, "back");
            self.feature(Feature::ReadBackInFlight);
        }
        Value { base, step: 0 }
    }

    /// Writes with `first`, and, when `twice`, again with a fresh value:
    /// two writes of each element in flight together. Returns the value
    /// written last.
    fn once_or_twice(
        &mut self,
        out: &mut Vec<Stmt>,
        first: i64,
        twice: bool,
        mut write: impl FnMut(&mut Self, &mut Vec<Stmt>, i64),
    ) -> i64 {
        write(self, out, first);
        if !twice {
            return first;
        }
        let second = self.fresh_value();
        write(self, out, second);
        self.feature(Feature::TwoWritesInFlight);
        second
    }

    /// One element per iteration of an `scf.for` (as many as `d` has):
    /// `tensor_write`, or `remote_store` into a one-element view.
    fn write_loop(&mut self, x: Thread, out: &mut Vec<Stmt>, d: Data, base: i64, remote: bool) {
        let iv = self.name("k");
        let mut body = Vec::new();
        let first = self.ix(d.elem);
        let at = self.name("at");
        body.push(Stmt::Op(format!("{at} = arith.addi {iv}, {first} : index")));
        let step = self.name("n");
        body.push(Stmt::Op(format!("{step} = arith.index_cast {iv} : index to i32")));
        let b = self.value(&mut body, base);
        let v = self.name("x");
        body.push(Stmt::Op(format!("{v} = arith.addi {b}, {step} : i32")));
        let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
        if remote {
            let view = self.name("v");
            let view_ty = "memref<1xi32, strided<[1], offset: ?>, #ccl.window>";
            body.push(Stmt::Op(format!("{view} = memref.subview {buf}[{at}] [1] [1] : {ty} to {view_ty}")));
            self.feature(Feature::Subview);
            let peer = self.peer(x, d.rank);
            body.push(Stmt::Op(format!("ccl.remote_store {v}, {view}, {peer} : i32, {view_ty}, i32")));
            self.feature(Feature::RemoteStore);
        } else {
            body.push(Stmt::Op(format!("ccl.tensor_write {buf}[{at}], {v} : {ty}, i32")));
            self.feature(Feature::TensorWrite);
        }
        out.push(Stmt::For { iv, trips: d.len, body });
        self.feature(Feature::ForLoop);
    }

    /// A local store through a helper function: a `func.call` inside the
    /// kernel, an opaque publish.
    fn store_by_call(&mut self, out: &mut Vec<Stmt>, d: Data, base: i64) {
        let v = self.value(out, base);
        let helper = format!("@store{}", self.helpers.len());
        let ty = self.buf_ty(d.buf);
        let text = format!(
            "func.func {helper}(%dst: {ty}, %value: i32) {{\n  %at = arith.constant {} : index\n  ccl.tensor_write %dst[%at], %value : {ty}, i32\n  return\n}}\n",
            d.elem
        );
        self.helpers.push(text);
        let buf = self.buf_name(d.buf);
        out.push(Stmt::Op(format!("func.call {helper}({buf}, {v}) : ({ty}, i32) -> ()")));
        self.feature(Feature::CallInKernel);
        self.feature(Feature::TensorWrite);
    }

    /// Starts the write-back of `d`'s dirty lines: `cacheinvalid` of the
    /// buffer or a view of it (or, sometimes, of every line).
    fn write_back(&mut self, x: Thread, out: &mut Vec<Stmt>, d: Data) {
        if self.rng.chance(20) {
            out.push(Stmt::Op("ccl.cacheinvalid".to_string()));
            self.feature(Feature::WholeInvalidate);
            return;
        }
        let (view, ty) = self.view(x, out, d);
        out.push(Stmt::Op(format!("ccl.cacheinvalid {view} : {ty}")));
        self.feature(Feature::RegionInvalidate);
    }

    /// Writes `base` into the `len` elements of `dst` (x's own memory).
    fn fill(&mut self, out: &mut Vec<Stmt>, dst: &str, ty: &str, len: usize, base: i64) {
        let i0 = self.ix(0);
        if len == 1 && self.rng.chance(60) {
            let v = self.value(out, base);
            out.push(Stmt::Op(format!("ccl.tensor_write {dst}[{i0}], {v} : {ty}, i32")));
            self.feature(Feature::TensorWrite);
        } else {
            let v = self.vector(out, len, base);
            out.push(Stmt::Op(format!("ccl.tile_store {v}, {dst}[{i0}] : vector<{len}xi32>, {ty}")));
            self.feature(Feature::TileStore);
        }
    }
}
