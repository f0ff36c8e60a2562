//! Signal cells: which cell copy an episode uses, and the `ccl.notify`,
//! `ccl.wait` and ordinary reads written on it.

use super::shape::{CellKey, CellUse, Gen, Stmt, Thread};
use super::Feature;

impl Gen {
    /// A cell copy on `rank` for an episode: one this kernel has not used
    /// (and, for a `set`, one that is 0), else (a hazard) any.
    pub(super) fn pick_cell(&mut self, rank: u16, zero: bool) -> CellKey {
        let fresh: Vec<CellKey> = self.fresh_cells(rank, zero).collect();
        let key = if !fresh.is_empty() && !self.rng.chance(5) {
            *self.rng.pick(&fresh)
        } else {
            self.hazards.insert("a cell shared by two episodes");
            (self.rng.below(self.cells.len()), rank)
        };
        let start = self.cell_values.get(&key).copied().unwrap_or(0);
        let u = self.k.cells.entry(key).or_insert_with(|| CellUse { start, ..CellUse::default() });
        u.used = true;
        key
    }

    /// The value the cell copy holds once the episodes before this one
    /// have run (in a launch).
    pub(super) fn cell_before(&self, key: CellKey) -> i64 {
        self.k.cells.get(&key).map_or(0, |u| u.start + u.net)
    }

    /// The cell's view in `t`'s code: its name, or sometimes an
    /// `arith.select` of it and another cell of the same type.
    fn cell_view(&mut self, t: Thread, out: &mut Vec<Stmt>, c: usize) -> (String, String) {
        let ty = self.cell_ty(c);
        if self.cells[c] == Some(0) && self.sig_len > 1 && self.rng.chance(25) {
            // The whole signal buffer: a signal op acts on its element 0.
            self.feature(Feature::CellIsElementZero);
            return ("%sig".to_string(), format!("memref<{}xi32, #ccl.window>", self.sig_len));
        }
        let others: Vec<usize> =
            (0..self.cells.len()).filter(|o| *o != c && self.cells[*o].is_some() == self.cells[c].is_some()).collect();
        if !others.is_empty() && self.rng.chance(15) {
            let other = *self.rng.pick(&others);
            let cond = self.holds(t, out);
            let name = self.name("sel");
            let (cell, decoy) = (self.cell_name(c), self.cell_name(other));
            out.push(Stmt::Op(format!("{name} = arith.select {cond}, {cell}, {decoy} : {ty}")));
            self.feature(Feature::SelectOfViews);
            return (name, ty);
        }
        (self.cell_name(c), ty)
    }

    pub(super) fn notify(&mut self, t: Thread, out: &mut Vec<Stmt>, key: CellKey, set: bool, value: NotifyValue) {
        let (view, ty) = self.cell_view(t, out, key.0);
        let peer = self.peer(t, key.1);
        let (v, sign) = match value {
            NotifyValue::Const(v) => (self.c(v), v.signum()),
            NotifyValue::Ssa(name, sign) => (name, sign),
        };
        let kind = if set { "set" } else { "atomic_add" };
        out.push(Stmt::Op(format!("ccl.notify {kind} {view}, {peer}, {v} : {ty}, i32, i32")));
        let index = self.thread_index(t);
        let u = self.k.cells.entry(key).or_default();
        if !u.notifiers.contains(&index) {
            u.notifiers.push(index);
        }
        let several = u.notifiers.len() > 1;
        let after_add = set && u.added;
        if !set {
            u.added = true;
        }
        if several {
            self.feature(Feature::SeveralNotifiers);
        }
        if after_add {
            self.feature(Feature::SetAfterAdd);
        }
        self.feature(match (set, sign) {
            (true, _) => Feature::NotifySet,
            (false, s) if s < 0 => Feature::NotifyAddNegative,
            _ => Feature::NotifyAddPositive,
        });
    }

    /// `wait cmp` on the cell copy for `expected` (a threshold the kernel's
    /// rounds move, or an SSA value); sometimes a pure wait loop.
    pub(super) fn wait(&mut self, t: Thread, out: &mut Vec<Stmt>, key: CellKey, eq: bool, expected: Expected) {
        let (view, ty) = self.cell_view(t, out, key.0);
        let value = match expected {
            Expected::Threshold(offset) => {
                let name = self.name("th");
                out.push(Stmt::Threshold { name: name.clone(), cell: key, offset });
                name
            }
            Expected::Ssa(name) => name,
        };
        let cmp = if eq { "eq" } else { "ge" };
        let line = format!("ccl.wait {cmp} {view}, {value} : {ty}, i32");
        self.feature(if eq { Feature::WaitEq } else { Feature::WaitGe });
        if !eq && self.rng.chance(10) {
            let iv = self.name("wl");
            out.push(Stmt::For { iv, trips: 1 + self.rng.below(2), body: vec![Stmt::Op(line)] });
            self.feature(Feature::PureWaitLoop);
            self.feature(Feature::ForLoop);
        } else {
            out.push(Stmt::Op(line));
        }
    }

    /// An ordinary `ccl.read` of a signal cell and a branch on what it
    /// returned.
    pub(super) fn read_cell(&mut self, y: Thread, out: &mut Vec<Stmt>, key: CellKey, at_least: i64) {
        let i0 = self.ix(0);
        let r = self.name("s");
        match self.cells[key.0] {
            Some(i) if self.rng.chance(50) => {
                let e = self.ix(i);
                out.push(Stmt::Op(format!(
                    "{r} = ccl.read %sig[{e}] : memref<{}xi32, #ccl.window> -> i32",
                    self.sig_len
                )));
            }
            _ => {
                let (cell, ty) = (self.cell_name(key.0), self.cell_ty(key.0));
                out.push(Stmt::Op(format!("{r} = ccl.read {cell}[{i0}] : {ty} -> i32")));
            }
        }
        self.feature(Feature::SignalCellGmRead);
        self.feature(Feature::Read);
        if self.rng.chance(60) {
            let th = self.c(at_least);
            let hi = self.name("hi");
            out.push(Stmt::Op(format!("{hi} = arith.cmpi sge, {r}, {th} : i32")));
            let (mark, mark_ty, _) = self.staging(y, out, 1);
            let (a, b) = (self.fresh_value(), self.fresh_value());
            let mut then = Vec::new();
            let va = self.value(&mut then, a);
            then.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {va} : {mark_ty}, i32")));
            let mut otherwise = Vec::new();
            let vb = self.value(&mut otherwise, b);
            otherwise.push(Stmt::Op(format!("ccl.tensor_write {mark}[{i0}], {vb} : {mark_ty}, i32")));
            out.push(Stmt::If { cond: hi, then, otherwise });
            self.feature(Feature::IfOnMemory);
            self.feature(Feature::TensorWrite);
        }
    }

    /// The cell copies on `rank` this kernel has not used (and, for a
    /// `set`, that are 0).
    pub(super) fn fresh_cells(&self, rank: u16, zero: bool) -> impl Iterator<Item = CellKey> + '_ {
        (0..self.cells.len()).map(move |c| (c, rank)).filter(move |key| {
            let start = self.cell_values.get(key).copied().unwrap_or(0);
            !self.k.cells.get(key).is_some_and(|u| u.used) && (!zero || start == 0)
        })
    }
}

pub(super) enum NotifyValue {
    Const(i64),
    /// An SSA value and its sign.
    Ssa(String, i64),
}

pub(super) enum Expected {
    Threshold(i64),
    Ssa(String),
}
