//! What a statement names: fresh SSA names, constants, buffer and cell
//! types, per-round values, peers, views of data, and the data elements an
//! access takes.

use super::shape::{Buf, Data, Gen, Stmt, Thread};
use super::Feature;

pub(super) const CELL_VIEW: &str = "memref<1xi32, strided<[1], offset: ?>, #ccl.window>";

impl Gen {
    // -- names, constants and types ------------------------------------------

    pub(super) fn name(&mut self, stem: &str) -> String {
        self.names += 1;
        format!("%{stem}{}", self.names)
    }

    /// A fresh constant for a write: distinct from every other write's.
    pub(super) fn fresh_value(&mut self) -> i64 {
        self.next_value += 10;
        self.next_value
    }

    pub(super) fn c(&mut self, v: i64) -> String {
        self.k.i32s.insert(v);
        const_name(v)
    }

    pub(super) fn ix(&mut self, v: usize) -> String {
        self.k.indices.insert(v);
        format!("%i{v}")
    }

    fn vconst(&mut self, len: usize, v: i64) -> String {
        self.k.vectors.insert((len, v));
        vector_name(len, v)
    }

    pub(super) fn buf_name(&self, buf: Buf) -> String {
        match buf {
            Buf::Win(i) => format!("%w{i}"),
            Buf::Plain(i) => format!("%p{i}"),
        }
    }

    pub(super) fn buf_len(&self, buf: Buf) -> usize {
        match buf {
            Buf::Win(i) => self.windows[i],
            Buf::Plain(i) => self.plains[i],
        }
    }

    pub(super) fn buf_ty(&self, buf: Buf) -> String {
        match buf {
            Buf::Win(i) => format!("memref<{}xi32, #ccl.window>", self.windows[i]),
            Buf::Plain(i) => format!("memref<{}xi32>", self.plains[i]),
        }
    }

    pub(super) fn cell_name(&self, c: usize) -> String {
        format!("%cell{c}")
    }

    pub(super) fn cell_ty(&self, c: usize) -> String {
        match self.cells[c] {
            Some(_) => CELL_VIEW.to_string(),
            None => "memref<1xi32, #ccl.window>".to_string(),
        }
    }

    pub(super) fn acc_ty(&self) -> String {
        let len = self.buf_len(self.reduce_src);
        if self.acc_window {
            format!("memref<{len}xi32, #ccl.window>")
        } else {
            format!("memref<{len}xi32>")
        }
    }

    /// A scalar i32 value: `base`, plus 1000 per round in a kernel launched
    /// more than once.
    pub(super) fn value(&mut self, out: &mut Vec<Stmt>, base: i64) -> String {
        let c = self.c(base);
        if self.k.rounds > 1 {
            let name = self.name("val");
            out.push(Stmt::Op(format!("{name} = arith.addi %rk, {c} : i32")));
            name
        } else {
            c
        }
    }

    /// A `vector<len x i32>` splat of `base` (plus 1000 per round).
    pub(super) fn vector(&mut self, out: &mut Vec<Stmt>, len: usize, base: i64) -> String {
        let first = self.vconst(len, base);
        if self.k.rounds > 1 {
            let later = self.vconst(len, base + 1000);
            self.k.uses_first = true;
            let name = self.name("vec");
            out.push(Stmt::Op(format!("{name} = arith.select %first, {first}, {later} : vector<{len}xi32>")));
            name
        } else {
            first
        }
    }

    /// The peer operand naming `target` from `t`'s code.
    pub(super) fn peer(&mut self, t: Thread, target: u16) -> String {
        if target == t.rank && self.rng.chance(60) {
            return "%me".to_string();
        }
        if target == (t.rank + 1) % self.ranks && self.rng.chance(40) {
            return "%next".to_string();
        }
        if target == (t.rank + self.ranks - 1) % self.ranks && self.rng.chance(30) {
            return "%prev".to_string();
        }
        self.c(target as i64)
    }

    /// A condition that holds in `t`'s code (and not in some other block's).
    pub(super) fn holds(&mut self, t: Thread, out: &mut Vec<Stmt>) -> String {
        let name = self.name("is");
        if self.width > 1 && self.rng.chance(50) {
            let b = self.ix(t.block as usize);
            out.push(Stmt::Op(format!("{name} = arith.cmpi eq, %blk, {b} : index")));
        } else {
            let r = self.c(t.rank as i64);
            out.push(Stmt::Op(format!("{name} = arith.cmpi eq, %me, {r} : i32")));
        }
        name
    }

    /// A view of exactly `d`'s elements: the buffer itself when it has that
    /// length, else a subview; sometimes chosen by `arith.select` against a
    /// decoy of the same type.
    pub(super) fn view(&mut self, t: Thread, out: &mut Vec<Stmt>, d: Data) -> (String, String) {
        let (buf, ty) = (self.buf_name(d.buf), self.buf_ty(d.buf));
        if d.len == self.buf_len(d.buf) && d.elem == 0 && self.rng.chance(40) {
            return (buf, ty);
        }
        let window = matches!(d.buf, Buf::Win(_));
        let view_ty = if window {
            format!("memref<{}xi32, strided<[1], offset: ?>, #ccl.window>", d.len)
        } else {
            format!("memref<{}xi32, strided<[1], offset: ?>>", d.len)
        };
        let view = self.subview(out, d.buf, d.elem, d.len);
        if window && self.rng.chance(12) {
            // A decoy: another window's view of the same length.
            let candidates: Vec<(usize, usize)> = (0..self.windows.len())
                .flat_map(|w| (0..=self.windows[w].saturating_sub(d.len)).map(move |e| (w, e)))
                .filter(|(w, e)| self.windows[*w] >= d.len && (Buf::Win(*w), *e) != (d.buf, d.elem))
                .collect();
            if !candidates.is_empty() {
                let (w, e) = *self.rng.pick(&candidates);
                let decoy = self.subview(out, Buf::Win(w), e, d.len);
                let cond = self.holds(t, out);
                let name = self.name("pick");
                let (a, b) = if self.rng.chance(50) { (&view, &decoy) } else { (&decoy, &view) };
                let cond = if a == &view {
                    cond
                } else {
                    let not = self.name("not");
                    out.push(Stmt::Op(format!("{not} = arith.xori {cond}, %true : i1")));
                    not
                };
                out.push(Stmt::Op(format!("{name} = arith.select {cond}, {a}, {b} : {view_ty}")));
                self.feature(Feature::SelectOfViews);
                return (name, view_ty);
            }
        }
        (view, view_ty)
    }

    fn subview(&mut self, out: &mut Vec<Stmt>, buf: Buf, elem: usize, len: usize) -> String {
        let name = self.name("v");
        let (b, ty) = (self.buf_name(buf), self.buf_ty(buf));
        let e = self.ix(elem);
        let view_ty = match buf {
            Buf::Win(_) => format!("memref<{len}xi32, strided<[1], offset: ?>, #ccl.window>"),
            Buf::Plain(_) => format!("memref<{len}xi32, strided<[1], offset: ?>>"),
        };
        out.push(Stmt::Op(format!("{name} = memref.subview {b}[{e}] [{len}] [1] : {ty} to {view_ty}")));
        self.feature(Feature::Subview);
        name
    }

    /// An element access `%buf[%i]` or, sometimes, the same element through
    /// a view (`memref.subview`, `memref.cast`, `memref.expand_shape`).
    pub(super) fn element(&mut self, out: &mut Vec<Stmt>, buf: Buf, elem: usize) -> (String, String) {
        let (b, ty) = (self.buf_name(buf), self.buf_ty(buf));
        let space = if matches!(buf, Buf::Win(_)) { ", #ccl.window" } else { "" };
        match self.rng.below(100) {
            0..=14 => {
                let view = self.subview(out, buf, elem, 1);
                let i0 = self.ix(0);
                let view_ty = format!("memref<1xi32, strided<[1], offset: ?>{space}>");
                (format!("{view}[{i0}]"), view_ty)
            }
            15..=19 => {
                let name = self.name("cast");
                out.push(Stmt::Op(format!("{name} = memref.cast {b} : {ty} to memref<?xi32{space}>")));
                self.feature(Feature::OtherViewOps);
                let e = self.ix(elem);
                (format!("{name}[{e}]"), format!("memref<?xi32{space}>"))
            }
            20..=23 => {
                let len = self.buf_len(buf);
                let name = self.name("exp");
                let to = format!("memref<1x{len}xi32{space}>");
                out.push(Stmt::Op(format!(
                    "{name} = memref.expand_shape {b} [[0, 1]] output_shape [1, {len}] : {ty} into {to}"
                )));
                self.feature(Feature::OtherViewOps);
                let (i0, e) = (self.ix(0), self.ix(elem));
                (format!("{name}[{i0}, {e}]"), to)
            }
            _ => {
                let e = self.ix(elem);
                (format!("{b}[{e}]"), ty)
            }
        }
    }

    /// `len` elements `t` may use for itself (a put's source, a get's
    /// destination, a branch's mark): free elements of a plain buffer on its
    /// rank, else a `memref.alloc`.
    pub(super) fn staging(&mut self, t: Thread, out: &mut Vec<Stmt>, len: usize) -> (String, String, Option<Data>) {
        if !self.rng.chance(15) {
            for p in 0..self.plains.len() {
                let buf = Buf::Plain(p);
                for e in 0..=self.plains[p].saturating_sub(len) {
                    if self.plains[p] >= len && (e..e + len).all(|x| !self.k.data_used.contains(&(buf, x, t.rank))) {
                        for x in e..e + len {
                            self.k.data_used.insert((buf, x, t.rank));
                        }
                        let d = Data { buf, elem: e, len, rank: t.rank };
                        let (view, ty) = self.view(t, out, d);
                        return (view, ty, Some(d));
                    }
                }
            }
        }
        let name = self.name("a");
        out.push(Stmt::Op(format!("{name} = memref.alloc() : memref<{len}xi32>")));
        self.feature(Feature::Alloc);
        (name, format!("memref<{len}xi32>"), None)
    }

    /// The buffers of a kind.
    fn bufs(&self, window: bool) -> Vec<Buf> {
        if window {
            (0..self.windows.len()).map(Buf::Win).collect()
        } else {
            (0..self.plains.len()).map(Buf::Plain).collect()
        }
    }

    /// `len` contiguous elements of a buffer of the kind asked for, on
    /// `rank`, that no other access of this kernel has taken.
    pub(super) fn free_data(&mut self, rank: u16, window: bool, len: usize) -> Option<Data> {
        let mut free = Vec::new();
        for buf in self.bufs(window) {
            let n = self.buf_len(buf);
            for e in 0..(n + 1).saturating_sub(len) {
                if (e..e + len).all(|x| !self.k.data_used.contains(&(buf, x, rank))) {
                    free.push(Data { buf, elem: e, len, rank });
                }
            }
        }
        (!free.is_empty()).then(|| *self.rng.pick(&free))
    }

    /// Any `len` contiguous elements of a buffer of the kind asked for (one
    /// when no buffer holds `len`): taken or not.
    pub(super) fn any_data(&mut self, rank: u16, window: bool, len: usize) -> Data {
        let mut any = Vec::new();
        for buf in self.bufs(window) {
            let n = self.buf_len(buf);
            for e in 0..(n + 1).saturating_sub(len) {
                any.push(Data { buf, elem: e, len, rank });
            }
        }
        if any.is_empty() {
            return self.any_data(rank, window, 1);
        }
        *self.rng.pick(&any)
    }
}

pub(super) fn const_name(v: i64) -> String {
    if v < 0 {
        format!("%cm{}", -v)
    } else {
        format!("%c{v}")
    }
}

pub(super) fn vector_name(len: usize, v: i64) -> String {
    if v < 0 {
        format!("%v{len}m{}", -v)
    } else {
        format!("%v{len}x{v}")
    }
}
