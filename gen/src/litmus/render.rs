//! The blocks' code as text: the dispatch on rank and block id, the
//! statements with their thresholds resolved, and the features only the
//! code as a whole shows.

use super::shape::{Gen, Stmt};
use super::Feature;
use std::fmt::Write;

impl Gen {
    /// The dispatch on rank and block id to each block's code; returns the
    /// conditions it uses (name, definition) for the preamble.
    pub(super) fn dispatch(&mut self, out: &mut String, bodies: &[Vec<Stmt>]) -> Vec<(String, String)> {
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
    pub(super) fn features_of_code(&mut self, stmts: &[Stmt]) {
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
