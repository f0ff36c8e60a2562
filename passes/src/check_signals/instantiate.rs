//! One run of the program on P ranks, written out: the entry runs on each
//! rank's host, each launch forks its blocks, and every op other threads
//! can observe becomes an item of its thread ([`super::program`]). Values
//! are followed as far as they are known (constants, ranks, block ids, loop
//! counters, call arguments); what memory holds is not. A branch on an
//! unknown value runs both ways with its items marked uncertain, a loop of
//! unknown trip count runs once with its items marked repeated. What the
//! analysis cannot follow at all (an op it does not model, a `cf` branch on
//! an unknown value, a bound reached) ends the instantiation with no
//! conclusion, never with a guess.
//!
//! The control flow is here; what each op computes or touches is in
//! [`super::effects`].

use super::program::{Item, ItemKind, Program, Root, SiteId, Thread, ThreadId};
use super::values::{Layout, Val, View};
use crate::ir::{self, OpKey, ValueKey};
use cclir_dialect::names::FunctionKind;
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionRef, ValueLike};
use rustc_hash::FxHashMap;

/// Stack left below which a nesting level starts on a new segment, and the
/// size of each segment.
const STACK_RED_ZONE: usize = 256 << 10;
const STACK_SEGMENT: usize = 8 << 20;

/// Bounds on the work of one instantiation.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Items over all threads.
    pub max_items: usize,
    /// Ops interpreted (loop iterations count each time).
    pub max_steps: u64,
}

impl Limits {
    /// At most `max_items` items, and 64 interpreted ops per item.
    pub fn for_items(max_items: usize) -> Limits {
        Limits { max_items, max_steps: (max_items as u64).saturating_mul(64) }
    }
}

/// Why the instantiation stopped without a program.
#[derive(Clone, Debug)]
pub enum Stop<'c, 'a> {
    /// Nothing to run: no `@main` and no single uncalled orchestration
    /// function.
    NoEntry,
    /// The analysis cannot follow the program here.
    NoConclusion { at: Option<OperationRef<'c, 'a>>, reason: String },
}

/// The program, and the op of each site (for diagnostics).
pub struct Instantiation<'c, 'a> {
    pub program: Program,
    pub ops: Vec<OperationRef<'c, 'a>>,
}

/// Where an op runs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ctx {
    pub thread: ThreadId,
    pub rank: u32,
    /// `None` on the host.
    pub block: Option<u32>,
    pub certain: bool,
    pub repeated: bool,
    /// The arm its items run in (`Item::arm`).
    pub arm: u32,
    pub depth: u32,
}

/// How a region ended.
pub(super) enum Exit {
    Yield(Vec<Val>),
    Condition(Val, Vec<Val>),
    Return(Vec<Val>),
}

pub(super) type Env = FxHashMap<ValueKey, Val>;
pub(super) type Flow<'c, 'a, T = ()> = Result<T, Stop<'c, 'a>>;

const MAX_CALL_DEPTH: u32 = 64;

/// The interpreter's state: the program being written out.
pub(super) struct Interpreter<'c, 'a> {
    pub functions: FxHashMap<String, OperationRef<'c, 'a>>,
    pub program: Program,
    pub ops: Vec<OperationRef<'c, 'a>>,
    site_ids: FxHashMap<OpKey, SiteId>,
    ordinals: FxHashMap<(u32, u32, SiteId), u32>,
    launches: FxHashMap<(u32, String), u32>,
    limits: Limits,
    steps: u64,
    items: usize,
}

/// Runs `module`'s entry on `ranks` ranks.
pub fn instantiate<'c, 'a>(
    module: OperationRef<'c, 'a>,
    ranks: u32,
    limits: Limits,
) -> Result<Instantiation<'c, 'a>, Stop<'c, 'a>> {
    let mut functions = FxHashMap::default();
    let mut order = Vec::new();
    for op in ir::regions(module).flat_map(ir::blocks).flat_map(ir::ops) {
        if ir::op_name(op) == "func.func" {
            if let Some(name) = ir::symbol_name(op) {
                functions.insert(name.to_string(), op);
                order.push(name.to_string());
            }
        }
    }
    let entry = default_entry(&order, &functions).ok_or(Stop::NoEntry)?;
    let mut interpreter = Interpreter {
        functions,
        program: Program { ranks, arm_parents: vec![0], ..Program::default() },
        ops: Vec::new(),
        site_ids: FxHashMap::default(),
        ordinals: FxHashMap::default(),
        launches: FxHashMap::default(),
        limits,
        steps: 0,
        items: 0,
    };
    let func = interpreter.functions[&entry];
    let args = interpreter.entry_arguments(func, &entry)?;
    for rank in 0..ranks {
        let thread = interpreter.new_thread(Thread { rank, slot: 0, host: None, kernel: None, items: Vec::new() });
        let ctx = Ctx { thread, rank, block: None, certain: true, repeated: false, arm: 0, depth: 0 };
        interpreter.run_thread(func, args.clone(), ctx)?;
    }
    Ok(Instantiation { program: interpreter.program, ops: interpreter.ops })
}

/// The entry: `@main`, else the one orchestration function with a body that
/// no function calls (ccl-sim's choice).
fn default_entry(order: &[String], functions: &FxHashMap<String, OperationRef<'_, '_>>) -> Option<String> {
    if functions.contains_key("main") {
        return Some("main".to_string());
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
    let mut candidates = order.iter().filter(|name| {
        let func = functions[*name];
        !called.contains(*name)
            && ir::entry_block(func).is_some()
            && ir::function_kind(func).is_ok_and(|k| k == FunctionKind::Orchestration)
    });
    match (candidates.next(), candidates.next()) {
        (Some(one), None) => Some(one.clone()),
        _ => None,
    }
}

/// A stop at `op` with `reason`.
pub(super) fn unfollowed<'c, 'a, T>(op: OperationRef<'c, 'a>, reason: impl Into<String>) -> Flow<'c, 'a, T> {
    Err(Stop::NoConclusion { at: Some(op), reason: reason.into() })
}

impl<'c, 'a> Interpreter<'c, 'a> {
    /// The entry's arguments: each memref a buffer of its own (zero-filled,
    /// per rank), each integer 0 (ccl-sim's default).
    fn entry_arguments(&mut self, func: OperationRef<'c, 'a>, name: &str) -> Flow<'c, 'a, Vec<Val>> {
        let Some(block) = ir::entry_block(func) else { return unfollowed(func, "the entry has no body") };
        let mut args = Vec::new();
        for i in 0..block.argument_count() {
            let ty = ir::block_argument(block, i).r#type();
            let value = if let Some((shape, element, _)) = ir::memref_parts(ty) {
                if shape.iter().any(|d| ir::is_dynamic_size(*d)) {
                    return unfollowed(func, format!("argument #{i} of the entry has a dynamic shape"));
                }
                let root = self.new_root(Root {
                    name: format!("argument #{i} of {}", cclir_dialect::names::symbol_ref(name)),
                    len: shape.iter().product::<i64>().max(0) as u64,
                    width: ir::int_width(element),
                });
                Val::View(View::exact(root, Some(Layout::identity(&shape))))
            } else if ir::int_width(ty).is_some() {
                Val::Int(0)
            } else {
                Val::Unknown
            };
            args.push(value);
        }
        Ok(args)
    }

    pub(super) fn new_root(&mut self, root: Root) -> u32 {
        self.program.roots.push(root);
        self.program.data_written.push(false);
        (self.program.roots.len() - 1) as u32
    }

    fn new_thread(&mut self, thread: Thread) -> ThreadId {
        self.program.threads.push(thread);
        (self.program.threads.len() - 1) as ThreadId
    }

    /// The site of `op`, numbered on first sight.
    fn site(&mut self, op: OperationRef<'c, 'a>) -> SiteId {
        let next = self.ops.len() as SiteId;
        let id = *self.site_ids.entry(OpKey::of(op)).or_insert(next);
        if id == next {
            self.ops.push(op);
            self.program.sites.push(super::program::Site { op_name: ir::op_name(op).to_string() });
        }
        id
    }

    /// Appends an item at `op` to the thread of `ctx`.
    pub(super) fn push(&mut self, ctx: &Ctx, op: OperationRef<'c, 'a>, kind: ItemKind) -> Flow<'c, 'a> {
        self.items += 1;
        if self.items > self.limits.max_items {
            return unfollowed(op, format!("the run has more than {} observable ops", self.limits.max_items));
        }
        let site = self.site(op);
        let thread = &self.program.threads[ctx.thread as usize];
        let ordinal = self.ordinals.entry((thread.rank, thread.slot, site)).or_insert(0);
        let item = Item { kind, site, certain: ctx.certain, repeated: ctx.repeated, arm: ctx.arm, ordinal: *ordinal };
        *ordinal += 1;
        self.program.threads[ctx.thread as usize].items.push(item);
        Ok(())
    }

    /// Runs `func` with `args` as the whole of a thread (a host, or a
    /// block), between its start and end items.
    fn run_thread(&mut self, func: OperationRef<'c, 'a>, args: Vec<Val>, ctx: Ctx) -> Flow<'c, 'a> {
        self.push(&ctx, func, ItemKind::Start)?;
        self.call_body(func, args, &ctx)?;
        self.push(&ctx, func, ItemKind::End)
    }

    /// Runs a function's body in a new frame; its results.
    pub(super) fn call_body(
        &mut self,
        func: OperationRef<'c, 'a>,
        args: Vec<Val>,
        ctx: &Ctx,
    ) -> Flow<'c, 'a, Vec<Val>> {
        if ctx.depth >= MAX_CALL_DEPTH {
            return unfollowed(func, format!("calls nested deeper than {MAX_CALL_DEPTH}"));
        }
        let Some(region) = ir::regions(func).next() else { return unfollowed(func, "a function without a body") };
        let inner = Ctx { depth: ctx.depth + 1, ..*ctx };
        let mut env = Env::default();
        match self.run_region(region, &args, &inner, &mut env)? {
            Exit::Return(values) | Exit::Yield(values) => Ok(values),
            Exit::Condition(..) => unfollowed(func, "scf.condition outside scf.while"),
        }
    }

    /// Runs `region` from its entry block, `args` bound to that block's
    /// arguments, following `cf` branches between its blocks.
    pub(super) fn run_region(
        &mut self,
        region: RegionRef<'c, 'a>,
        args: &[Val],
        ctx: &Ctx,
        env: &mut Env,
    ) -> Flow<'c, 'a, Exit> {
        // Every nesting level and call comes through here: the stack grows
        // in segments when little is left (ccl-opt runs passes on a large
        // stack; a library caller's thread may have 2 MiB).
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.run_region_on_stack(region, args, ctx, env))
    }

    fn run_region_on_stack(
        &mut self,
        region: RegionRef<'c, 'a>,
        args: &[Val],
        ctx: &Ctx,
        env: &mut Env,
    ) -> Flow<'c, 'a, Exit> {
        let Some(mut block) = ir::blocks(region).next() else { return Ok(Exit::Yield(Vec::new())) };
        let mut args = args.to_vec();
        loop {
            for i in 0..block.argument_count() {
                let value = args.get(i).cloned().unwrap_or(Val::Unknown);
                env.insert(ValueKey::of(ir::block_argument(block, i)), value);
            }
            match self.run_block(block, ctx, env)? {
                Ended::Exit(exit) => return Ok(exit),
                Ended::Branch(next, values) => {
                    block = next;
                    args = values;
                }
            }
        }
    }

    fn run_block(&mut self, block: BlockRef<'c, 'a>, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a, Ended<'c, 'a>> {
        for op in ir::ops(block) {
            self.steps += 1;
            if self.steps > self.limits.max_steps {
                return unfollowed(op, format!("the run takes more than {} steps", self.limits.max_steps));
            }
            let name = ir::op_name(op);
            let operands = |env: &Env| -> Vec<Val> {
                (0..ir::operand_count(op)).map(|i| value_of(env, ir::operand(op, i))).collect()
            };
            match name {
                "scf.yield" | "scf.reduce" | "scf.forall.in_parallel" => {
                    return Ok(Ended::Exit(Exit::Yield(if name == "scf.yield" { operands(env) } else { Vec::new() })))
                }
                "func.return" => return Ok(Ended::Exit(Exit::Return(operands(env)))),
                "scf.condition" => {
                    let mut values = operands(env);
                    let cond = values.remove(0);
                    return Ok(Ended::Exit(Exit::Condition(cond, values)));
                }
                "cf.br" => {
                    let next = op.successor(0).map_err(|_| no_successor(op))?;
                    return Ok(Ended::Branch(next, operands(env)));
                }
                "cf.cond_br" => {
                    let values = operands(env);
                    let Some(cond) = values[0].int() else {
                        return unfollowed(op, "a cf.cond_br on a value the analysis does not know");
                    };
                    let (succ, segment) = if cond != 0 { (0, 1) } else { (1, 2) };
                    let next = op.successor(succ).map_err(|_| no_successor(op))?;
                    let range = ir::operand_segment(op, segment).unwrap_or(0..0);
                    return Ok(Ended::Branch(next, values[range].to_vec()));
                }
                _ => self.run_op(op, name, ctx, env)?,
            }
        }
        Ok(Ended::Exit(Exit::Yield(Vec::new())))
    }

    /// Runs one op that is not a terminator.
    fn run_op(&mut self, op: OperationRef<'c, 'a>, name: &str, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a> {
        let results = match name {
            "scf.if" => self.if_op(op, ctx, env)?,
            "scf.index_switch" => self.switch_op(op, ctx, env)?,
            "scf.execute_region" => {
                let region = ir::regions(op).next().expect("scf.execute_region has a region");
                exit_values(self.run_region(region, &[], ctx, env)?)
            }
            "scf.for" => self.for_op(op, ctx, env)?,
            "scf.while" => self.while_op(op, ctx, env)?,
            "scf.parallel" | "scf.forall" => {
                self.parallel_op(op, name, ctx, env)?;
                Vec::new()
            }
            "func.call" | "ccl.submit" => self.call_op(op, name, ctx, env)?,
            _ => self.effect(op, name, ctx, env)?,
        };
        for (i, value) in results.into_iter().enumerate().take(ir::result_count(op)) {
            env.insert(ValueKey::of(ir::result(op, i)), value);
        }
        Ok(())
    }

    /// Runs `region` in a context where its items may not run (a branch
    /// not known to be taken), or may run any number of times.
    fn run_uncertain(
        &mut self,
        region: RegionRef<'c, 'a>,
        args: &[Val],
        ctx: &Ctx,
        env: &mut Env,
        repeated: bool,
    ) -> Flow<'c, 'a, Exit> {
        let arm = self.program.arm_parents.len() as u32;
        self.program.arm_parents.push(ctx.arm);
        let inner = Ctx { certain: false, repeated: ctx.repeated || repeated, arm, ..*ctx };
        self.run_region(region, args, &inner, env)
    }

    fn if_op(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a, Vec<Val>> {
        let regions: Vec<RegionRef> = ir::regions(op).collect();
        let count = ir::result_count(op);
        match value_of(env, ir::operand(op, 0)).int() {
            Some(cond) => {
                let region = regions[if cond != 0 { 0 } else { 1 }];
                Ok(exit_values(self.run_region(region, &[], ctx, env)?))
            }
            None => {
                let then = exit_values(self.run_uncertain(regions[0], &[], ctx, env, false)?);
                let otherwise = exit_values(self.run_uncertain(regions[1], &[], ctx, env, false)?);
                Ok(merge(then, &otherwise, count))
            }
        }
    }

    fn switch_op(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a, Vec<Val>> {
        let regions: Vec<RegionRef> = ir::regions(op).collect();
        let cases = super::effects::dense_i64(op, "cases").unwrap_or_default();
        let count = ir::result_count(op);
        match value_of(env, ir::operand(op, 0)).int() {
            Some(value) => {
                let region = cases.iter().position(|c| *c == value).map_or(regions[0], |i| regions[i + 1]);
                Ok(exit_values(self.run_region(region, &[], ctx, env)?))
            }
            None => {
                let mut results: Option<Vec<Val>> = None;
                for region in regions {
                    let values = exit_values(self.run_uncertain(region, &[], ctx, env, false)?);
                    results = Some(match results {
                        None => values,
                        Some(before) => merge(before, &values, count),
                    });
                }
                Ok(results.unwrap_or_default())
            }
        }
    }

    fn for_op(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a, Vec<Val>> {
        let region = ir::regions(op).next().expect("scf.for has a region");
        let values: Vec<Val> = (0..ir::operand_count(op)).map(|i| value_of(env, ir::operand(op, i))).collect();
        let width = ir::int_width(ir::operand(op, 0).r#type()).unwrap_or(64);
        let unsigned = op.attribute("unsignedCmp").is_ok();
        let mut iters = values[3..].to_vec();
        let (Some(lb), Some(ub), Some(step)) = (values[0].int(), values[1].int(), values[2].int()) else {
            let mut args = vec![Val::Unknown];
            args.extend(iters.iter().map(|_| Val::Unknown));
            self.run_uncertain(region, &args, ctx, env, true)?;
            return Ok(vec![Val::Unknown; iters.len()]);
        };
        if step <= 0 {
            return unfollowed(op, format!("a loop step of {step}"));
        }
        let mut iv = lb;
        while super::values::compare(if unsigned { 6 } else { 2 }, iv, ub, width) == Some(true) {
            let mut args = vec![Val::Int(iv)];
            args.extend(iters.iter().cloned());
            iters = exit_values(self.run_region(region, &args, ctx, env)?);
            let next = super::values::binary("arith.addi", iv, step, width).unwrap_or(iv);
            if next <= iv && !unsigned {
                break;
            }
            iv = next;
        }
        Ok(iters)
    }

    fn while_op(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a, Vec<Val>> {
        let regions: Vec<RegionRef> = ir::regions(op).collect();
        let mut args: Vec<Val> = (0..ir::operand_count(op)).map(|i| value_of(env, ir::operand(op, i))).collect();
        let mut repeated = false;
        loop {
            let exit = if repeated {
                self.run_uncertain(regions[0], &args, ctx, env, true)?
            } else {
                self.run_region(regions[0], &args, ctx, env)?
            };
            let Exit::Condition(cond, values) = exit else {
                return unfollowed(op, "an scf.while whose before region does not end in scf.condition");
            };
            match (repeated, cond.int()) {
                (false, Some(0)) => return Ok(values),
                (false, Some(_)) => args = exit_values(self.run_region(regions[1], &values, ctx, env)?),
                _ => {
                    // Not known when it stops: the rest, once, as a loop
                    // that may run any number of times.
                    let unknown = vec![Val::Unknown; values.len()];
                    if repeated {
                        return Ok(unknown);
                    }
                    self.run_uncertain(regions[1], &unknown, ctx, env, true)?;
                    args = vec![Val::Unknown; args.len()];
                    repeated = true;
                }
            }
        }
    }

    fn parallel_op(&mut self, op: OperationRef<'c, 'a>, name: &str, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a> {
        let region = ir::regions(op).next().expect("a parallel loop has a region");
        let segment = |i: usize| -> Vec<Val> {
            ir::operand_segment(op, i).unwrap_or(0..0).map(|k| value_of(env, ir::operand(op, k))).collect()
        };
        if !segment(3).is_empty() {
            return unfollowed(op, format!("{name} with reductions or shared outputs"));
        }
        let bounds = if name == "scf.parallel" {
            [segment(0), segment(1), segment(2)]
        } else {
            let mixed = |attr: &str, i: usize| super::effects::mixed(op, attr, &segment(i));
            [mixed("staticLowerBound", 0), mixed("staticUpperBound", 1), mixed("staticStep", 2)]
        };
        let known: Option<Vec<Vec<i64>>> = bounds.iter().map(|b| b.iter().map(Val::int).collect()).collect();
        let dims = bounds[0].len();
        let Some(known) = known else {
            self.run_uncertain(region, &vec![Val::Unknown; dims], ctx, env, true)?;
            return Ok(());
        };
        if known[2].iter().any(|s| *s <= 0) {
            return unfollowed(op, "a loop step that is not positive");
        }
        // The iterations in order, the last dimension fastest (ccl-sim runs
        // them so on the one block).
        let mut ivs = known[0].clone();
        if (0..dims).any(|d| ivs[d] >= known[1][d]) {
            return Ok(());
        }
        loop {
            let args: Vec<Val> = ivs.iter().map(|v| Val::Int(*v)).collect();
            self.run_region(region, &args, ctx, env)?;
            let mut d = dims;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                ivs[d] += known[2][d];
                if ivs[d] < known[1][d] {
                    break;
                }
                ivs[d] = known[0][d];
            }
        }
    }

    /// A call: a launch when a host calls a kernel (or submits anything),
    /// else the callee's body in this thread.
    fn call_op(&mut self, op: OperationRef<'c, 'a>, name: &str, ctx: &Ctx, env: &mut Env) -> Flow<'c, 'a, Vec<Val>> {
        let callee_name = ir::flat_symbol_attr(op, "callee").unwrap_or_default().to_string();
        let Some(callee) = self.functions.get(&callee_name).copied() else {
            return unfollowed(op, format!("a call of {}, not a function of this module", callee_name));
        };
        if ir::entry_block(callee).is_none() {
            return unfollowed(
                op,
                format!("a call of {}, a declaration", cclir_dialect::names::symbol_ref(&callee_name)),
            );
        }
        let args: Vec<Val> = (0..ir::operand_count(op)).map(|i| value_of(env, ir::operand(op, i))).collect();
        let launches = ctx.block.is_none() && (name == "ccl.submit" || ir::is_in_core(callee));
        if !launches {
            return self.call_body(callee, args, ctx);
        }
        if ir::result_count(op) > 0 {
            return unfollowed(op, "a launched kernel that returns values");
        }
        let width = ir::i64_attr(op, cclir_dialect::names::ATTR_LAUNCH_WIDTH)
            .or_else(|| ir::i64_attr(callee, cclir_dialect::names::ATTR_LAUNCH_WIDTH))
            .unwrap_or(1)
            .max(1) as u32;
        let launch = self.launches.entry((ctx.rank, callee_name.clone())).or_insert(0);
        *launch += 1;
        let launch = *launch;
        let first = self.program.threads.len() as ThreadId;
        self.push(ctx, op, ItemKind::Launch { first, count: width })?;
        for b in 0..width {
            let kernel = Some((callee_name.clone(), launch));
            let thread = self.new_thread(Thread {
                rank: ctx.rank,
                slot: b + 1,
                host: Some(ctx.thread),
                kernel,
                items: Vec::new(),
            });
            let inner = Ctx { thread, block: Some(b), depth: 0, ..*ctx };
            self.run_thread(callee, args.clone(), inner)?;
        }
        self.push(ctx, op, ItemKind::Join { first, count: width })?;
        Ok(Vec::new())
    }
}

/// How a block ended: leaving its region, or branching to another block.
enum Ended<'c, 'a> {
    Exit(Exit),
    Branch(BlockRef<'c, 'a>, Vec<Val>),
}

fn no_successor<'c, 'a>(op: OperationRef<'c, 'a>) -> Stop<'c, 'a> {
    Stop::NoConclusion { at: Some(op), reason: "a branch without its successor".into() }
}

/// What a region yielded (or returned).
fn exit_values(exit: Exit) -> Vec<Val> {
    match exit {
        Exit::Yield(values) | Exit::Return(values) => values,
        Exit::Condition(_, values) => values,
    }
}

/// The results of two paths that may each have run: equal values stay.
fn merge(a: Vec<Val>, b: &[Val], count: usize) -> Vec<Val> {
    (0..count).map(|i| a.get(i).cloned().unwrap_or(Val::Unknown).merge(b.get(i).unwrap_or(&Val::Unknown))).collect()
}

/// The value of an SSA value in `env` (unknown if never set: a value of an
/// op the analysis does not follow).
pub(super) fn value_of(env: &Env, value: melior::ir::Value<'_, '_>) -> Val {
    env.get(&ValueKey::of(value)).cloned().unwrap_or(Val::Unknown)
}
