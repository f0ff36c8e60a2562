//! Unstructured control flow and calls (`func`, `cf`, `ccl.submit`):
//! returns, branches with their block arguments moved into registers, and
//! calls with their arity checked against the callee.

use crate::code::{Exit, FunctionCode};
use crate::function::{Compiler, OpParts};
use crate::types::callee_result_count;
use cclir_dialect::ir;
use cclir_sim::program::{Instr, Reg};
use cclir_sim::InputError;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::BlockRef;

impl<'c, 'a> Compiler<'_, 'c, 'a> {
    /// Compiles `parts` if it is a `func` or `cf` op or a call; whether it
    /// was.
    pub(crate) fn control(
        &mut self,
        code: &mut FunctionCode,
        parts: &OpParts<'c, 'a>,
        exit: &Exit,
    ) -> Result<bool, InputError> {
        let OpParts { op, name, operands, .. } = parts;
        match *name {
            "func.return" => match exit {
                Exit::Return => code.emit(Instr::Return { values: operands.clone() }),
                _ => return Err(parts.error("'func.return' inside a region ccl-sim does not expect it in")),
            },
            "cf.br" => {
                let target = op.successor(0).map_err(|_| parts.error("cf.br without a successor"))?;
                self.branch_to(code, target, operands);
            }
            "cf.cond_br" => {
                let on_true = op.successor(0).map_err(|_| parts.error("cf.cond_br without successors"))?;
                let on_false = op.successor(1).map_err(|_| parts.error("cf.cond_br without successors"))?;
                let (true_args, false_args) = (parts.segment(1), parts.segment(2));
                let (t, f) = (code.new_label(), code.new_label());
                code.emit(Instr::Branch { cond: operands[0], on_true: t, on_false: f });
                code.place(t);
                self.branch_to(code, on_true, &true_args);
                code.place(f);
                self.branch_to(code, on_false, &false_args);
            }
            "func.call" | "ccl.submit" => self.call(code, parts)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A call (`func.call`, or `ccl.submit`, a launch of a kernel), with its
    /// launch width from the op or the callee.
    fn call(&mut self, code: &mut FunctionCode, parts: &OpParts<'c, 'a>) -> Result<(), InputError> {
        let OpParts { op, name, operands, results } = parts;
        let callee_name = ir::flat_symbol_attr(*op, "callee").unwrap_or_default().to_string();
        let Some(callee) = self.functions.get(&callee_name).copied() else {
            return Err(parts.error(format!("call of @{callee_name}, which is not a function of this module")));
        };
        match ir::entry_block(callee).map(|b| b.argument_count()) {
            None => {
                return Err(
                    parts.error(format!("ccl-sim cannot run @{callee_name}: it is a declaration without a body"))
                )
            }
            Some(count) if count != operands.len() => {
                return Err(
                    parts.error(format!("@{callee_name} takes {count} arguments, '{name}' passes {}", operands.len()))
                )
            }
            _ => {}
        }
        let callee_results = callee_result_count(callee);
        if callee_results != results.len() {
            return Err(parts
                .error(format!("@{callee_name} returns {callee_results} values, '{name}' expects {}", results.len())));
        }
        let width = ir::i64_attr(*op, "ccl.launch_width")
            .or_else(|| ir::i64_attr(callee, "ccl.launch_width"))
            .map(|w| w.max(1) as u64);
        let site = code.current_site;
        let id = self.function_id(&callee_name);
        let (args, results) = (operands.clone(), results.clone());
        code.emit(Instr::Call { site, callee: id, args, results, width, submit: *name == "ccl.submit" });
        Ok(())
    }

    /// Moves `args` into the arguments of `target` and jumps there.
    fn branch_to(&mut self, code: &mut FunctionCode, target: BlockRef<'c, 'a>, args: &[Reg]) {
        let params = code.arguments(target);
        code.moves(params.into_iter().zip(args.iter().copied()).collect());
        let label = match code.block_labels.get(&ir::BlockKey::of(target)) {
            Some(label) => *label,
            None => {
                let label = code.new_label();
                code.block_labels.insert(ir::BlockKey::of(target), label);
                label
            }
        };
        code.emit(Instr::Jump { target: label });
    }
}
