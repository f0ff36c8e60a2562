//! The consumer's side of an episode: how it reads an item, and what it
//! does with a value it read (a stale value steers control flow).

use super::shape::{Fetch, Gen, Item, Stmt, Thread, Value};
use super::Feature;

impl Gen {
    /// `remote_load` of a view: a scalar for one element, else a vector.
    pub(super) fn read_remote(
        &mut self,
        out: &mut Vec<Stmt>,
        view: &str,
        ty: &str,
        peer: &str,
        len: usize,
        stem: &str,
    ) -> String {
        let r = self.name(stem);
        let result = if len == 1 { "i32".to_string() } else { format!("vector<{len}xi32>") };
        out.push(Stmt::Op(format!("{r} = ccl.remote_load {view}, {peer} : {ty}, i32 -> {result}")));
        self.feature(Feature::RemoteLoad);
        r
    }

    /// `y` reads `item`; returns a scalar it read and the value it should
    /// be (element `j` of the item), when there is one.
    pub(super) fn fetch(&mut self, y: Thread, out: &mut Vec<Stmt>, item: &Item, value: Value) -> Option<(String, i64)> {
        let d = item.data;
        match item.fetch {
            Fetch::Read => {
                if d.len == 2 && self.rng.chance(40) {
                    let iv = self.name("k");
                    let mut body = Vec::new();
                    let first = self.ix(d.elem);
                    let at = self.name("at");
                    body.push(Stmt::Op(format!("{at} = arith.addi {iv}, {first} : index")));
                    let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
                    let r = self.name("r");
                    body.push(Stmt::Op(format!("{r} = ccl.read {buf}[{at}] : {ty} -> i32")));
                    out.push(Stmt::For { iv, trips: d.len, body });
                    self.feature(Feature::ForLoop);
                    self.feature(Feature::Read);
                    return None;
                }
                let mut first = None;
                for j in 0..d.len {
                    let (at, ty) = self.element(out, d.buf, d.elem + j);
                    let r = self.name("r");
                    out.push(Stmt::Op(format!("{r} = ccl.read {at} : {ty} -> i32")));
                    self.feature(Feature::Read);
                    first.get_or_insert((r, value.base + value.step * j as i64));
                }
                first
            }
            Fetch::TileLoad => {
                let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
                let e = self.ix(d.elem);
                let r = self.name("t");
                out.push(Stmt::Op(format!("{r} = ccl.tile_load {buf}[{e}] : {ty} -> vector<{}xi32>", d.len)));
                self.feature(Feature::TileLoad);
                None
            }
            Fetch::RemoteLoad => {
                let (view, ty) = self.view(y, out, d);
                let peer = self.peer(y, d.rank);
                let r = self.read_remote(out, &view, &ty, &peer, d.len, "r");
                (d.len == 1).then_some((r, value.base))
            }
            Fetch::GetRead => {
                let (dst, dst_ty, _) = self.staging(y, out, d.len);
                let (src, src_ty) = self.view(y, out, d);
                let peer = self.peer(y, d.rank);
                if d.rank == y.rank {
                    self.feature(Feature::PeerIsSelf);
                }
                out.push(Stmt::Op(format!("ccl.get {dst}, {src}, {peer} : {dst_ty}, {src_ty}, i32")));
                self.feature(Feature::Get);
                let i0 = self.ix(0);
                let r = self.name("r");
                out.push(Stmt::Op(format!("{r} = ccl.read {dst}[{i0}] : {dst_ty} -> i32")));
                self.feature(Feature::Read);
                Some((r, value.base))
            }
        }
    }

    /// What `y` does with a scalar it read: nothing, a branch on it, the
    /// rest of its code guarded by it, or an index computed from it.
    pub(super) fn use_value(&mut self, y: Thread, out: &mut Vec<Stmt>, read: Option<(String, i64)>) {
        let Some((r, expected)) = read else { return };
        let roll = self.rng.below(100);
        if roll >= 30 {
            return;
        }
        let e = self.value(out, expected);
        if roll < 4 {
            // The difference from the expected value as an index: in bounds
            // only when the read was not stale.
            let diff = self.name("d");
            out.push(Stmt::Op(format!("{diff} = arith.subi {r}, {e} : i32")));
            let at = self.name("at");
            out.push(Stmt::Op(format!("{at} = arith.index_cast {diff} : i32 to index")));
            let (dst, dst_ty, _) = self.staging(y, out, 1);
            let v = self.name("x");
            out.push(Stmt::Op(format!("{v} = ccl.read {dst}[{at}] : {dst_ty} -> i32")));
            self.feature(Feature::Read);
            self.feature(Feature::IndexFromMemory);
            return;
        }
        let ok = self.name("ok");
        out.push(Stmt::Op(format!("{ok} = arith.cmpi eq, {r}, {e} : i32")));
        self.feature(Feature::IfOnMemory);
        let (mark, mark_ty, _) = self.staging(y, out, 1);
        let i0 = self.ix(0);
        let mut otherwise = Vec::new();
        let stale = self.fresh_value();
        let v = self.value(&mut otherwise, stale);
        otherwise.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {v} : {mark_ty}, i32")));
        if roll < 18 {
            out.push(Stmt::Guard { cond: ok, otherwise });
        } else {
            let mut then = Vec::new();
            let fresh = self.fresh_value();
            let v = self.value(&mut then, fresh);
            then.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {v} : {mark_ty}, i32")));
            out.push(Stmt::If { cond: ok, then, otherwise });
        }
        self.feature(Feature::TensorWrite);
    }
}
