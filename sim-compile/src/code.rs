//! The code of one function as it is emitted: instructions with the site
//! (op) each came from, registers for SSA values, labels placed as the code
//! goes and resolved to positions at the end, and the loops' spans.

use cclir_dialect::ir;
use cclir_sim::program::{Instr, Label, LoopSpan, Reg, SiteId};
use melior::ir::{block::BlockLike, BlockRef, Value};
use rustc_hash::FxHashMap;

/// What a region's terminator does.
pub(crate) enum Exit {
    Return,
    /// `scf.yield` (and `scf.reduce`): move the operands into `dsts`, jump.
    Yield {
        dsts: Vec<Reg>,
        then: Label,
    },
    /// `scf.condition` of a while loop's before-region.
    Condition {
        after_args: Vec<Reg>,
        results: Vec<Reg>,
        after: Label,
        done: Label,
    },
}

#[derive(Default)]
pub(crate) struct FunctionCode {
    pub(crate) code: Vec<Instr>,
    /// The op being compiled: every instruction emitted is its.
    pub(crate) current_site: SiteId,
    pub(crate) sites_of_code: Vec<SiteId>,
    pub(crate) loops: Vec<LoopSpan>,
    pub(crate) registers: FxHashMap<ir::ValueKey, Reg>,
    pub(crate) next_reg: u32,
    pub(crate) labels: Vec<Option<usize>>,
    pub(crate) block_labels: FxHashMap<ir::BlockKey, Label>,
}

impl FunctionCode {
    pub(crate) fn reg(&mut self, value: Value<'_, '_>) -> Reg {
        let key = ir::ValueKey::of(value);
        if let Some(reg) = self.registers.get(&key) {
            return *reg;
        }
        let reg = self.temp();
        self.registers.insert(key, reg);
        reg
    }

    pub(crate) fn temp(&mut self) -> Reg {
        self.next_reg += 1;
        self.next_reg - 1
    }

    pub(crate) fn new_label(&mut self) -> Label {
        self.labels.push(None);
        self.labels.len() - 1
    }

    pub(crate) fn place(&mut self, label: Label) {
        self.labels[label] = Some(self.code.len());
    }

    pub(crate) fn emit(&mut self, instr: Instr) {
        self.code.push(instr);
        self.sites_of_code.push(self.current_site);
    }

    pub(crate) fn moves(&mut self, moves: Vec<(Reg, Reg)>) {
        let moves: Vec<(Reg, Reg)> = moves.into_iter().filter(|(d, s)| d != s).collect();
        if !moves.is_empty() {
            self.emit(Instr::Move { moves });
        }
    }

    pub(crate) fn position(&self) -> u32 {
        self.code.len() as u32
    }

    /// The code from `start` to here is the current op's loop.
    pub(crate) fn close_loop(&mut self, start: u32) {
        let end = self.position();
        self.loops.push(LoopSpan { start, end, site: self.current_site });
    }

    /// Label ids to code positions.
    pub(crate) fn resolve(&mut self) {
        let at = |label: &mut Label, labels: &[Option<usize>]| *label = labels[*label].expect("placed label");
        let labels = std::mem::take(&mut self.labels);
        for instr in &mut self.code {
            match instr {
                Instr::Jump { target } => at(target, &labels),
                Instr::Branch { on_true, on_false, .. } => {
                    at(on_true, &labels);
                    at(on_false, &labels);
                }
                Instr::Switch { cases, default, .. } => {
                    cases.iter_mut().for_each(|(_, l)| at(l, &labels));
                    at(default, &labels);
                }
                _ => {}
            }
        }
    }
}

impl FunctionCode {
    /// The registers of `block`'s arguments, in order.
    pub(crate) fn arguments(&mut self, block: BlockRef<'_, '_>) -> Vec<Reg> {
        (0..block.argument_count())
            .map(|i| self.reg(block.argument(i).expect("an argument below the count").into()))
            .collect()
    }
}
