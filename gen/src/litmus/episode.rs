//! One episode: a message from a producer block to a consumer block, with
//! its signal protocol, its optional handshake and second producer, and the
//! consumer's reset of the cell for the next launch.

use super::shape::{CellKey, Gen, Item, Protocol, Publish, Stmt, Thread, Value};
use super::signals::{Expected, NotifyValue};
use super::Feature;

/// An episode's choices, made before any of its code is written.
struct Episode {
    protocol: Protocol,
    /// The protocol sets the cell, so the episode wants a cell that is 0.
    set_like: bool,
    /// The producer.
    x: Thread,
    /// The consumer.
    y: Thread,
    /// A second producer (of an add).
    x2: Option<Thread>,
    /// The consumer reads the data early and acknowledges before `x`
    /// writes.
    handshake: bool,
    /// What `x` publishes.
    item: Item,
    /// What `x` publishes between the add and the set of an add then a set.
    item2: Option<Item>,
    /// What `x2` publishes.
    item3: Option<Item>,
    /// The cell copy `y` waits on, and its value before the episode.
    key: CellKey,
    before: i64,
    /// Two writes of each element of `item` in flight together.
    twice: bool,
    /// `x` reads `item` back while its write is in flight.
    read_back: bool,
}

/// What the producers wrote and signalled: what the consumer waits for
/// and reads.
struct Produced {
    /// What `x` wrote of `item`.
    value: Value,
    /// What the episode's adds add to its cell.
    added: i64,
    /// The value a set writes (before the rounds' 1000s).
    set_base: Option<i64>,
    /// What `x` wrote of `item2`.
    value2: Option<Value>,
    /// What `x2` wrote of `item3`.
    value3: Option<Value>,
    /// `x2`'s own cell, which the consumer waits on too; after the waits,
    /// kept only if the consumer resets it later.
    second: Option<SecondCell>,
}

/// A second producer's own cell: the copy, its value before the episode
/// and what the producer adds to it.
#[derive(Clone, Copy)]
struct SecondCell {
    key: CellKey,
    before: i64,
    add: i64,
}

impl Gen {
    /// Writes one episode into the blocks' code of the kernel being
    /// written.
    pub(super) fn episode(&mut self) {
        let e = self.choose_episode();
        if e.handshake {
            self.handshake(&e);
        }
        let mut produced = self.produce(&e);
        self.produce_second(&e, &mut produced);
        if let Some(v2) = produced.value2 {
            self.k.published.push((e.item2.unwrap().data, v2));
        }
        self.consume(&e, produced);
    }

    /// Chooses the episode: its protocol, its blocks, the items they move,
    /// its cell, and whether the producer writes twice or reads back.
    fn choose_episode(&mut self) -> Episode {
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
        // The writes that can be doubled or read back in flight: not a get,
        // a plain write or a loop.
        let can_double =
            matches!(item.publish, Publish::TensorWrite | Publish::TileStore | Publish::RemoteStore | Publish::Put)
                && !item.looped;
        let twice = can_double && self.rng.chance(16);
        let read_back = can_double && self.rng.chance(if twice { 60 } else { 8 });
        Episode { protocol, set_like, x, y, x2, handshake, item, item2, item3, key, before, twice, read_back }
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

    /// The handshake: y reads the data early (the line stays in its
    /// cache) and tells x it may write.
    fn handshake(&mut self, e: &Episode) {
        let (x, y) = (e.x, e.y);
        self.feature(Feature::Handshake);
        let ack = self.pick_cell(x.rank, false);
        let ack_before = self.cell_before(ack);
        let mut ys = Vec::new();
        let early = Value { base: 0, step: 0 };
        self.fetch(y, &mut ys, &e.item, early);
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

    /// The producer: publishes the item and signals the cell by the
    /// episode's protocol.
    fn produce(&mut self, e: &Episode) -> Produced {
        let (x, key) = (e.x, e.key);
        let mut xs = Vec::new();
        let value = self.publish(x, &mut xs, &e.item, e.twice, e.read_back);
        let mut added = 0;
        let mut set_base = None;
        let mut value2 = None;
        match e.protocol {
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
                let item2 = e.item2.as_ref().unwrap();
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
        self.k.published.push((e.item.data, value));
        Produced { value, added, set_base, value2, value3: None, second: None }
    }

    /// A second producer: of the same cell, or of a cell of its own the
    /// consumer waits for right after the first (a run of waits).
    fn produce_second(&mut self, e: &Episode, produced: &mut Produced) {
        let (Some(x2), Some(item3)) = (e.x2, e.item3.as_ref()) else { return };
        let mut ws = Vec::new();
        let value3 = self.publish(x2, &mut ws, item3, false, false);
        produced.value3 = Some(value3);
        let a = if self.rng.chance(25) { 2 } else { 1 };
        if self.rng.chance(40) && self.fresh_cells(e.y.rank, false).next().is_some() {
            let key2 = self.pick_cell(e.y.rank, false);
            let before2 = self.cell_before(key2);
            self.notify(x2, &mut ws, key2, false, NotifyValue::Const(a));
            produced.second = Some(SecondCell { key: key2, before: before2, add: a });
        } else {
            self.notify(x2, &mut ws, e.key, false, NotifyValue::Const(a));
            produced.added += a;
        }
        self.push(x2, ws);
        self.k.published.push((item3.data, value3));
    }

    /// The consumer: waits (or, sometimes, skips the waits when an
    /// ordinary read shows the signal), reads what was published, uses a
    /// value it read, and resets the cells.
    fn consume(&mut self, e: &Episode, mut produced: Produced) {
        let (y, key) = (e.y, e.key);
        let mut ys = Vec::new();
        let fast_path = self.rng.chance(4);
        let eq = self.rng.chance(35);
        let (waits, both_first) = self.waits(e, &mut produced, eq);
        let signalled = e.before + produced.added.max(1);
        if fast_path {
            self.skip_waits_when_signalled(&mut ys, key, signalled, waits);
        } else {
            ys.extend(waits);
        }
        let read = self.fetch(y, &mut ys, &e.item, produced.value);
        if let (Some(item3), Some(value3)) = (e.item3.as_ref(), produced.value3) {
            self.fetch(y, &mut ys, item3, value3);
        }
        if e.protocol == Protocol::AddThenSet {
            if !both_first {
                let v = self.value(&mut ys, produced.set_base.unwrap());
                self.wait(y, &mut ys, key, true, Expected::Ssa(v));
            }
            self.fetch(y, &mut ys, e.item2.as_ref().unwrap(), produced.value2.unwrap());
        }
        if let Some(second) = produced.second {
            self.notify(y, &mut ys, second.key, false, NotifyValue::Const(-second.add));
        }
        self.use_value(y, &mut ys, read);
        self.reset_cell(e, &produced, &mut ys);
        if self.rng.chance(10) {
            self.read_cell(y, &mut ys, key, signalled);
        }
        self.push(y, ys);
    }

    /// The consumer's waits before its first read: on the episode's cell,
    /// on the second producer's own cell, and, sometimes, both waits of an
    /// add then a set. Returns them and whether the set's wait is among
    /// them; keeps `produced.second` only if the consumer resets it later.
    fn waits(&mut self, e: &Episode, produced: &mut Produced, eq: bool) -> (Vec<Stmt>, bool) {
        let (y, key, before) = (e.y, e.key, e.before);
        let mut waits = Vec::new();
        match e.protocol {
            Protocol::Add | Protocol::NotifyLoop => {
                self.wait(y, &mut waits, key, eq, Expected::Threshold(before + produced.added));
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
                let v = self.value(&mut waits, produced.set_base.unwrap());
                self.wait(y, &mut waits, key, eq, Expected::Ssa(v));
            }
            Protocol::AddThenSet => {
                self.wait(y, &mut waits, key, false, Expected::Threshold(1));
            }
        }
        if let Some(second) = produced.second {
            let eq = self.rng.chance(35);
            self.wait(y, &mut waits, second.key, eq, Expected::Threshold(second.before + second.add));
            let mut net = second.add;
            if self.rng.chance(30) {
                // Its reset, later.
                net = 0;
            }
            self.k.cells.get_mut(&second.key).unwrap().net += net;
            produced.second = (net == 0).then_some(second);
        }
        // Both waits of an add then a set in a row, before either read.
        let both_first = e.protocol == Protocol::AddThenSet && self.rng.chance(30);
        if both_first {
            let v = self.value(&mut waits, produced.set_base.unwrap());
            self.wait(y, &mut waits, key, true, Expected::Ssa(v));
        }
        (waits, both_first)
    }

    /// `waits`, skipped when an ordinary read of the cell already shows
    /// the signal (`signalled`): no happens-before edge then.
    fn skip_waits_when_signalled(&mut self, ys: &mut Vec<Stmt>, key: CellKey, signalled: i64, waits: Vec<Stmt>) {
        let r = self.name("s");
        let (cell, ty) = (self.cell_name(key.0), self.cell_ty(key.0));
        let i0 = self.ix(0);
        ys.push(Stmt::Op(format!("{r} = ccl.read {cell}[{i0}] : {ty} -> i32")));
        let th = self.c(signalled);
        let ready = self.name("ready");
        ys.push(Stmt::Op(format!("{ready} = arith.cmpi sge, {r}, {th} : i32")));
        ys.push(Stmt::If { cond: ready, then: Vec::new(), otherwise: waits });
        self.feature(Feature::SignalCellGmRead);
        self.feature(Feature::Read);
        self.feature(Feature::IfOnMemory);
        self.hazards.insert("a wait skipped on an ordinary read of its cell");
    }

    /// Resets the cell for the next launch: a negative add or a set 0 (or,
    /// after a set in a kernel launched once, sometimes not: the cell keeps
    /// the value set).
    fn reset_cell(&mut self, e: &Episode, produced: &Produced, ys: &mut Vec<Stmt>) {
        let (y, key, added) = (e.y, e.key, produced.added);
        let rounds = self.k.rounds;
        let u = self.k.cells.get(&key).cloned().unwrap_or_default();
        if e.set_like {
            let must = rounds > 1;
            if must || self.rng.chance(30) {
                if self.rng.chance(50) {
                    let zero = self.c(0);
                    self.notify(y, ys, key, true, NotifyValue::Ssa(zero, 0));
                } else {
                    let v = self.value(ys, produced.set_base.unwrap());
                    let neg = self.name("neg");
                    let zero = self.c(0);
                    ys.push(Stmt::Op(format!("{neg} = arith.subi {zero}, {v} : i32")));
                    self.notify(y, ys, key, false, NotifyValue::Ssa(neg, -1));
                }
            } else {
                let u = self.k.cells.get_mut(&key).unwrap();
                u.closed = true;
                u.last_set = produced.set_base.unwrap();
            }
        } else {
            let mut net = added;
            if self.rng.chance(if rounds > 1 { 45 } else { 20 }) {
                // A set 0 only where every add of the episode came before
                // the wait passed (not +2 then -1).
                if u.start + u.net == 0 && e.protocol != Protocol::Cancel && self.rng.chance(40) {
                    let zero = self.c(0);
                    self.notify(y, ys, key, true, NotifyValue::Ssa(zero, 0));
                } else {
                    self.notify(y, ys, key, false, NotifyValue::Const(-added));
                }
                net = 0;
            }
            self.k.cells.get_mut(&key).unwrap().net += net;
        }
    }
}
