//! A fixed program for the all_to_all_v protocol checks (not random).

/// The shape of the program: P ranks, B blocks, ROWS rows per peer, CALLS
/// rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub ranks: usize,
    pub blocks: usize,
    pub rows: usize,
    pub calls: usize,
}

/// The largest value an `index` (a memref dimension, a loop bound) holds.
const INDEX_MAX: u64 = i64::MAX as u64;
/// The largest block count: the program holds B as an `i32` constant.
pub const MAX_BLOCKS: u64 = i32::MAX as u64;

impl Shape {
    /// The shape, if every value of the program it describes fits its type:
    /// all values at least 1; B an `i32`; the rows (P x ROWS, and ROWS + 1)
    /// and the signal's cells (P x B) an `index`; CALLS an `index`. Within
    /// these the program parses and verifies; an error names the bound.
    pub fn new(ranks: u64, blocks: u64, rows: u64, calls: u64) -> Result<Shape, String> {
        if [ranks, blocks, rows, calls].contains(&0) {
            return Err("every value must be at least 1".to_string());
        }
        if blocks > MAX_BLOCKS {
            return Err(format!("B must be at most {MAX_BLOCKS} (the program's i32 block count)"));
        }
        if ranks.checked_mul(rows).is_none_or(|n| n >= INDEX_MAX) {
            return Err(format!("P x ROWS must be below {INDEX_MAX} (a memref's rows, counted by an index)"));
        }
        if ranks.checked_mul(blocks).is_none_or(|n| n > INDEX_MAX) {
            return Err(format!("P x B must be at most {INDEX_MAX} (the signal's cells, counted by an index)"));
        }
        if calls > INDEX_MAX {
            return Err(format!("CALLS must be at most {INDEX_MAX} (an index)"));
        }
        // Each value is at most INDEX_MAX now, so a usize holds it.
        Ok(Shape { ranks: ranks as usize, blocks: blocks as usize, rows: rows as usize, calls: calls as usize })
    }

    /// The program (see [`all_to_all_v_program`]).
    pub fn program(&self) -> String {
        all_to_all_v_program(self.ranks, self.blocks, self.rows, self.calls)
    }
}

/// The all_to_all_v protocol program: `calls` rounds on `p` ranks of a
/// kernel `@stage` that restages this rank's send counts and rows (they
/// change with the round), then `ccl.all_to_all_v` launched with `b`
/// blocks and `rows` rows per peer. What ccl-sim's protocol checks and
/// benchmark run after `ccl-pipeline{lower-collectives=true}`.
pub fn all_to_all_v_program(p: usize, b: usize, rows: usize, calls: usize) -> String {
    let send = format!("memref<{}xi32, #ccl.window>", p * rows);
    let counts = format!("memref<{p}xi32, #ccl.window>");
    let recv_counts = format!("memref<{p}xi32>");
    let signal = format!("memref<{p}x{b}xi32, #ccl.window>");
    format!(
        r#"
func.func @stage(%send: {send}, %sc: {counts}, %round: index) attributes {{ccl.kind = "aiv"}} {{
  %me = ccl.rank : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant {p} : index
  %rows = arith.constant {rows} : index
  %rows1 = arith.constant {rows1} : index
  scf.for %q = %c0 to %p step %c1 {{
    %a = arith.addi %round, %me : index
    %b = arith.addi %a, %q : index
    %n = arith.remui %b, %rows1 : index
    %n32 = arith.index_cast %n : index to i32
    ccl.tensor_write %sc[%q], %n32 : {counts}, i32
    %base = arith.muli %q, %rows : index
    scf.for %k = %c0 to %rows step %c1 {{
      %at = arith.addi %base, %k : index
      %v = arith.index_cast %at : index to i32
      ccl.tensor_write %send[%at], %v : {send}, i32
    }}
  }}
  return
}}
func.func @main(%send: {send}, %sc: {counts}, %recv: {send}, %rc: {recv_counts}, %sig: {signal}) attributes {{ccl.kind = "orchestration"}} {{
  %blocks = arith.constant {b} : i32
  %c0 = arith.constant 0 : index
  %calls = arith.constant {calls} : index
  %c1 = arith.constant 1 : index
  scf.for %round = %c0 to %calls step %c1 {{
    func.call @stage(%send, %sc, %round) : ({send}, {counts}, index) -> ()
    ccl.all_to_all_v %send, %sc, %recv, %rc, blocks %blocks, signal %sig {{launch_width = {b} : i64}}
      : {send}, {counts}, {send}, {recv_counts}, i32, {signal}
  }}
  return
}}
"#,
        rows1 = rows + 1
    )
}
