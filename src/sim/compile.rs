//! From MLIR to the simulator's program: every function reachable from the
//! entry becomes flat code. Structured ops (`scf.for`, `scf.while`, `scf.if`,
//! `scf.index_switch`, `scf.execute_region`, `scf.parallel`, `scf.forall`)
//! become branches; `cf` branches become moves into block-argument
//! registers and jumps. An op the simulator does not execute is a located
//! error here, before anything runs: nothing is skipped silently.

use super::program::*;
use super::value::{wrap, Val};
use super::InputError;
use crate::diagnostics::SourceLoc;
use cclir_dialect::ffi::locations::{location_name, source_loc_of};
use cclir_dialect::ir;
use cclir_dialect::names::FunctionKind;
use melior::ir::attribute::{ArrayAttribute, DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, OperationRef, RegionRef, Value, ValueLike};
use rustc_hash::FxHashMap;
use std::sync::Arc;

fn error_at(op: OperationRef<'_, '_>, message: impl Into<String>) -> InputError {
    InputError { loc: source_loc_of(op.location()), message: message.into() }
}

/// Compiles the functions reachable from `entry` (or the default entry: a
/// function named `main`, else the one orchestration-like function nobody
/// calls) of `module`.
/// `source` is the text `module` was parsed from, if the caller has it: the
/// entry's argument names (`--arg rows=1024`) come from it, since MLIR keeps
/// no SSA names.
pub fn compile(module: OperationRef<'_, '_>, entry: Option<&str>, source: Option<&str>) -> Result<Program, InputError> {
    let mut functions: FxHashMap<String, OperationRef<'_, '_>> = FxHashMap::default();
    let mut order = Vec::new();
    let body = ir::regions(module).next().and_then(|r| ir::blocks(r).next());
    for op in body.into_iter().flat_map(ir::ops) {
        if ir::op_name(op) == "func.func" {
            let name = ir::symbol_name(op).unwrap_or_default().to_string();
            order.push(name.clone());
            functions.insert(name, op);
        }
    }
    let entry_name = match entry {
        Some(name) => {
            if !functions.contains_key(name) {
                return Err(InputError {
                    loc: source_loc_of(module.location()),
                    message: format!("no function @{name} to run (--entry)"),
                });
            }
            name.to_string()
        }
        None => default_entry(&order, &functions)
            .map_err(|message| InputError { loc: source_loc_of(module.location()), message })?,
    };
    let mut compiler = Compiler {
        functions: &functions,
        ids: FxHashMap::default(),
        queue: Vec::new(),
        sites: Vec::new(),
        function_sites: Vec::new(),
    };
    let entry_id = compiler.function_id(&entry_name);
    let mut compiled: Vec<Option<Func>> = Vec::new();
    let mut next = 0;
    while next < compiler.queue.len() {
        let name = compiler.queue[next].clone();
        let func = compiler.compile_function(functions[&name])?;
        compiler.function_sites.push(func.site);
        compiled.push(Some(func));
        next += 1;
    }
    let funcs: Vec<Func> = compiled.into_iter().map(|f| f.expect("compiled")).collect();
    // The widest launch sets the block slots every rank has. A kernel that
    // is the entry launches with its own width.
    let mut slots = 1;
    let mut widest = None;
    let entry_width = funcs[entry_id as usize].launch_width.filter(|_| funcs[entry_id as usize].kind == Kind::InCore);
    if let Some(width) = entry_width {
        slots = width;
        widest = Some(compiler.function_sites[entry_id as usize]);
    }
    for func in &funcs {
        for instr in &func.code {
            if let Instr::Call { width: Some(width), site, .. } = instr {
                if *width > slots {
                    slots = *width;
                    widest = Some(*site);
                }
            }
        }
    }
    // The names are in `source` if the entry was parsed from it, else in the
    // file its location names (`--mlir-print-debuginfo` output keeps the
    // original file's locations).
    let entry_arg_names = match source_loc_of(functions[&entry_name].location()) {
        SourceLoc::File { file, line, col } => {
            let at = |text: &str| argument_names(text, &entry_name, line as usize, col as usize);
            source.and_then(at).or_else(|| std::fs::read_to_string(&file).ok().as_deref().and_then(at))
        }
        SourceLoc::Unknown => None,
    }
    .unwrap_or_default();
    Ok(Program { funcs, sites: compiler.sites, entry: entry_id, slots, widest, entry_arg_names })
}

/// The argument names of `func.func @name` if it starts at `line`, `col`
/// (1-based) of `text`: `%rows: index` gives `rows`.
fn argument_names(text: &str, name: &str, line: usize, col: usize) -> Option<Vec<Option<String>>> {
    let start = text.split_inclusive('\n').take(line.checked_sub(1)?).map(str::len).sum::<usize>();
    let rest = text.get(start + col.checked_sub(1)?..)?;
    let header = rest.strip_prefix("func.func")?.trim_start();
    let header = header.strip_prefix("private").or(header.strip_prefix("public")).unwrap_or(header).trim_start();
    let after_name = header.strip_prefix('@')?.strip_prefix(name)?;
    if !after_name.starts_with('(') {
        return None;
    }
    let open = rest.len() - after_name.len();
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let list = &rest[open + 1..close?];
    Some(
        split_top_level(list)
            .into_iter()
            .map(|arg| {
                let name = arg.strip_prefix('%')?.split(':').next()?.trim();
                (!name.is_empty()).then(|| name.to_string())
            })
            .collect(),
    )
}

fn default_entry(order: &[String], functions: &FxHashMap<String, OperationRef<'_, '_>>) -> Result<String, String> {
    if functions.contains_key("main") {
        return Ok("main".to_string());
    }
    let mut called = rustc_hash::FxHashSet::default();
    for func in functions.values() {
        ir::walk_nested(*func, |op| {
            if let Some(callee) = ir::flat_symbol_attr(op, "callee") {
                called.insert(callee.to_string());
            }
            ir::Walk::Advance
        });
    }
    let candidates: Vec<&String> = order
        .iter()
        .filter(|name| {
            let func = functions[*name];
            !called.contains(*name)
                && ir::entry_block(func).is_some()
                && ir::function_kind(func).is_ok_and(|k| k == FunctionKind::Orchestration)
        })
        .collect();
    match candidates.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err("no entry function: name one with --entry (no @main, no orchestration function nobody calls)".into()),
        many => Err(format!(
            "several functions could be the entry ({}): name one with --entry",
            many.iter().map(|n| format!("@{n}")).collect::<Vec<_>>().join(", ")
        )),
    }
}

struct Compiler<'m, 'c, 'a> {
    functions: &'m FxHashMap<String, OperationRef<'c, 'a>>,
    ids: FxHashMap<String, FuncId>,
    queue: Vec<String>,
    sites: Vec<Site>,
    /// Per compiled function, the site of its `func.func`.
    function_sites: Vec<SiteId>,
}

impl<'c, 'a> Compiler<'_, 'c, 'a> {
    fn function_id(&mut self, name: &str) -> FuncId {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = self.queue.len() as FuncId;
        self.ids.insert(name.to_string(), id);
        self.queue.push(name.to_string());
        id
    }

    fn site(&mut self, op: OperationRef<'_, '_>) -> SiteId {
        let location = op.location();
        // The lowering names each op's protocol step (`barrier-b.wait`).
        let step =
            location_name(location).and_then(|name| name.strip_prefix("ccl-lower-all-to-all-v.").map(str::to_string));
        self.sites.push(Site { op: ir::op_name(op).to_string(), loc: source_loc_of(location), step });
        (self.sites.len() - 1) as SiteId
    }

    fn compile_function(&mut self, func: OperationRef<'c, 'a>) -> Result<Func, InputError> {
        let name = ir::symbol_name(func).unwrap_or_default().to_string();
        let kind = match ir::function_kind(func) {
            Ok(FunctionKind::InCore) => Kind::InCore,
            Ok(FunctionKind::Orchestration) => Kind::Orchestration,
            Ok(FunctionKind::Other) => Kind::Other,
            Err(unknown) => return Err(error_at(func, unknown.to_string())),
        };
        let launch_width = ir::i64_attr(func, "ccl.launch_width").map(|w| w.max(1) as u64);
        let Some(body) = ir::regions(func).next() else {
            return Err(error_at(func, format!("@{name} has no body to run")));
        };
        let Some(entry) = ir::blocks(body).next() else {
            return Err(error_at(func, format!("ccl-sim cannot run @{name}: it is a declaration without a body")));
        };
        let mut code = FunctionCode { current_site: self.site(func), ..FunctionCode::default() };
        let mut params = Vec::new();
        let mut param_types = Vec::new();
        for i in 0..entry.argument_count() {
            let arg: Value = entry.argument(i).expect("argument").into();
            params.push(code.reg(arg));
            param_types.push(ty_of(&arg.r#type().to_string()));
        }
        let site = code.current_site;
        self.region(&mut code, body, &Exit::Return)?;
        code.resolve();
        Ok(Func {
            name,
            site,
            kind,
            launch_width,
            params,
            param_types,
            registers: code.next_reg,
            code: code.code,
            sites: code.sites_of_code,
            loops: code.loops,
        })
    }

    /// Compiles the blocks of `region`; the caller has moved the entry
    /// block's arguments into their registers and falls into the region.
    fn region(&mut self, code: &mut FunctionCode, region: RegionRef<'c, 'a>, exit: &Exit) -> Result<(), InputError> {
        let blocks: Vec<BlockRef<'c, 'a>> = ir::blocks(region).collect();
        for block in &blocks {
            let label = code.new_label();
            code.block_labels.insert(ir::BlockKey::of(*block), label);
        }
        // What the caller emits after the region is its own op's code.
        let outer = code.current_site;
        for block in blocks {
            code.place(code.block_labels[&ir::BlockKey::of(block)]);
            for op in ir::ops(block) {
                code.current_site = self.site(op);
                self.op(code, op, exit)?;
            }
        }
        code.current_site = outer;
        Ok(())
    }

    fn op(&mut self, code: &mut FunctionCode, op: OperationRef<'c, 'a>, exit: &Exit) -> Result<(), InputError> {
        let name = ir::op_name(op);
        let operands: Vec<Reg> = (0..ir::operand_count(op)).map(|i| code.reg(ir::operand(op, i))).collect();
        let results: Vec<Reg> = (0..ir::result_count(op)).map(|i| code.reg(ir::result(op, i))).collect();
        let result_ty = |i: usize| ty_of(&ir::result(op, i).r#type().to_string());
        // The element type arithmetic works on: a scalar's, or a vector's lanes.
        let element_of = |ty: Ty| match ty {
            Ty::Scalar(s) => Ok(s),
            Ty::Vector { element, .. } => Ok(element),
            Ty::MemRef { .. } => Err(error_at(op, format!("'{name}' on a memref, not a scalar or vector"))),
            Ty::Other(text) => Err(error_at(op, unsupported_type(name, &text))),
        };
        let scalar_of_result = |i: usize| element_of(result_ty(i));
        let operand_scalar = |i: usize| element_of(ty_of(&ir::operand(op, i).r#type().to_string()));
        if let Some(bin) = binary_op(name) {
            let ty = scalar_of_result(0)?;
            // `overflow<nsw, nuw>`: an overflow is poison in MLIR.
            let flags = op.attribute("overflowFlags").map(|a| a.to_string()).unwrap_or_default();
            let wrap = Wrap { nsw: flags.contains("nsw"), nuw: flags.contains("nuw") };
            code.emit(Instr::Binary { dst: results[0], op: bin, lhs: operands[0], rhs: operands[1], ty, wrap });
            return Ok(());
        }
        if let Some(cast) = cast_op(name) {
            let (from, to) = (operand_scalar(0)?, scalar_of_result(0)?);
            code.emit(Instr::Cast { dst: results[0], src: operands[0], op: cast, from, to });
            return Ok(());
        }
        match name {
            "arith.constant" | "index.constant" | "index.bool.constant" => {
                let value = constant(op, &result_ty(0)).ok_or_else(|| match result_ty(0) {
                    Ty::Other(text) => error_at(op, unsupported_type(name, &text)),
                    _ => error_at(op, "ccl-sim cannot read this constant"),
                })?;
                code.emit(Instr::Const { dst: results[0], value });
            }
            "arith.cmpi" | "arith.cmpf" | "index.cmp" => {
                let pred = predicate(op).ok_or_else(|| error_at(op, "unknown comparison predicate"))?;
                let ty = operand_scalar(0)?;
                code.emit(Instr::Cmp { dst: results[0], pred, lhs: operands[0], rhs: operands[1], ty });
            }
            "arith.select" => code.emit(Instr::Select {
                dst: results[0],
                cond: operands[0],
                on_true: operands[1],
                on_false: operands[2],
            }),
            "func.return" => match exit {
                Exit::Return => code.emit(Instr::Return { values: operands }),
                _ => return Err(error_at(op, "'func.return' inside a region ccl-sim does not expect it in")),
            },
            "scf.yield" | "scf.reduce" | "scf.forall.in_parallel" => match exit {
                Exit::Yield { dsts, then } => {
                    if name == "scf.reduce" && !operands.is_empty() {
                        return Err(error_at(op, "ccl-sim does not run scf.parallel reductions"));
                    }
                    if dsts.len() != operands.len() && name == "scf.yield" {
                        return Err(error_at(op, "yield arity does not match"));
                    }
                    code.moves(dsts.iter().copied().zip(operands.iter().copied()).collect());
                    code.emit(Instr::Jump { target: *then });
                }
                _ => return Err(error_at(op, format!("'{name}' where ccl-sim expects another terminator"))),
            },
            "scf.condition" => match exit {
                Exit::Condition { after_args, results, after, done } => {
                    let cond = operands[0];
                    let carried = &operands[1..];
                    let to_after = code.new_label();
                    let to_done = code.new_label();
                    code.emit(Instr::Branch { cond, on_true: to_after, on_false: to_done });
                    code.place(to_after);
                    code.moves(after_args.iter().copied().zip(carried.iter().copied()).collect());
                    code.emit(Instr::Jump { target: *after });
                    code.place(to_done);
                    code.moves(results.iter().copied().zip(carried.iter().copied()).collect());
                    code.emit(Instr::Jump { target: *done });
                }
                _ => return Err(error_at(op, "'scf.condition' outside scf.while")),
            },
            "cf.br" => {
                let target = op.successor(0).map_err(|_| error_at(op, "cf.br without a successor"))?;
                self.branch_to(code, target, &operands);
            }
            "cf.cond_br" => {
                let on_true = op.successor(0).map_err(|_| error_at(op, "cf.cond_br without successors"))?;
                let on_false = op.successor(1).map_err(|_| error_at(op, "cf.cond_br without successors"))?;
                let true_args = ir::operand_segment(op, 1).map(|r| operands[r].to_vec()).unwrap_or_default();
                let false_args = ir::operand_segment(op, 2).map(|r| operands[r].to_vec()).unwrap_or_default();
                let (t, f) = (code.new_label(), code.new_label());
                code.emit(Instr::Branch { cond: operands[0], on_true: t, on_false: f });
                code.place(t);
                self.branch_to(code, on_true, &true_args);
                code.place(f);
                self.branch_to(code, on_false, &false_args);
            }
            "func.call" | "ccl.submit" => {
                let callee_name = ir::flat_symbol_attr(op, "callee").unwrap_or_default().to_string();
                let Some(callee) = self.functions.get(&callee_name).copied() else {
                    return Err(error_at(
                        op,
                        format!("call of @{callee_name}, which is not a function of this module"),
                    ));
                };
                let parameters = ir::entry_block(callee).map(|b| b.argument_count());
                match parameters {
                    None => {
                        return Err(error_at(
                            op,
                            format!("ccl-sim cannot run @{callee_name}: it is a declaration without a body"),
                        ))
                    }
                    Some(count) if count != operands.len() => {
                        return Err(error_at(
                            op,
                            format!("@{callee_name} takes {count} arguments, '{name}' passes {}", operands.len()),
                        ))
                    }
                    _ => {}
                }
                let callee_results = callee_result_count(callee);
                if callee_results != results.len() {
                    return Err(error_at(
                        op,
                        format!("@{callee_name} returns {callee_results} values, '{name}' expects {}", results.len()),
                    ));
                }
                let width = ir::i64_attr(op, "ccl.launch_width")
                    .or_else(|| ir::i64_attr(callee, "ccl.launch_width"))
                    .map(|w| w.max(1) as u64);
                let site = code.current_site;
                let id = self.function_id(&callee_name);
                code.emit(Instr::Call {
                    site,
                    callee: id,
                    args: operands,
                    results,
                    width,
                    submit: name == "ccl.submit",
                });
            }
            "scf.if" => {
                let regions: Vec<RegionRef> = ir::regions(op).collect();
                let (then_label, else_label, done) = (code.new_label(), code.new_label(), code.new_label());
                code.emit(Instr::Branch { cond: operands[0], on_true: then_label, on_false: else_label });
                code.place(then_label);
                let exit = Exit::Yield { dsts: results.clone(), then: done };
                self.region(code, regions[0], &exit)?;
                code.place(else_label);
                if ir::blocks(regions[1]).next().is_some() {
                    self.region(code, regions[1], &exit)?;
                } else {
                    code.emit(Instr::Jump { target: done });
                }
                code.place(done);
            }
            "scf.execute_region" => {
                let done = code.new_label();
                let region = ir::regions(op).next().expect("region");
                self.region(code, region, &Exit::Yield { dsts: results, then: done })?;
                code.place(done);
            }
            "scf.index_switch" => {
                let regions: Vec<RegionRef> = ir::regions(op).collect();
                let cases = dense_i64(op, "cases").unwrap_or_default();
                let done = code.new_label();
                let labels: Vec<Label> = regions.iter().map(|_| code.new_label()).collect();
                code.emit(Instr::Switch {
                    value: operands[0],
                    cases: cases.iter().copied().zip(labels[1..].iter().copied()).collect(),
                    default: labels[0],
                });
                let exit = Exit::Yield { dsts: results, then: done };
                for (region, label) in regions.into_iter().zip(labels) {
                    code.place(label);
                    self.region(code, region, &exit)?;
                }
                code.place(done);
            }
            "scf.for" => {
                let region = ir::regions(op).next().expect("region");
                let block = ir::blocks(region).next().expect("block");
                let iv = code.reg(block.argument(0).expect("iv").into());
                let iters: Vec<Reg> =
                    (1..block.argument_count()).map(|i| code.reg(block.argument(i).expect("arg").into())).collect();
                let ty = operand_scalar(0)?;
                let (lb, ub, step) = (operands[0], operands[1], operands[2]);
                let mut moves = vec![(iv, lb)];
                moves.extend(iters.iter().copied().zip(operands[3..].iter().copied()));
                code.moves(moves);
                let compare = if op.attribute("unsignedCmp").is_ok() { Pred::Ult } else { Pred::Slt };
                self.counted_loop(code, (iv, ub, step, compare), ty, &iters, &results, region)?;
            }
            "scf.parallel" | "scf.forall" => {
                let (lbs, ubs, steps) = if name == "scf.parallel" {
                    if ir::operand_segment(op, 3).is_some_and(|r| !r.is_empty()) {
                        return Err(error_at(op, "ccl-sim does not run scf.parallel reductions"));
                    }
                    let seg = |i| ir::operand_segment(op, i).map(|r| operands[r].to_vec()).unwrap_or_default();
                    (seg(0), seg(1), seg(2))
                } else {
                    if ir::operand_segment(op, 3).is_some_and(|r| !r.is_empty()) {
                        return Err(error_at(op, "ccl-sim does not run scf.forall with shared outputs"));
                    }
                    let mut mixed = |attr: &str, segment: usize| -> Result<Vec<Reg>, InputError> {
                        let statics = dense_i64(op, attr).ok_or_else(|| error_at(op, format!("no {attr}")))?;
                        let dynamic =
                            ir::operand_segment(op, segment).map(|r| operands[r].to_vec()).unwrap_or_default();
                        let mut dynamic = dynamic.into_iter();
                        let mut regs = Vec::new();
                        for value in statics {
                            if value == i64::MIN {
                                regs.push(dynamic.next().ok_or_else(|| error_at(op, "bad forall bounds"))?);
                            } else {
                                let reg = code.temp();
                                code.emit(Instr::Const { dst: reg, value: Val::Int(value) });
                                regs.push(reg);
                            }
                        }
                        Ok(regs)
                    };
                    (mixed("staticLowerBound", 0)?, mixed("staticUpperBound", 1)?, mixed("staticStep", 2)?)
                };
                let region = ir::regions(op).next().expect("region");
                let block = ir::blocks(region).next().expect("block");
                let ivs: Vec<Reg> =
                    (0..block.argument_count()).map(|i| code.reg(block.argument(i).expect("iv").into())).collect();
                self.parallel_nest(code, &ivs, &lbs, &ubs, &steps, region)?;
            }
            "scf.while" => {
                let regions: Vec<RegionRef> = ir::regions(op).collect();
                let before_block = ir::blocks(regions[0]).next().expect("before");
                let after_block = ir::blocks(regions[1]).next().expect("after");
                let before_args: Vec<Reg> = (0..before_block.argument_count())
                    .map(|i| code.reg(before_block.argument(i).expect("arg").into()))
                    .collect();
                let after_args: Vec<Reg> = (0..after_block.argument_count())
                    .map(|i| code.reg(after_block.argument(i).expect("arg").into()))
                    .collect();
                code.moves(before_args.iter().copied().zip(operands.iter().copied()).collect());
                let (before, after, done) = (code.new_label(), code.new_label(), code.new_label());
                let start = code.position();
                code.place(before);
                let condition = Exit::Condition { after_args, results, after, done };
                self.region(code, regions[0], &condition)?;
                code.place(after);
                self.region(code, regions[1], &Exit::Yield { dsts: before_args, then: before })?;
                code.close_loop(start);
                code.place(done);
            }
            "memref.subview" => {
                let offsets = mixed_operands(op, "static_offsets", 1, &operands)?;
                let sizes = mixed_operands(op, "static_sizes", 2, &operands)?;
                let strides = mixed_operands(op, "static_strides", 3, &operands)?;
                let source_rank = offsets.len();
                let result_rank = match result_ty(0) {
                    Ty::MemRef { shape, .. } => shape.len(),
                    _ => source_rank,
                };
                // A rank-reducing subview drops static unit sizes, leftmost first.
                let mut dropped = Vec::new();
                let mut extra = source_rank.saturating_sub(result_rank);
                for (i, size) in sizes.iter().enumerate() {
                    if extra > 0 && *size == Operand::Static(1) {
                        dropped.push(i);
                        extra -= 1;
                    }
                }
                let kind = ViewKind::Subview { offsets, sizes, strides, dropped };
                code.emit(Instr::View { dst: results[0], src: operands[0], kind });
            }
            "memref.collapse_shape" => {
                let groups = reassociation(op).ok_or_else(|| error_at(op, "cannot read the reassociation"))?;
                code.emit(Instr::View { dst: results[0], src: operands[0], kind: ViewKind::Collapse { groups } });
            }
            "memref.expand_shape" => {
                let groups = reassociation(op).ok_or_else(|| error_at(op, "cannot read the reassociation"))?;
                let Ty::MemRef { shape, .. } = result_ty(0) else { return Err(error_at(op, "not a memref")) };
                if shape.iter().any(Option::is_none) {
                    return Err(error_at(op, "ccl-sim needs the static result shape of memref.expand_shape"));
                }
                let sizes: Vec<Vec<i64>> =
                    groups.iter().map(|g| g.iter().map(|d| shape[*d].expect("static")).collect()).collect();
                code.emit(Instr::View { dst: results[0], src: operands[0], kind: ViewKind::Expand { groups: sizes } });
            }
            "memref.cast" => code.emit(Instr::View { dst: results[0], src: operands[0], kind: ViewKind::Same }),
            "memref.alloc" | "memref.alloca" => {
                let Ty::MemRef { element, shape } = result_ty(0) else { return Err(error_at(op, "not a memref")) };
                let Some(shape) = shape.into_iter().collect::<Option<Vec<i64>>>() else {
                    return Err(error_at(op, "ccl-sim needs static shapes: this allocation has a dynamic size"));
                };
                let site = code.current_site;
                code.emit(Instr::Alloc { dst: results[0], site, element, shape });
            }
            "memref.dealloc" => code.emit(Instr::Dealloc { src: operands[0] }),
            "ccl.rank" | "ccl.block_id" | "ccl.comm_size" => {
                let what = match name {
                    "ccl.rank" => Query::Rank,
                    "ccl.block_id" => Query::BlockId,
                    _ => Query::CommSize,
                };
                code.emit(Instr::Query { dst: results[0], what, ty: scalar_of_result(0)? });
            }
            "ccl.cal_all_to_all_v_blocks" => {
                let site = code.current_site;
                let ty = scalar_of_result(0)?;
                code.emit(Instr::CalBlocks { site, dst: results[0], p: operands[0], l: operands[1], ty });
            }
            _ => {
                let types = (0..operands.len())
                    .map(|i| ir::operand(op, i).r#type().to_string())
                    .chain((0..results.len()).map(|i| ir::result(op, i).r#type().to_string()));
                for text in types {
                    if name.starts_with("ccl.") && matches!(ty_of(&text), Ty::Other(_)) {
                        return Err(error_at(op, unsupported_type(name, &text)));
                    }
                }
                let ccl = self.ccl_op(op, name, &operands, &results)?;
                let site = code.current_site;
                code.emit(Instr::Ccl { site, op: ccl });
            }
        }
        Ok(())
    }

    fn ccl_op(
        &mut self,
        op: OperationRef<'c, 'a>,
        name: &str,
        operands: &[Reg],
        results: &[Reg],
    ) -> Result<CclOp, InputError> {
        let keyword = |attr: &str| ir::enum_keyword(op, attr).unwrap_or_default();
        Ok(match name {
            "ccl.tile_store" => {
                CclOp::TileStore { tile: operands[0], dst: operands[1], indices: operands[2..].to_vec() }
            }
            "ccl.tensor_write" => {
                CclOp::TensorWrite { dst: operands[0], value: operands[1], indices: operands[2..].to_vec() }
            }
            "ccl.get" => CclOp::Get { dst: operands[0], src: operands[1], peer: operands[2] },
            "ccl.remote_store" => CclOp::RemoteStore { tile: operands[0], dst: operands[1], peer: operands[2] },
            "ccl.put" => CclOp::Put { dst: operands[0], src: operands[1], peer: operands[2] },
            "ccl.remote_load" => CclOp::RemoteLoad {
                result: results[0],
                src: operands[0],
                peer: operands[1],
                ty: ty_of(&ir::result(op, 0).r#type().to_string()),
            },
            "ccl.tile_load" => {
                let len = match ty_of(&ir::result(op, 0).r#type().to_string()) {
                    Ty::Vector { len, .. } => len,
                    _ => 1,
                };
                CclOp::TileLoad { result: results[0], src: operands[0], indices: operands[1..].to_vec(), len }
            }
            "ccl.read" => CclOp::Read { result: results[0], src: operands[0], indices: operands[1..].to_vec() },
            "ccl.notify" => CclOp::Notify {
                signal: operands[0],
                peer: operands[1],
                value: operands[2],
                add: keyword("op") == "atomic_add",
            },
            "ccl.wait" => CclOp::Wait { signal: operands[0], expected: operands[1], equal: keyword("cmp") == "eq" },
            "ccl.fence" => CclOp::Fence,
            "ccl.cacheinvalid" => CclOp::CacheInvalid { target: operands.first().copied() },
            "ccl.all_to_all_v" => CclOp::AllToAllV {
                send: operands[0],
                send_counts: operands[1],
                recv: operands[2],
                recv_counts: operands[3],
            },
            "ccl.all_reduce" => CclOp::AllReduce {
                src: operands[0],
                dst: operands[1],
                reduce: match keyword("reduce").as_str() {
                    "max" => Reduce::Max,
                    "min" => Reduce::Min,
                    _ => Reduce::Sum,
                },
            },
            "ccl.barrier" => CclOp::Barrier,
            _ => return Err(error_at(op, format!("ccl-sim does not execute '{name}'"))),
        })
    }

    /// Moves `args` into the arguments of `target` and jumps there.
    fn branch_to(&mut self, code: &mut FunctionCode, target: BlockRef<'c, 'a>, args: &[Reg]) {
        let params: Vec<Reg> =
            (0..target.argument_count()).map(|i| code.reg(target.argument(i).expect("arg").into())).collect();
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

/// What a region's terminator does.
enum Exit {
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
struct FunctionCode {
    code: Vec<Instr>,
    /// The op being compiled: every instruction emitted is its.
    current_site: SiteId,
    sites_of_code: Vec<SiteId>,
    loops: Vec<LoopSpan>,
    registers: FxHashMap<ir::ValueKey, Reg>,
    next_reg: u32,
    labels: Vec<Option<usize>>,
    block_labels: FxHashMap<ir::BlockKey, Label>,
}

impl FunctionCode {
    fn reg(&mut self, value: Value<'_, '_>) -> Reg {
        let key = ir::ValueKey::of(value);
        if let Some(reg) = self.registers.get(&key) {
            return *reg;
        }
        let reg = self.temp();
        self.registers.insert(key, reg);
        reg
    }

    fn temp(&mut self) -> Reg {
        self.next_reg += 1;
        self.next_reg - 1
    }

    fn new_label(&mut self) -> Label {
        self.labels.push(None);
        self.labels.len() - 1
    }

    fn place(&mut self, label: Label) {
        self.labels[label] = Some(self.code.len());
    }

    fn emit(&mut self, instr: Instr) {
        self.code.push(instr);
        self.sites_of_code.push(self.current_site);
    }

    fn moves(&mut self, moves: Vec<(Reg, Reg)>) {
        let moves: Vec<(Reg, Reg)> = moves.into_iter().filter(|(d, s)| d != s).collect();
        if !moves.is_empty() {
            self.emit(Instr::Move { moves });
        }
    }

    fn position(&self) -> u32 {
        self.code.len() as u32
    }

    /// The code from `start` to here is the current op's loop.
    fn close_loop(&mut self, start: u32) {
        let end = self.position();
        self.loops.push(LoopSpan { start, end, site: self.current_site });
    }

    /// Label ids to code positions.
    fn resolve(&mut self) {
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

fn callee_result_count(func: OperationRef<'_, '_>) -> usize {
    let text = func.attribute("function_type").map(|a| a.to_string()).unwrap_or_default();
    match text.split_once("->") {
        Some((_, results)) => {
            let results = results.trim();
            if results == "()" {
                0
            } else if let Some(inner) = results.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                split_top_level(inner).len()
            } else {
                1
            }
        }
        None => 0,
    }
}

/// Splits `text` at commas outside `<>`, `()` and `[]`.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(text[start..].trim());
    }
    parts
}

/// The longest vector (tile) ccl-sim runs: its values are kept lane by lane.
pub const MAX_VECTOR_LANES: usize = 1 << 20;

/// The interpreter's view of a printed MLIR type.
pub fn ty_of(text: &str) -> Ty {
    if let Some(scalar) = scalar_of(text) {
        return Ty::Scalar(scalar);
    }
    if let Some(inner) = text.strip_prefix("vector<").and_then(|t| t.strip_suffix('>')) {
        let mut parts: Vec<&str> = inner.split('x').collect();
        let element = parts.pop().and_then(scalar_of);
        let len = parts.iter().try_fold(1usize, |len, p| len.checked_mul(p.parse::<usize>().ok()?));
        if let (Some(element), Some(len)) = (element, len.filter(|len| *len <= MAX_VECTOR_LANES)) {
            return Ty::Vector { element, len };
        }
    }
    if let Some(inner) = text.strip_prefix("memref<").and_then(|t| t.strip_suffix('>')) {
        let shape_part = split_top_level(inner).first().copied().unwrap_or_default();
        let mut parts: Vec<&str> = shape_part.split('x').collect();
        if let Some(element) = parts.pop().and_then(scalar_of) {
            let shape = parts.iter().map(|p| p.parse::<i64>().ok()).collect();
            return Ty::MemRef { element, shape };
        }
    }
    Ty::Other(text.to_string())
}

/// Why `op` cannot run on a value of type `text`.
fn unsupported_type(op: &str, text: &str) -> String {
    format!(
        "ccl-sim does not run '{op}' on {text}: it models integers of 1 to 64 bits, index, f16, bf16, f32, f64 \
         and vectors of them up to {MAX_VECTOR_LANES} lanes"
    )
}

fn scalar_of(text: &str) -> Option<Scalar> {
    match text {
        "index" => Some(Scalar::Int(64)),
        "f16" | "bf16" => Some(Scalar::Float(16)),
        "f32" | "tf32" => Some(Scalar::Float(32)),
        "f64" => Some(Scalar::Float(64)),
        // Values are 64-bit patterns: wider integers (and i0) are not modelled.
        _ => {
            text.strip_prefix('i').and_then(|bits| bits.parse().ok()).filter(|b| (1..=64).contains(b)).map(Scalar::Int)
        }
    }
}

fn constant(op: OperationRef<'_, '_>, ty: &Ty) -> Option<Val> {
    let value = op.attribute("value").ok()?;
    match ty {
        Ty::Scalar(Scalar::Int(bits)) => {
            let int = IntegerAttribute::try_from(value).ok()?.value();
            Some(Val::Int(wrap(int, *bits)))
        }
        Ty::Scalar(Scalar::Float(_)) => Some(Val::float(FloatAttribute::try_from(value).ok()?.value())),
        Ty::Vector { element, len } => {
            // A splat `dense<x>`: read x from the printed form.
            let text = value.to_string();
            let inner = text.strip_prefix("dense<")?.split('>').next()?.trim();
            let bits = match element {
                Scalar::Int(b) => wrap(inner.parse::<i64>().ok()?, *b) as u64,
                Scalar::Float(_) => inner.parse::<f64>().ok()?.to_bits(),
            };
            Some(Val::Vector(Arc::from(vec![bits; *len])))
        }
        _ => None,
    }
}

fn predicate(op: OperationRef<'_, '_>) -> Option<Pred> {
    let name = ir::op_name(op);
    if name == "index.cmp" {
        let text = op.attribute("pred").ok()?.to_string();
        let keyword = text.trim_start_matches("#index<cmp_predicate").trim_end_matches('>').trim().to_string();
        return int_predicate_named(&keyword);
    }
    let value = ir::i64_attr(op, "predicate")?;
    if name == "arith.cmpi" {
        return [
            Pred::Eq,
            Pred::Ne,
            Pred::Slt,
            Pred::Sle,
            Pred::Sgt,
            Pred::Sge,
            Pred::Ult,
            Pred::Ule,
            Pred::Ugt,
            Pred::Uge,
        ]
        .get(value as usize)
        .copied();
    }
    // arith.cmpf: false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true.
    let (lt, eq, gt, unordered) = match value {
        0 => (false, false, false, false),
        1 => (false, true, false, false),
        2 => (false, false, true, false),
        3 => (false, true, true, false),
        4 => (true, false, false, false),
        5 => (true, true, false, false),
        6 => (true, false, true, false),
        7 => (true, true, true, false),
        8 => (false, true, false, true),
        9 => (false, false, true, true),
        10 => (false, true, true, true),
        11 => (true, false, false, true),
        12 => (true, true, false, true),
        13 => (true, false, true, true),
        14 => (false, false, false, true),
        _ => (true, true, true, true),
    };
    Some(Pred::F { lt, eq, gt, unordered })
}

fn int_predicate_named(keyword: &str) -> Option<Pred> {
    Some(match keyword {
        "eq" => Pred::Eq,
        "ne" => Pred::Ne,
        "slt" => Pred::Slt,
        "sle" => Pred::Sle,
        "sgt" => Pred::Sgt,
        "sge" => Pred::Sge,
        "ult" => Pred::Ult,
        "ule" => Pred::Ule,
        "ugt" => Pred::Ugt,
        "uge" => Pred::Uge,
        _ => return None,
    })
}

fn binary_op(name: &str) -> Option<BinOp> {
    Some(match name {
        "arith.addi" | "index.add" => BinOp::Add,
        "arith.subi" | "index.sub" => BinOp::Sub,
        "arith.muli" | "index.mul" => BinOp::Mul,
        "arith.divsi" | "index.divs" => BinOp::DivS,
        "arith.divui" | "index.divu" => BinOp::DivU,
        "arith.remsi" | "index.rems" => BinOp::RemS,
        "arith.remui" | "index.remu" => BinOp::RemU,
        "arith.ceildivsi" | "index.ceildivs" => BinOp::CeilDivS,
        "arith.floordivsi" | "index.floordivs" => BinOp::FloorDivS,
        "arith.andi" | "index.and" => BinOp::And,
        "arith.ori" | "index.or" => BinOp::Or,
        "arith.xori" | "index.xor" => BinOp::Xor,
        "arith.shli" | "index.shl" => BinOp::Shl,
        "arith.shrsi" | "index.shrs" => BinOp::ShrS,
        "arith.shrui" | "index.shru" => BinOp::ShrU,
        "arith.maxsi" | "index.maxs" => BinOp::MaxS,
        "arith.minsi" | "index.mins" => BinOp::MinS,
        "arith.maxui" | "index.maxu" => BinOp::MaxU,
        "arith.minui" | "index.minu" => BinOp::MinU,
        "arith.addf" => BinOp::AddF,
        "arith.subf" => BinOp::SubF,
        "arith.mulf" => BinOp::MulF,
        "arith.divf" => BinOp::DivF,
        "arith.maxnumf" | "arith.maximumf" => BinOp::MaxF,
        "arith.minnumf" | "arith.minimumf" => BinOp::MinF,
        _ => return None,
    })
}

fn cast_op(name: &str) -> Option<CastOp> {
    Some(match name {
        "arith.index_cast" | "arith.extsi" | "arith.trunci" | "index.casts" => CastOp::IntSigned,
        "arith.index_castui" | "arith.extui" | "index.castu" => CastOp::IntUnsigned,
        "arith.sitofp" => CastOp::SignedToFloat,
        "arith.uitofp" => CastOp::UnsignedToFloat,
        "arith.fptosi" => CastOp::FloatToSigned,
        "arith.fptoui" => CastOp::FloatToUnsigned,
        "arith.extf" | "arith.truncf" => CastOp::Float,
        "arith.negf" => CastOp::NegF,
        _ => return None,
    })
}

fn dense_i64(op: OperationRef<'_, '_>, name: &str) -> Option<Vec<i64>> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..attribute.len()).map(|i| attribute.element(i).ok()).collect()
}

/// Static values of `attr`, with the dynamic ones (`i64::MIN`) taken in order
/// from operand segment `segment`.
fn mixed_operands(
    op: OperationRef<'_, '_>,
    attr: &str,
    segment: usize,
    operands: &[Reg],
) -> Result<Vec<Operand>, InputError> {
    let statics = dense_i64(op, attr).ok_or_else(|| error_at(op, format!("cannot read {attr}")))?;
    let mut dynamic = ir::operand_segment(op, segment).map(|r| operands[r].to_vec()).unwrap_or_default().into_iter();
    statics
        .into_iter()
        .map(|value| {
            if value == i64::MIN {
                dynamic.next().map(Operand::Reg).ok_or_else(|| error_at(op, format!("too few dynamic {attr}")))
            } else {
                Ok(Operand::Static(value))
            }
        })
        .collect()
}

fn reassociation(op: OperationRef<'_, '_>) -> Option<Vec<Vec<usize>>> {
    let groups = ArrayAttribute::try_from(op.attribute("reassociation").ok()?).ok()?;
    (0..groups.len())
        .map(|g| {
            let group = ArrayAttribute::try_from(groups.element(g).ok()?).ok()?;
            (0..group.len())
                .map(|d| IntegerAttribute::try_from(group.element(d).ok()?).ok().map(|i| i.value() as usize))
                .collect()
        })
        .collect()
}
