//! Random message-passing programs that are synchronized by construction:
//! the ones ccl-sim can run to the end, for the dynamic property test
//! (`tests/sim_generated.rs`).
//!
//! `generate` (the module above) writes programs that exercise every shape
//! the passes see, but their waits wait for notifies nobody sends and their
//! ranks touch each other's windows with no order at all, so a simulator can
//! only report a deadlock or a race no marker could prevent. Here every
//! cross-rank access is ordered by a notify/wait pair or a collective, so the
//! only races left are those the markers exist to prevent: with the markers
//! `ccl-insert-comm-fence` places a program never races, and deleting one
//! of them may make it race.
//!
//! The shape: rounds of one kernel launch (`B` blocks) followed by a
//! `ccl.barrier`. In a round, block `b` of rank `r` produces a value for
//! rank `r + 1` and consumes the one rank `r - 1` produced, in cell `b` of
//! the window (in a ring every rank does both; in a chain rank 0 only
//! produces and the last rank only consumes). What varies with the seed:
//! the rank and block counts, one or two rounds (launched from a loop,
//! unrolled, or with the barrier in a wrapper), the publish (a local
//! `ccl.tensor_write` the consumer reads with `ccl.remote_load`, or a
//! `ccl.remote_store` / `ccl.put` into the consumer's window that it reads
//! locally), how the signal is notified (`set` or `atomic_add`) and waited
//! for (`ge` or `eq`), and a handshake: the consumer first reads the cell
//! (keeping the line in its cache) and acknowledges, and the producer waits
//! for that before it writes.

use super::Rng;
use std::fmt::Write;

/// A generated exchange program and the rank count it is written for.
#[derive(Clone, Debug)]
pub struct Exchange {
    pub ranks: u16,
    pub text: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Publish {
    /// `ccl.tensor_write` into this rank's window; the consumer reads it
    /// with `ccl.remote_load`.
    Local,
    RemoteStore,
    Put,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Launches {
    Loop,
    Unrolled,
    /// Unrolled, with the barrier in an orchestration wrapper.
    Wrapper,
}

struct Shape {
    ranks: u16,
    blocks: u16,
    rounds: usize,
    chain: bool,
    handshake: bool,
    publish: Publish,
    /// The local publish writes through the cell's view, not `%win[%blk]`.
    through_view: bool,
    notify_set: bool,
    wait_eq: bool,
    /// The consumer also reads its plain buffer (a read nobody races).
    extra_read: bool,
    launches: Launches,
    /// The rounds are ordered by `ccl.all_reduce` into `%sum` (not a
    /// barrier), and the kernel reads `%sum` first: the collective's data,
    /// which the kernel's prologue must make it see.
    reduce: bool,
}

impl Shape {
    fn random(rng: &mut Rng) -> Shape {
        let ranks = if rng.chance(25) { 3 } else { 2 };
        let blocks = if ranks == 2 && rng.chance(30) { 2 } else { 1 };
        Shape {
            ranks,
            blocks,
            rounds: 1 + rng.below(2),
            chain: rng.chance(50),
            handshake: rng.chance(50),
            publish: *rng.pick(&[Publish::Local, Publish::Local, Publish::RemoteStore, Publish::Put]),
            through_view: rng.chance(30),
            notify_set: rng.chance(50),
            wait_eq: rng.chance(30),
            extra_read: rng.chance(30),
            launches: *rng.pick(&[Launches::Loop, Launches::Unrolled, Launches::Wrapper]),
            reduce: rng.chance(40),
        }
    }
}

/// The exchange program of `seed`.
pub fn exchange_program(seed: u64) -> Exchange {
    let mut rng = Rng::new(seed ^ 0x0E8C_4A96_E000_0001);
    let shape = Shape::random(&mut rng);
    let mut text = String::new();
    writeln!(text, "// ccl-gen --exchange {seed}: run with ccl-sim --ranks {}", shape.ranks).unwrap();
    kernel(&mut text, &shape);
    orchestration(&mut text, &shape);
    Exchange { ranks: shape.ranks, text }
}

/// The types of the kernel's and the entry's buffers, by name.
struct Types {
    win: String,
    plain: String,
}

/// A one-element view of a window (a signal or data cell), and of a plain buffer.
const CELL: &str = "memref<1xi32, strided<[1], offset: ?>, #ccl.window>";
const PLAIN_CELL: &str = "memref<1xi32, strided<[1], offset: ?>>";

impl Types {
    fn of(shape: &Shape) -> Types {
        let b = shape.blocks;
        Types { win: format!("memref<{b}xi32, #ccl.window>"), plain: format!("memref<{b}xi32>") }
    }

    fn params(&self) -> String {
        format!(
            "%win: {w}, %src: {p}, %data: {w}, %ack: {w}, %part: memref<1xi32>, %sum: memref<1xi32>",
            w = self.win,
            p = self.plain
        )
    }

    fn param_types(&self) -> String {
        format!("{w}, {p}, {w}, {w}, memref<1xi32>, memref<1xi32>", w = self.win, p = self.plain)
    }
}

fn kernel(out: &mut String, shape: &Shape) {
    let t = Types::of(shape);
    let (win, cell) = (&t.win, CELL);
    writeln!(out, "func.func @exchange({}, %round: i32) attributes {{ccl.kind = \"aiv\"}} {{", t.params()).unwrap();
    let p = shape.ranks;
    for line in [
        "%me = ccl.rank : i32".to_string(),
        "%blk = ccl.block_id : index".to_string(),
        "%i0 = arith.constant 0 : index".to_string(),
        "%c0 = arith.constant 0 : i32".to_string(),
        "%c1 = arith.constant 1 : i32".to_string(),
        format!("%cp = arith.constant {p} : i32"),
        format!("%cpm1 = arith.constant {} : i32", p - 1),
        "%c100 = arith.constant 100 : i32".to_string(),
        "%up = arith.addi %me, %c1 : i32".to_string(),
        "%next = arith.remui %up, %cp : i32".to_string(),
        "%down = arith.addi %me, %cpm1 : i32".to_string(),
        "%prev = arith.remui %down, %cp : i32".to_string(),
        "%expect = arith.addi %round, %c1 : i32".to_string(),
        "%hundreds = arith.muli %expect, %c100 : i32".to_string(),
        // Distinct per round and producer, so a stale value is a wrong one.
        "%value = arith.addi %hundreds, %me : i32".to_string(),
        format!("%slot = memref.subview %win[%blk] [1] [1] : {win} to {cell}"),
        format!("%dcell = memref.subview %data[%blk] [1] [1] : {win} to {cell}"),
        format!("%acell = memref.subview %ack[%blk] [1] [1] : {win} to {cell}"),
    ] {
        writeln!(out, "  {line}").unwrap();
    }
    if shape.reduce {
        writeln!(out, "  %last = ccl.read %sum[%i0] : memref<1xi32> -> i32").unwrap();
    }
    // The notify's value makes the cell equal `%expect` after it, in both
    // kinds: `set` writes it, `atomic_add` adds one per round.
    let notify = |out: &mut String, indent: &str, signal: &str, peer: &str| {
        let (kind, value) = if shape.notify_set { ("set", "%expect") } else { ("atomic_add", "%c1") };
        writeln!(out, "{indent}ccl.notify {kind} {signal}, {peer}, {value} : {cell}, i32, i32").unwrap();
    };
    let wait = |out: &mut String, indent: &str, signal: &str| {
        let cmp = if shape.wait_eq { "eq" } else { "ge" };
        writeln!(out, "{indent}ccl.wait {cmp} {signal}, %expect : {cell}, i32").unwrap();
    };
    // The consumer reads the cell where its producer put the value: the
    // producer's own window for a local publish, else its own.
    let read_cell = |out: &mut String, indent: &str, name: &str| {
        if shape.publish == Publish::Local {
            writeln!(out, "{indent}%{name} = ccl.remote_load %slot, %prev : {cell}, i32 -> i32").unwrap();
        } else {
            writeln!(out, "{indent}%{name} = ccl.read %win[%blk] : {win} -> i32").unwrap();
        }
    };
    // The consumer's first half: read the cell early (its line stays in
    // the cache) and tell the producer it may write.
    let acknowledge = |out: &mut String, indent: &str| {
        read_cell(out, indent, "peek");
        notify(out, indent, "%acell", "%prev");
    };
    let receive = |out: &mut String, indent: &str| {
        wait(out, indent, "%dcell");
        read_cell(out, indent, "got");
        if shape.extra_read {
            writeln!(out, "{indent}%own = ccl.read %src[%blk] : {} -> i32", t.plain).unwrap();
        }
    };
    let produce = |out: &mut String, indent: &str| {
        if shape.handshake {
            wait(out, indent, "%acell");
        }
        match shape.publish {
            Publish::Local if shape.through_view => {
                writeln!(out, "{indent}ccl.tensor_write %slot[%i0], %value : {cell}, i32").unwrap()
            }
            Publish::Local => writeln!(out, "{indent}ccl.tensor_write %win[%blk], %value : {win}, i32").unwrap(),
            Publish::RemoteStore => {
                writeln!(out, "{indent}ccl.remote_store %value, %slot, %next : i32, {cell}, i32").unwrap()
            }
            Publish::Put => {
                writeln!(out, "{indent}ccl.tensor_write %src[%blk], %value : {}, i32", t.plain).unwrap();
                writeln!(out, "{indent}%from = memref.subview %src[%blk] [1] [1] : {} to {}", t.plain, PLAIN_CELL)
                    .unwrap();
                writeln!(out, "{indent}ccl.put %slot, %from, %next : {cell}, {}, i32", PLAIN_CELL).unwrap();
            }
        }
        notify(out, indent, "%dcell", "%next");
    };
    if shape.chain {
        // Rank 0 only produces, the last rank only consumes; a middle rank
        // consumes first, so the chain cannot deadlock.
        writeln!(out, "  %has_prev = arith.cmpi ugt, %me, %c0 : i32").unwrap();
        writeln!(out, "  %has_next = arith.cmpi ult, %me, %cpm1 : i32").unwrap();
        writeln!(out, "  scf.if %has_prev {{").unwrap();
        if shape.handshake {
            acknowledge(out, "    ");
        }
        receive(out, "    ");
        writeln!(out, "  }}\n  scf.if %has_next {{").unwrap();
        produce(out, "    ");
        writeln!(out, "  }}").unwrap();
    } else {
        // In a ring every rank acknowledges before it waits for its own
        // acknowledgement, so the handshake cannot deadlock either.
        if shape.handshake {
            acknowledge(out, "  ");
        }
        produce(out, "  ");
        receive(out, "  ");
    }
    writeln!(out, "  return\n}}").unwrap();
}

fn orchestration(out: &mut String, shape: &Shape) {
    let t = Types::of(shape);
    let (params, types) = (t.params(), t.param_types());
    let launch = |out: &mut String, indent: &str, round: &str| {
        writeln!(
            out,
            "{indent}func.call @exchange(%win, %src, %data, %ack, %part, %sum, {round}) {{ccl.launch_width = {} : i64}} : ({types}, i32) -> ()",
            shape.blocks
        )
        .unwrap();
    };
    let collective =
        if shape.reduce { "ccl.all_reduce sum %part, %sum : memref<1xi32>, memref<1xi32>" } else { "ccl.barrier" };
    // The collective orders the rounds: a round's reads before the next one's
    // writes, on every rank. Launched after it, the kernel needs the prologue.
    if shape.launches == Launches::Wrapper {
        writeln!(
            out,
            "func.func @sync(%part: memref<1xi32>, %sum: memref<1xi32>) attributes {{ccl.kind = \"orchestration\"}} {{\n  {collective}\n  return\n}}"
        )
        .unwrap();
    }
    let barrier = if shape.launches == Launches::Wrapper {
        "func.call @sync(%part, %sum) : (memref<1xi32>, memref<1xi32>) -> ()"
    } else {
        collective
    };
    writeln!(out, "func.func @main({params}) attributes {{ccl.kind = \"orchestration\"}} {{").unwrap();
    if shape.launches == Launches::Loop {
        writeln!(out, "  %lo = arith.constant 0 : index\n  %hi = arith.constant {} : index", shape.rounds).unwrap();
        writeln!(out, "  %step = arith.constant 1 : index\n  scf.for %r = %lo to %hi step %step {{").unwrap();
        writeln!(out, "    %round = arith.index_cast %r : index to i32").unwrap();
        launch(out, "    ", "%round");
        writeln!(out, "    {barrier}\n  }}").unwrap();
    } else {
        for round in 0..shape.rounds {
            writeln!(out, "  %round{round} = arith.constant {round} : i32").unwrap();
            launch(out, "  ", &format!("%round{round}"));
            writeln!(out, "  {barrier}").unwrap();
        }
    }
    writeln!(out, "  return\n}}").unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_program() {
        assert_eq!(exchange_program(5).text, exchange_program(5).text);
        assert_ne!(exchange_program(5).text, exchange_program(6).text);
    }
}
