//! One episode: a message from a producer block to a consumer block, with
//! its signal protocol, its optional handshake and second producer, and the
//! consumer's reset of the cell for the next launch.

use super::shape::{Gen, Protocol, Publish, Stmt, Thread, Value};
use super::signals::{Expected, NotifyValue};
use super::Feature;

impl Gen {
    pub(super) fn push(&mut self, t: Thread, stmts: Vec<Stmt>) {
        let i = self.thread_index(t);
        self.k.bodies[i].extend(stmts);
    }

    /// A producer and a consumer: on different ranks when the launch has
    /// one block, else on either; the consumer's rank with a cell this
    /// kernel has not used, when there is one.
    fn pair(&mut self, zero: bool) -> (Thread, Thread) {
        let threads = self.threads();
        let mut pair = None;
        for _ in 0..8 {
            let x = *self.rng.pick(&threads);
            let cross = self.width == 1 || self.rng.chance(60);
            let ys: Vec<Thread> = threads.iter().copied().filter(|y| *y != x && (y.rank != x.rank) == cross).collect();
            let y = *self.rng.pick(&ys);
            pair = Some((x, y));
            if self.fresh_cells(y.rank, zero).next().is_some() {
                break;
            }
        }
        pair.expect("eight tries")
    }

    pub(super) fn episode(&mut self) {
        let protocol = match self.rng.below(100) {
            0..=39 => Protocol::Add,
            40..=49 => Protocol::NotifyLoop,
            50..=69 => Protocol::Set,
            70..=86 => Protocol::AddThenSet,
            _ => Protocol::Cancel,
        };
        let set_like = matches!(protocol, Protocol::Set | Protocol::AddThenSet);
        let (x, y) = self.pair(set_like);
        let threads = self.threads();
        let others: Vec<Thread> = threads.iter().copied().filter(|t| *t != x && *t != y).collect();
        let x2 =
            (matches!(protocol, Protocol::Add | Protocol::NotifyLoop) && !others.is_empty() && self.rng.chance(35))
                .then(|| *self.rng.pick(&others));
        let handshake = x2.is_none() && self.rng.chance(18);
        let item = self.choose_item(x, y);
        let item2 = (protocol == Protocol::AddThenSet).then(|| self.choose_item(x, y));
        let item3 = x2.map(|x2| self.choose_item(x2, y));
        let key = self.pick_cell(y.rank, set_like);
        // (The acknowledgement needs a cell of x's rank of its own.)
        let handshake = handshake && self.fresh_cells(x.rank, false).next().is_some();
        let before = self.cell_before(key);
        let twice =
            matches!(item.publish, Publish::TensorWrite | Publish::TileStore | Publish::RemoteStore | Publish::Put)
                && !item.looped
                && self.rng.chance(16);
        let read_back =
            matches!(item.publish, Publish::TensorWrite | Publish::TileStore | Publish::RemoteStore | Publish::Put)
                && !item.looped
                && self.rng.chance(if twice { 60 } else { 8 });

        // The handshake: y reads the data early (the line stays in its
        // cache) and tells x it may write.
        if handshake {
            self.feature(Feature::Handshake);
            let ack = self.pick_cell(x.rank, false);
            let ack_before = self.cell_before(ack);
            let mut ys = Vec::new();
            let early = Value { base: 0, step: 0 };
            self.fetch(y, &mut ys, &item, early);
            self.notify(y, &mut ys, ack, false, NotifyValue::Const(1));
            self.push(y, ys);
            let mut xs = Vec::new();
            let eq = self.rng.chance(30);
            self.wait(x, &mut xs, ack, eq, Expected::Threshold(ack_before + 1));
            let mut net = 1;
            if self.rng.chance(30) {
                self.notify(x, &mut xs, ack, false, NotifyValue::Const(-1));
                net = 0;
            }
            self.push(x, xs);
            self.k.cells.get_mut(&ack).unwrap().net += net;
        }

        // The producer.
        let mut xs = Vec::new();
        let value = self.publish(x, &mut xs, &item, twice, read_back);
        let mut added = 0;
        let mut set_base = None;
        let mut value2 = None;
        match protocol {
            Protocol::Add => {
                let a = if self.rng.chance(20) { 2 } else { 1 };
                self.notify(x, &mut xs, key, false, NotifyValue::Const(a));
                added += a;
            }
            Protocol::NotifyLoop => {
                let trips = 1 + self.rng.below(2);
                let iv = self.name("k");
                let mut body = Vec::new();
                self.notify(x, &mut body, key, false, NotifyValue::Const(1));
                xs.push(Stmt::For { iv, trips, body });
                self.feature(Feature::ForLoop);
                added += trips as i64;
            }
            Protocol::Set => {
                let base = self.fresh_value();
                let v = self.value(&mut xs, base);
                self.notify(x, &mut xs, key, true, NotifyValue::Ssa(v, 1));
                set_base = Some(base);
            }
            Protocol::AddThenSet => {
                self.notify(x, &mut xs, key, false, NotifyValue::Const(1));
                let item2 = item2.as_ref().unwrap();
                value2 = Some(self.publish(x, &mut xs, item2, false, false));
                let base = self.fresh_value();
                let v = self.value(&mut xs, base);
                self.notify(x, &mut xs, key, true, NotifyValue::Ssa(v, 1));
                set_base = Some(base);
            }
            Protocol::Cancel => {
                self.notify(x, &mut xs, key, false, NotifyValue::Const(2));
                self.notify(x, &mut xs, key, false, NotifyValue::Const(-1));
                added += 1;
            }
        }
        self.push(x, xs);
        self.k.published.push((item.data, value));

        // A second producer: of the same cell, or of a cell of its own the
        // consumer waits for right after the first (a run of waits).
        let mut value3 = None;
        let mut second = None;
        if let (Some(x2), Some(item3)) = (x2, item3.as_ref()) {
            let mut ws = Vec::new();
            value3 = Some(self.publish(x2, &mut ws, item3, false, false));
            let a = if self.rng.chance(25) { 2 } else { 1 };
            if self.rng.chance(40) && self.fresh_cells(y.rank, false).next().is_some() {
                let key2 = self.pick_cell(y.rank, false);
                let before2 = self.cell_before(key2);
                self.notify(x2, &mut ws, key2, false, NotifyValue::Const(a));
                second = Some((key2, before2, a));
            } else {
                self.notify(x2, &mut ws, key, false, NotifyValue::Const(a));
                added += a;
            }
            self.push(x2, ws);
            self.k.published.push((item3.data, value3.unwrap()));
        }
        if let Some(v2) = value2 {
            self.k.published.push((item2.unwrap().data, v2));
        }

        // The consumer.
        let mut ys = Vec::new();
        let fast_path = self.rng.chance(4);
        let eq = self.rng.chance(35);
        let mut waits = Vec::new();
        match protocol {
            Protocol::Add | Protocol::NotifyLoop => {
                self.wait(y, &mut waits, key, eq, Expected::Threshold(before + added));
            }
            Protocol::Cancel => {
                // eq 2 can be missed: the -1 may come first.
                let target = if eq && self.rng.chance(30) {
                    self.hazards.insert("a wait eq for a value that may be missed");
                    before + 2
                } else {
                    before + 1
                };
                self.wait(y, &mut waits, key, eq, Expected::Threshold(target));
            }
            Protocol::Set => {
                let v = self.value(&mut waits, set_base.unwrap());
                self.wait(y, &mut waits, key, eq, Expected::Ssa(v));
            }
            Protocol::AddThenSet => {
                self.wait(y, &mut waits, key, false, Expected::Threshold(1));
            }
        }
        if let Some((key2, before2, a)) = second {
            let eq = self.rng.chance(35);
            self.wait(y, &mut waits, key2, eq, Expected::Threshold(before2 + a));
            let mut net = a;
            if self.rng.chance(30) {
                // Its reset, later.
                net = 0;
            }
            self.k.cells.get_mut(&key2).unwrap().net += net;
            second = (net == 0).then_some((key2, before2, a));
        }
        // Both waits of an add then a set in a row, before either read.
        let both_first = protocol == Protocol::AddThenSet && self.rng.chance(30);
        if both_first {
            let v = self.value(&mut waits, set_base.unwrap());
            self.wait(y, &mut waits, key, true, Expected::Ssa(v));
        }
        if fast_path {
            // Skips the wait when an ordinary read of the cell already
            // shows the signal: no happens-before edge then.
            let r = self.name("s");
            let (cell, ty) = (self.cell_name(key.0), self.cell_ty(key.0));
            let i0 = self.ix(0);
            ys.push(Stmt::Op(format!("{r} = ccl.read {cell}[{i0}] : {ty} -> i32")));
            let th = self.c(before + added.max(1));
            let ready = self.name("ready");
            ys.push(Stmt::Op(format!("{ready} = arith.cmpi sge, {r}, {th} : i32")));
            ys.push(Stmt::If { cond: ready, then: Vec::new(), otherwise: waits });
            self.feature(Feature::SignalCellGmRead);
            self.feature(Feature::Read);
            self.feature(Feature::IfOnMemory);
            self.hazards.insert("a wait skipped on an ordinary read of its cell");
        } else {
            ys.extend(waits);
        }
        let read = self.fetch(y, &mut ys, &item, value);
        if let (Some(item3), Some(value3)) = (item3.as_ref(), value3) {
            self.fetch(y, &mut ys, item3, value3);
        }
        if protocol == Protocol::AddThenSet {
            if !both_first {
                let v = self.value(&mut ys, set_base.unwrap());
                self.wait(y, &mut ys, key, true, Expected::Ssa(v));
            }
            self.fetch(y, &mut ys, item2.as_ref().unwrap(), value2.unwrap());
        }
        if let Some((key2, _, a)) = second {
            self.notify(y, &mut ys, key2, false, NotifyValue::Const(-a));
        }
        self.use_value(y, &mut ys, read);

        // Reset the cell for the next launch: a negative add or a set 0.
        let rounds = self.k.rounds;
        let u = self.k.cells.get(&key).cloned().unwrap_or_default();
        if set_like {
            let must = rounds > 1;
            if must || self.rng.chance(30) {
                if self.rng.chance(50) {
                    let zero = self.c(0);
                    self.notify(y, &mut ys, key, true, NotifyValue::Ssa(zero, 0));
                } else {
                    let v = self.value(&mut ys, set_base.unwrap());
                    let neg = self.name("neg");
                    let zero = self.c(0);
                    ys.push(Stmt::Op(format!("{neg} = arith.subi {zero}, {v} : i32")));
                    self.notify(y, &mut ys, key, false, NotifyValue::Ssa(neg, -1));
                }
            } else {
                let u = self.k.cells.get_mut(&key).unwrap();
                u.closed = true;
                u.last_set = set_base.unwrap();
            }
        } else {
            let mut net = added;
            if self.rng.chance(if rounds > 1 { 45 } else { 20 }) {
                // A set 0 only where every add of the episode came before
                // the wait passed (not +2 then -1).
                if u.start + u.net == 0 && protocol != Protocol::Cancel && self.rng.chance(40) {
                    let zero = self.c(0);
                    self.notify(y, &mut ys, key, true, NotifyValue::Ssa(zero, 0));
                } else {
                    self.notify(y, &mut ys, key, false, NotifyValue::Const(-added));
                }
                net = 0;
            }
            self.k.cells.get_mut(&key).unwrap().net += net;
        }
        if self.rng.chance(10) {
            self.read_cell(y, &mut ys, key, before + added.max(1));
        }
        self.push(y, ys);
    }
}
