//! A kernel as text: its signature, the constants and conditions its code
//! uses, the dispatch on rank and block id to each block's code, the
//! statements with their thresholds resolved, and the features only the
//! code as a whole shows.

use super::operands::{const_name, vector_name, CELL_VIEW};
use super::shape::{Gen, Stmt};
use super::Feature;
use std::fmt::Write;

impl Gen {
    /// Kernel `name` as text, its code taken from the kernel being written.
    pub(super) fn render_kernel(&mut self, name: &str) -> String {
        // The body first: it names the constants the preamble defines.
        let bodies = std::mem::take(&mut self.k.bodies);
        for body in &bodies {
            self.features_of_code(body);
        }
        let mut body = String::new();
        let conds = self.dispatch(&mut body, &bodies);
        let mut pre = String::new();
        self.c(0);
        self.c(1);
        self.c(self.ranks as i64);
        self.ix(0);
        self.ix(1);
        if self.k.rounds > 1 {
            self.c(1000);
            writeln!(pre, "  %rk = arith.muli %round, %c1000 : i32").unwrap();
        }
        if self.k.uses_first {
            writeln!(pre, "  %first = arith.cmpi eq, %round, %c0 : i32").unwrap();
        }
        let p = self.ranks;
        writeln!(pre, "  %up = arith.addi %me, %c1 : i32\n  %next = arith.remui %up, %c{p} : i32").unwrap();
        self.c(p as i64 - 1);
        writeln!(
            pre,
            "  %down = arith.addi %me, {} : i32\n  %prev = arith.remui %down, %c{p} : i32",
            const_name(p as i64 - 1)
        )
        .unwrap();
        writeln!(
            pre,
            "  %nexti = arith.index_cast %next : i32 to index\n  %previ = arith.index_cast %prev : i32 to index"
        )
        .unwrap();
        for (c, cell) in self.cells.clone().iter().enumerate() {
            if let Some(i) = cell {
                let e = self.ix(*i);
                writeln!(
                    pre,
                    "  %cell{c} = memref.subview %sig[{e}] [1] [1] : memref<{}xi32, #ccl.window> to {CELL_VIEW}",
                    self.sig_len
                )
                .unwrap();
            }
        }
        for (cond, line) in conds {
            writeln!(pre, "  {cond} = {line}").unwrap();
        }
        let mut out = String::new();
        let kind = self.rng.pick(&["incore", "aic", "aiv"]).to_string();
        let width_attr =
            if self.width_on_function { format!(", ccl.launch_width = {} : i64", self.width) } else { String::new() };
        writeln!(
            out,
            "func.func @{name}({}, %round: i32) attributes {{ccl.kind = \"{kind}\"{width_attr}}} {{",
            self.params()
        )
        .unwrap();
        writeln!(out, "  %me = ccl.rank : i32\n  %blk = ccl.block_id : index\n  %true = arith.constant true").unwrap();
        for v in &self.k.i32s {
            writeln!(out, "  {} = arith.constant {v} : i32", const_name(*v)).unwrap();
        }
        for v in &self.k.indices {
            writeln!(out, "  %i{v} = arith.constant {v} : index").unwrap();
        }
        for (len, v) in &self.k.vectors {
            writeln!(out, "  {} = arith.constant dense<{v}> : vector<{len}xi32>", vector_name(*len, *v)).unwrap();
        }
        out.push_str(&pre);
        out.push_str(&body);
        out.push_str("  return\n}\n");
        out
    }

    /// The dispatch on rank and block id to each block's code; returns the
    /// conditions it uses (name, definition) for the preamble.
    fn dispatch(&mut self, out: &mut String, bodies: &[Vec<Stmt>]) -> Vec<(String, String)> {
        self.feature(Feature::IfOnRankOrBlock);
        let mut conds = Vec::new();
        for r in 0..self.ranks {
            let c = self.c(r as i64);
            conds.push((format!("%at_r{r}"), format!("arith.cmpi eq, %me, {c} : i32")));
        }
        if self.width > 1 {
            for b in 0..self.width {
                let i = self.ix(b as usize);
                conds.push((format!("%at_b{b}"), format!("arith.cmpi eq, %blk, {i} : index")));
            }
        }
        if self.rng.chance(50) {
            // One `scf.if` per block with code, in a row.
            for r in 0..self.ranks {
                for b in 0..self.width {
                    let i = (r * self.width + b) as usize;
                    if bodies[i].is_empty() {
                        continue;
                    }
                    let cond = if self.width > 1 {
                        let name = format!("%at_r{r}b{b}");
                        conds.push((name.clone(), format!("arith.andi %at_r{r}, %at_b{b} : i1")));
                        name
                    } else {
                        format!("%at_r{r}")
                    };
                    writeln!(out, "  scf.if {cond} {{").unwrap();
                    self.render(out, &bodies[i], 2);
                    writeln!(out, "  }}").unwrap();
                }
            }
        } else {
            // Nested: rank 0, else rank 1, else rank 2; block 0, else block 1.
            self.render_ranks(out, bodies, 0, 1);
        }
        conds
    }

    fn render_ranks(&mut self, out: &mut String, bodies: &[Vec<Stmt>], rank: u16, depth: usize) {
        let pad = "  ".repeat(depth);
        if rank + 1 == self.ranks {
            self.render_blocks(out, bodies, rank, depth);
            return;
        }
        writeln!(out, "{pad}scf.if %at_r{rank} {{").unwrap();
        self.render_blocks(out, bodies, rank, depth + 1);
        writeln!(out, "{pad}}} else {{").unwrap();
        self.render_ranks(out, bodies, rank + 1, depth + 1);
        writeln!(out, "{pad}}}").unwrap();
    }

    fn render_blocks(&mut self, out: &mut String, bodies: &[Vec<Stmt>], rank: u16, depth: usize) {
        let base = (rank * self.width) as usize;
        if self.width == 1 {
            self.render(out, &bodies[base], depth);
            return;
        }
        let pad = "  ".repeat(depth);
        writeln!(out, "{pad}scf.if %at_b0 {{").unwrap();
        self.render(out, &bodies[base], depth + 1);
        if !bodies[base + 1].is_empty() {
            writeln!(out, "{pad}}} else {{").unwrap();
            self.render(out, &bodies[base + 1], depth + 1);
        }
        writeln!(out, "{pad}}}").unwrap();
    }

    fn render(&mut self, out: &mut String, stmts: &[Stmt], depth: usize) {
        let pad = "  ".repeat(depth);
        for (i, stmt) in stmts.iter().enumerate() {
            match stmt {
                Stmt::Op(line) => writeln!(out, "{pad}{line}").unwrap(),
                Stmt::If { cond, then, otherwise } => {
                    writeln!(out, "{pad}scf.if {cond} {{").unwrap();
                    self.render(out, then, depth + 1);
                    if !otherwise.is_empty() {
                        writeln!(out, "{pad}}} else {{").unwrap();
                        self.render(out, otherwise, depth + 1);
                    }
                    writeln!(out, "{pad}}}").unwrap();
                }
                Stmt::For { iv, trips, body } => {
                    let (lo, hi, step) = (self.ix(0), self.ix(*trips), self.ix(1));
                    writeln!(out, "{pad}scf.for {iv} = {lo} to {hi} step {step} {{").unwrap();
                    self.render(out, body, depth + 1);
                    writeln!(out, "{pad}}}").unwrap();
                }
                Stmt::Threshold { name, cell, offset } => {
                    // What the kernel's episodes leave in the cell per launch.
                    let per_round = if self.k.rounds > 1 { self.k.cells.get(cell).map_or(0, |u| u.net) } else { 0 };
                    if per_round == 0 {
                        writeln!(out, "{pad}{name} = arith.constant {offset} : i32").unwrap();
                    } else {
                        let (per, off) = (self.c(per_round), self.c(*offset));
                        writeln!(out, "{pad}{name}r = arith.muli %round, {per} : i32").unwrap();
                        writeln!(out, "{pad}{name} = arith.addi {name}r, {off} : i32").unwrap();
                    }
                }
                Stmt::Guard { cond, otherwise } => {
                    writeln!(out, "{pad}scf.if {cond} {{").unwrap();
                    self.render(out, &stmts[i + 1..], depth + 1);
                    if !otherwise.is_empty() {
                        writeln!(out, "{pad}}} else {{").unwrap();
                        self.render(out, otherwise, depth + 1);
                    }
                    writeln!(out, "{pad}}}").unwrap();
                    return;
                }
            }
        }
    }

    /// Features of a block's code as a whole: two waits with only
    /// side-effect-free ops between them.
    fn features_of_code(&mut self, stmts: &[Stmt]) {
        let mut after_wait = false;
        for stmt in stmts {
            match stmt {
                Stmt::Op(line) if line.starts_with("ccl.wait") => {
                    if after_wait {
                        self.feature(Feature::WaitRun);
                    }
                    after_wait = true;
                }
                Stmt::Op(line) if line.contains(" = arith.") || line.contains(" = memref.subview") => {}
                Stmt::Threshold { .. } => {}
                Stmt::Op(_) | Stmt::Guard { .. } => after_wait = false,
                Stmt::If { then, otherwise, .. } => {
                    self.features_of_code(then);
                    self.features_of_code(otherwise);
                    after_wait = false;
                }
                Stmt::For { body, .. } => {
                    self.features_of_code(body);
                    after_wait = false;
                }
            }
        }
    }
}
