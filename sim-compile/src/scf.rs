//! Structured control flow (`scf`): each op becomes branches and jumps
//! over its regions' code, and each terminator (`scf.yield`,
//! `scf.condition`, ...) moves its operands where its op's [`Exit`] says.

use crate::code::{Exit, FunctionCode};
use crate::function::{Compiler, OpParts};
use crate::memref::dense_i64;
use cclir_dialect::ir;
use cclir_sim::program::{BinOp, Instr, Label, Pred, Reg, Scalar, Wrap};
use cclir_sim::value::Val;
use cclir_sim::InputError;
use melior::ir::operation::OperationLike;
use melior::ir::RegionRef;

impl<'c, 'a> Compiler<'_, 'c, 'a> {
    /// Compiles `parts` if it is an `scf` op; whether it was.
    pub(crate) fn scf(
        &mut self,
        code: &mut FunctionCode,
        parts: &OpParts<'c, 'a>,
        exit: &Exit,
    ) -> Result<bool, InputError> {
        match parts.name {
            "scf.yield" | "scf.reduce" | "scf.forall.in_parallel" => yield_to(code, parts, exit)?,
            "scf.condition" => condition(code, parts, exit)?,
            "scf.if" => self.if_op(code, parts)?,
            "scf.execute_region" => {
                let done = code.new_label();
                let region = ir::regions(parts.op).next().expect("region");
                self.region(code, region, &Exit::Yield { dsts: parts.results.clone(), then: done })?;
                code.place(done);
            }
            "scf.index_switch" => self.index_switch(code, parts)?,
            "scf.for" => self.for_op(code, parts)?,
            "scf.parallel" | "scf.forall" => self.parallel(code, parts)?,
            "scf.while" => self.while_op(code, parts)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn if_op(&mut self, code: &mut FunctionCode, parts: &OpParts<'c, 'a>) -> Result<(), InputError> {
        let regions: Vec<RegionRef> = ir::regions(parts.op).collect();
        let (then_label, else_label, done) = (code.new_label(), code.new_label(), code.new_label());
        code.emit(Instr::Branch { cond: parts.operands[0], on_true: then_label, on_false: else_label });
        code.place(then_label);
        let exit = Exit::Yield { dsts: parts.results.clone(), then: done };
        self.region(code, regions[0], &exit)?;
        code.place(else_label);
        if ir::blocks(regions[1]).next().is_some() {
            self.region(code, regions[1], &exit)?;
        } else {
            code.emit(Instr::Jump { target: done });
        }
        code.place(done);
        Ok(())
    }

    fn index_switch(&mut self, code: &mut FunctionCode, parts: &OpParts<'c, 'a>) -> Result<(), InputError> {
        let regions: Vec<RegionRef> = ir::regions(parts.op).collect();
        let cases = dense_i64(parts.op, "cases").unwrap_or_default();
        let done = code.new_label();
        let labels: Vec<Label> = regions.iter().map(|_| code.new_label()).collect();
        code.emit(Instr::Switch {
            value: parts.operands[0],
            cases: cases.iter().copied().zip(labels[1..].iter().copied()).collect(),
            default: labels[0],
        });
        let exit = Exit::Yield { dsts: parts.results.clone(), then: done };
        for (region, label) in regions.into_iter().zip(labels) {
            code.place(label);
            self.region(code, region, &exit)?;
        }
        code.place(done);
        Ok(())
    }

    fn for_op(&mut self, code: &mut FunctionCode, parts: &OpParts<'c, 'a>) -> Result<(), InputError> {
        let operands = &parts.operands;
        let region = ir::regions(parts.op).next().expect("region");
        let block = ir::blocks(region).next().expect("block");
        let arguments = code.arguments(block);
        let (iv, iters) = (arguments[0], &arguments[1..]);
        let ty = parts.operand_scalar(0)?;
        let (lb, ub, step) = (operands[0], operands[1], operands[2]);
        let mut moves = vec![(iv, lb)];
        moves.extend(iters.iter().copied().zip(operands[3..].iter().copied()));
        code.moves(moves);
        let compare = if parts.op.attribute("unsignedCmp").is_ok() { Pred::Ult } else { Pred::Slt };
        self.counted_loop(code, (iv, ub, step, compare), ty, iters, &parts.results, region)
    }

    fn parallel(&mut self, code: &mut FunctionCode, parts: &OpParts<'c, 'a>) -> Result<(), InputError> {
        let (lbs, ubs, steps) = if parts.name == "scf.parallel" {
            if !parts.segment(3).is_empty() {
                return Err(parts.error("ccl-sim does not run scf.parallel reductions"));
            }
            (parts.segment(0), parts.segment(1), parts.segment(2))
        } else {
            if !parts.segment(3).is_empty() {
                return Err(parts.error("ccl-sim does not run scf.forall with shared outputs"));
            }
            let lbs = forall_bounds(code, parts, "staticLowerBound", 0)?;
            let ubs = forall_bounds(code, parts, "staticUpperBound", 1)?;
            (lbs, ubs, forall_bounds(code, parts, "staticStep", 2)?)
        };
        let region = ir::regions(parts.op).next().expect("region");
        let block = ir::blocks(region).next().expect("block");
        let ivs = code.arguments(block);
        self.parallel_nest(code, &ivs, &lbs, &ubs, &steps, region)
    }

    fn while_op(&mut self, code: &mut FunctionCode, parts: &OpParts<'c, 'a>) -> Result<(), InputError> {
        let regions: Vec<RegionRef> = ir::regions(parts.op).collect();
        let before_args = code.arguments(ir::blocks(regions[0]).next().expect("before"));
        let after_args = code.arguments(ir::blocks(regions[1]).next().expect("after"));
        code.moves(before_args.iter().copied().zip(parts.operands.iter().copied()).collect());
        let (before, after, done) = (code.new_label(), code.new_label(), code.new_label());
        let start = code.position();
        code.place(before);
        let condition = Exit::Condition { after_args, results: parts.results.clone(), after, done };
        self.region(code, regions[0], &condition)?;
        code.place(after);
        self.region(code, regions[1], &Exit::Yield { dsts: before_args, then: before })?;
        code.close_loop(start);
        code.place(done);
        Ok(())
    }

    /// `for iv = (already set) while iv < ub: body; iv += step`, the body's
    /// yield moving into `iters`; the results are the final `iters`.
    fn counted_loop(
        &mut self,
        code: &mut FunctionCode,
        (iv, ub, step, compare): (Reg, Reg, Reg, Pred),
        ty: Scalar,
        iters: &[Reg],
        results: &[Reg],
        body: RegionRef<'c, 'a>,
    ) -> Result<(), InputError> {
        let (header, latch, enter, done) = (code.new_label(), code.new_label(), code.new_label(), code.new_label());
        let cond = code.temp();
        code.emit(Instr::CheckStep { step });
        let start = code.position();
        code.place(header);
        code.emit(Instr::Cmp { dst: cond, pred: compare, lhs: iv, rhs: ub, ty });
        code.emit(Instr::Branch { cond, on_true: enter, on_false: done });
        code.place(enter);
        self.region(code, body, &Exit::Yield { dsts: iters.to_vec(), then: latch })?;
        code.place(latch);
        code.emit(Instr::Binary { dst: iv, op: BinOp::Add, lhs: iv, rhs: step, ty, wrap: Wrap::default() });
        code.emit(Instr::Jump { target: header });
        code.close_loop(start);
        code.place(done);
        code.moves(results.iter().copied().zip(iters.iter().copied()).collect());
        Ok(())
    }

    /// The iterations of a parallel loop, run in order (one valid schedule of
    /// unordered iterations within one block).
    fn parallel_nest(
        &mut self,
        code: &mut FunctionCode,
        ivs: &[Reg],
        lbs: &[Reg],
        ubs: &[Reg],
        steps: &[Reg],
        body: RegionRef<'c, 'a>,
    ) -> Result<(), InputError> {
        let index = Scalar::Int(64);
        let mut exits = Vec::new();
        for step in steps {
            code.emit(Instr::CheckStep { step: *step });
        }
        let start = code.position();
        for d in 0..ivs.len() {
            code.moves(vec![(ivs[d], lbs[d])]);
            let (header, enter, done) = (code.new_label(), code.new_label(), code.new_label());
            let cond = code.temp();
            code.place(header);
            code.emit(Instr::Cmp { dst: cond, pred: Pred::Slt, lhs: ivs[d], rhs: ubs[d], ty: index });
            code.emit(Instr::Branch { cond, on_true: enter, on_false: done });
            code.place(enter);
            exits.push((header, done));
        }
        let latch = code.new_label();
        self.region(code, body, &Exit::Yield { dsts: Vec::new(), then: latch })?;
        code.place(latch);
        for d in (0..ivs.len()).rev() {
            let (header, done) = exits[d];
            code.emit(Instr::Binary {
                dst: ivs[d],
                op: BinOp::Add,
                lhs: ivs[d],
                rhs: steps[d],
                ty: index,
                wrap: Wrap::default(),
            });
            code.emit(Instr::Jump { target: header });
            code.place(done);
        }
        code.close_loop(start);
        Ok(())
    }
}

/// `scf.yield` (and `scf.reduce`, `scf.forall.in_parallel`): the operands
/// into the exit's registers, then a jump to its label.
fn yield_to(code: &mut FunctionCode, parts: &OpParts<'_, '_>, exit: &Exit) -> Result<(), InputError> {
    let (name, operands) = (parts.name, &parts.operands);
    match exit {
        Exit::Yield { dsts, then } => {
            if name == "scf.reduce" && !operands.is_empty() {
                return Err(parts.error("ccl-sim does not run scf.parallel reductions"));
            }
            if dsts.len() != operands.len() && name == "scf.yield" {
                return Err(parts.error("yield arity does not match"));
            }
            code.moves(dsts.iter().copied().zip(operands.iter().copied()).collect());
            code.emit(Instr::Jump { target: *then });
            Ok(())
        }
        _ => Err(parts.error(format!("'{name}' where ccl-sim expects another terminator"))),
    }
}

/// `scf.condition` of a while loop's before-region: on true, the carried
/// values into the after-region's arguments; on false, into the results.
fn condition(code: &mut FunctionCode, parts: &OpParts<'_, '_>, exit: &Exit) -> Result<(), InputError> {
    let Exit::Condition { after_args, results, after, done } = exit else {
        return Err(parts.error("'scf.condition' outside scf.while"));
    };
    let cond = parts.operands[0];
    let carried = &parts.operands[1..];
    let (to_after, to_done) = (code.new_label(), code.new_label());
    code.emit(Instr::Branch { cond, on_true: to_after, on_false: to_done });
    code.place(to_after);
    code.moves(after_args.iter().copied().zip(carried.iter().copied()).collect());
    code.emit(Instr::Jump { target: *after });
    code.place(to_done);
    code.moves(results.iter().copied().zip(carried.iter().copied()).collect());
    code.emit(Instr::Jump { target: *done });
    Ok(())
}

/// The registers of an `scf.forall`'s bounds: static values of `attr` in
/// registers of their own, dynamic ones (`i64::MIN`) from operand segment
/// `segment`.
fn forall_bounds(
    code: &mut FunctionCode,
    parts: &OpParts<'_, '_>,
    attr: &str,
    segment: usize,
) -> Result<Vec<Reg>, InputError> {
    let statics = dense_i64(parts.op, attr).ok_or_else(|| parts.error(format!("no {attr}")))?;
    let mut dynamic = parts.segment(segment).into_iter();
    let mut regs = Vec::new();
    for value in statics {
        if value == i64::MIN {
            regs.push(dynamic.next().ok_or_else(|| parts.error("bad forall bounds"))?);
        } else {
            let reg = code.temp();
            code.emit(Instr::Const { dst: reg, value: Val::Int(value) });
            regs.push(reg);
        }
    }
    Ok(regs)
}
