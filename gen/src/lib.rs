//! `ccl-gen`'s logic: a seeded, deterministic generator of valid random ccl
//! programs, for property tests, fuzzing and benchmarks.
//!
//! A program is a module of InCore kernels, orchestration-like functions
//! (wrappers among them, with recursive call graphs), other functions,
//! builtin-template kernels and declarations. Bodies use every ccl op in its
//! custom syntax, every structured control-flow op (`scf.for`, `scf.while`,
//! `scf.parallel`, `scf.forall`, `scf.if`, `scf.execute_region`,
//! `scf.index_switch`) and unstructured control flow (function bodies and
//! `scf.execute_region`s of several blocks joined by `cf.br` and
//! `cf.cond_br`, with diamonds and back edges), nested up to the requested
//! depth, on window-bound and plain memrefs (function arguments and local
//! `memref.alloc`s). Orchestration functions run collectives, so those that
//! other orchestration functions call are publishing wrappers, one or more
//! hops deep. Loop bounds and branch conditions sometimes "read memory" and
//! some loops are pure wait loops, so every classification of the insert
//! pass occurs.
//!
//! All functions share one signature, so any function can call any other.
//! The output verifies under `ccl-opt` and under upstream `mlir-opt
//! --load-dialect-plugin=libccl_dialect_plugin.so`.
//!
//! Generation is one pass over the output, linear in `ops`: the text is
//! written as it is decided, by a loop over pending steps rather than
//! recursion, so the nesting depth costs no stack. The PRNG is splitmix64,
//! so a seed gives the same program on every platform and version of this
//! crate's dependencies.
#![forbid(unsafe_code)]

use std::fmt::Write;

pub mod exchange;
pub mod litmus;
pub mod protocol;

/// The most ops `ccl-gen --ops` asks for: ten times the benchmarks' largest
/// program (about 900 MB of text).
pub const MAX_OPS: u64 = 10_000_000;
/// The most functions `ccl-gen --functions` asks for.
pub const MAX_FUNCTIONS: u64 = 100_000;
/// The deepest nesting `ccl-gen --depth` asks for: past what upstream
/// mlir-opt parses on its default stack (about 3,000 levels), and within
/// what ccl-opt parses in seconds (MLIR's costs grow with the square of the
/// depth, docs/ccl-opt.md). Generation itself keeps no stack per level.
pub const MAX_DEPTH: u64 = 4_000;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub seed: u64,
    /// About how many ops the module has in total.
    pub ops: usize,
    /// The deepest nesting of control-flow ops.
    pub depth: usize,
    /// How many functions; `None`: one per ~100 ops (at least 3).
    pub functions: Option<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Config { seed: 0, ops: 200, depth: 4, functions: None }
    }
}

/// splitmix64: tiny, fast, and the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % n.max(1) as u64) as usize
    }

    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const SIGNATURE: &str = "%t: vector<16xf32>, %w0: memref<64xf32, #ccl.window>, %w1: memref<64xf32, #ccl.window>, \
                         %p: memref<64xf32>, %s: memref<8xi32, #ccl.window>, %cnt: memref<64xi32>, %i: index, \
                         %n: index, %peer: i32, %one: i32, %c: i1";
const ARG_TYPES: &str = "vector<16xf32>, memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, memref<64xf32>, \
                         memref<8xi32, #ccl.window>, memref<64xi32>, index, index, i32, i32, i1";
const CALL_ARGS: &str = "%t, %w0, %w1, %p, %s, %cnt, %i, %n, %peer, %one, %c";

const WINDOW: &str = "memref<64xf32, #ccl.window>";
const PLAIN: &str = "memref<64xf32>";
const SIGNAL: &str = "memref<8xi32, #ccl.window>";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    InCore,
    Orchestration,
    Other,
}

struct FunctionPlan {
    name: String,
    kind: Kind,
    attributes: String,
    declaration: bool,
    budget: usize,
}

/// Generates the program `config` describes, as MLIR text.
pub fn generate(config: &Config) -> String {
    let mut rng = Rng::new(config.seed ^ 0x00C0_FFEE_D00D_F00D);
    let count = config.functions.unwrap_or((config.ops / 100).max(3)).max(1);
    let plans = plan_functions(&mut rng, count, config.ops);
    let mut out = String::with_capacity(config.ops.saturating_mul(90).min(1 << 30) + 256);
    out.push_str("module {\n");
    let names: Vec<(String, Kind)> = plans.iter().map(|p| (p.name.clone(), p.kind)).collect();
    // The deepest nest goes into the first function with a body.
    let spine = plans.iter().position(|p| !p.declaration);
    for (index, plan) in plans.iter().enumerate() {
        let mut body = Body {
            rng: Rng::new(rng.next_u64()),
            out: &mut out,
            kind: plan.kind,
            functions: &names,
            next_value: 0,
            emitted: 0,
            indices: vec!["%i".to_string()],
            windows: vec!["%w0", "%w1"],
            next_block: 1,
        };
        body.function(plan, config.depth, spine == Some(index));
    }
    out.push_str("}\n");
    out
}

fn plan_functions(rng: &mut Rng, count: usize, ops: usize) -> Vec<FunctionPlan> {
    let per_function = (ops / count).max(1);
    (0..count)
        .map(|index| {
            // The first two are a kernel and an orchestration function, so
            // every program has both.
            let kind = match index {
                0 => Kind::InCore,
                1 => Kind::Orchestration,
                _ => match rng.below(20) {
                    0..=10 => Kind::InCore,
                    11..=16 => Kind::Orchestration,
                    _ => Kind::Other,
                },
            };
            let mut attributes = match kind {
                Kind::InCore => format!("ccl.kind = \"{}\"", rng.pick(&["incore", "aic", "aiv"])),
                Kind::Orchestration => match rng.below(3) {
                    0 => "ccl.kind = \"orchestration\"".to_string(),
                    1 => "ccl.kind = \"graph\"".to_string(),
                    _ => "ccl.level = \"host\", ccl.role = \"orchestrator\"".to_string(),
                },
                Kind::Other => match rng.below(4) {
                    0 => "ccl.kind = \"group\"".to_string(),
                    1 => "ccl.kind = \"spmd\"".to_string(),
                    2 => "ccl.kind = \"opaque\"".to_string(),
                    _ => String::new(),
                },
            };
            if kind != Kind::Orchestration && rng.chance(8) {
                if !attributes.is_empty() {
                    attributes.push_str(", ");
                }
                attributes.push_str(&format!("ccl.builtin_template_dir = \"templates/t{index}\""));
            }
            let declaration = index > 1 && kind != Kind::Orchestration && rng.chance(5);
            // Budgets vary by a factor of up to 3 around the mean.
            let budget = if declaration { 0 } else { (per_function / 2 + rng.below(per_function + 1)).max(1) };
            FunctionPlan { name: format!("f{index}"), kind, attributes, declaration, budget }
        })
        .collect()
}

/// A pending step of writing a function body (see [`Body::run`]).
enum Task {
    /// Text that is not an op (a function's closing brace).
    Raw(&'static str),
    /// One op line at an indentation.
    Line(usize, String),
    /// Leaves the scope of the innermost induction variable.
    PopIndex,
    /// About `budget` ops, nested at most `depth` deep.
    Block {
        indent: usize,
        depth: usize,
        budget: usize,
    },
    /// A block under way, until `end` ops have been written.
    BlockUntil {
        indent: usize,
        depth: usize,
        end: usize,
    },
    Spine {
        indent: usize,
        depth: usize,
        budget: usize,
    },
    Control {
        indent: usize,
        depth: usize,
        budget: usize,
        spine: Option<usize>,
    },
    Blocks {
        indent: usize,
        depth: usize,
        budget: usize,
        exit: &'static str,
    },
    /// Block `k` of a region of several blocks is written: its terminator,
    /// then the next block.
    BlocksAfter {
        region: CfRegion,
        k: usize,
    },
}

/// A region of several blocks under way: `count` blocks after the entry,
/// labelled from `^bb{first}`, of about `share` ops each.
#[derive(Clone, Copy)]
struct CfRegion {
    indent: usize,
    depth: usize,
    share: usize,
    first: usize,
    count: usize,
    exit: &'static str,
}

struct Body<'o> {
    rng: Rng,
    out: &'o mut String,
    kind: Kind,
    functions: &'o [(String, Kind)],
    next_value: usize,
    /// Ops written in this function.
    emitted: usize,
    /// Index values in scope (the argument and enclosing induction variables).
    indices: Vec<String>,
    windows: Vec<&'static str>,
    /// The next unused block label number (`^bbN`) in this function.
    next_block: usize,
}

impl Body<'_> {
    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("%v{}", self.next_value)
    }

    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.emitted += 1;
    }

    fn function(&mut self, plan: &FunctionPlan, depth: usize, spine: bool) {
        let attributes =
            if plan.attributes.is_empty() { String::new() } else { format!(" attributes {{{}}}", plan.attributes) };
        if plan.declaration {
            let _ = writeln!(self.out, "  func.func private @{}({ARG_TYPES}){attributes}", plan.name);
            return;
        }
        let _ = writeln!(self.out, "  func.func @{}({SIGNATURE}){attributes} {{", plan.name);
        self.line(2, "%c0 = arith.constant 0 : index");
        self.line(2, "%c1 = arith.constant 1 : index");
        if self.rng.chance(30) {
            self.line(2, &format!("%lw = memref.alloc() : {WINDOW}"));
            self.windows.push("%lw");
        }
        let budget = plan.budget.saturating_sub(3);
        let mut tasks = vec![Task::Raw("  }\n")];
        if spine && depth > 0 {
            tasks.push(Task::Line(2, "return".to_string()));
            tasks.push(Task::Spine { indent: 2, depth, budget });
        } else if self.rng.chance(25) {
            tasks.push(Task::Blocks { indent: 2, depth, budget, exit: "return" });
        } else {
            tasks.push(Task::Line(2, "return".to_string()));
            tasks.push(Task::Block { indent: 2, depth, budget });
        }
        self.run(tasks);
    }

    /// Runs `tasks` (the last one first) and every task they push, until
    /// none is left. Each task does what a recursive call would do up to its
    /// first nested region, and pushes what comes after it behind the
    /// region's own task: the text and the draws come in the order of a
    /// recursive walk, with one stack entry per pending step instead of
    /// stack frames, so no depth exhausts the stack.
    fn run(&mut self, mut tasks: Vec<Task>) {
        while let Some(task) = tasks.pop() {
            match task {
                Task::Raw(text) => self.out.push_str(text),
                Task::Line(indent, text) => self.line(indent, &text),
                Task::PopIndex => {
                    self.indices.pop();
                }
                Task::Block { indent, depth, budget } => {
                    let end = self.emitted + budget;
                    tasks.push(Task::BlockUntil { indent, depth, end });
                }
                Task::BlockUntil { indent, depth, end } => self.block_until(indent, depth, end, &mut tasks),
                Task::Spine { indent, depth, budget } => self.spine(indent, depth, budget, &mut tasks),
                Task::Control { indent, depth, budget, spine } => {
                    self.control(indent, depth, budget, spine, &mut tasks)
                }
                Task::Blocks { indent, depth, budget, exit } => self.blocks(indent, depth, budget, exit, &mut tasks),
                Task::BlocksAfter { region, k } => self.blocks_after(region, k, &mut tasks),
            }
        }
    }

    /// A nest exactly `depth` deep, with ordinary blocks around it.
    fn spine(&mut self, indent: usize, depth: usize, budget: usize, tasks: &mut Vec<Task>) {
        let side = budget.saturating_sub(depth.saturating_mul(4)) / (depth + 1);
        if depth == 0 {
            tasks.push(Task::Block { indent, depth: 0, budget: side });
        } else {
            let inner = budget.saturating_sub(side + 3);
            tasks.push(Task::Block { indent, depth: depth.min(2), budget: side / 2 });
            tasks.push(Task::Control { indent, depth, budget: inner, spine: Some(depth - 1) });
        }
        tasks.push(Task::Block { indent, depth: 0, budget: side / 2 });
    }

    /// The rest of a block of ops, nested at most `depth` deep, until `end`
    /// ops have been written: leaves here, a control-flow op as a task.
    fn block_until(&mut self, indent: usize, depth: usize, end: usize, tasks: &mut Vec<Task>) {
        while self.emitted < end {
            let left = end - self.emitted;
            if depth > 0 && left >= 4 && self.rng.chance(18) {
                let inner = 1 + self.rng.below(left - 2);
                tasks.push(Task::BlockUntil { indent, depth, end });
                tasks.push(Task::Control { indent, depth, budget: inner, spine: None });
                return;
            }
            self.leaf(indent);
        }
    }

    /// The task of a region's body: the spine's next level, or a block.
    fn body(indent: usize, depth: usize, budget: usize, spine: Option<usize>) -> Task {
        match spine {
            Some(d) => Task::Spine { indent, depth: d, budget },
            None => Task::Block { indent, depth, budget },
        }
    }

    /// A loop body: off the spine, sometimes a pure wait loop's body (the
    /// rng is asked only off the spine, so seeds keep their programs),
    /// written now; otherwise `body`, pushed.
    fn loop_body(&mut self, off_spine: bool, inner: usize, budget: usize, body: Task, tasks: &mut Vec<Task>) {
        if off_spine && self.rng.chance(20) {
            self.pure_wait_body(inner, budget);
        } else {
            tasks.push(body);
        }
    }

    /// One control-flow op whose regions hold about `budget` ops. With
    /// `spine`, one region continues the spine at that depth. What follows
    /// a region is pushed before it.
    fn control(&mut self, indent: usize, depth: usize, budget: usize, spine: Option<usize>, tasks: &mut Vec<Task>) {
        let inner = indent + 1;
        let nested = depth - 1;
        let close = |indent: usize| Task::Line(indent, "}".to_string());
        match self.rng.below(16) {
            0..=3 => {
                let upper = self.bound(indent);
                let iv = self.value().replace("%v", "%k");
                self.line(indent, &format!("scf.for {iv} = %c0 to {upper} step %c1 {{"));
                self.indices.push(iv);
                tasks.extend([close(indent), Task::PopIndex]);
                let body = Self::body(inner, nested, budget, spine);
                self.loop_body(spine.is_none(), inner, budget, body, tasks);
            }
            4..=6 => {
                let condition = self.condition(indent);
                self.line(indent, &format!("scf.if {condition} {{"));
                tasks.push(close(indent));
                if self.rng.chance(60) {
                    tasks.extend([
                        Task::Block { indent: inner, depth: nested, budget: budget / 2 },
                        Task::Line(indent, "} else {".to_string()),
                        Self::body(inner, nested, budget / 2, spine),
                    ]);
                } else {
                    tasks.push(Self::body(inner, nested, budget, spine));
                }
            }
            7..=8 => {
                self.line(indent, "scf.while : () -> () {");
                tasks.extend([
                    close(indent),
                    Task::Line(inner, "scf.yield".to_string()),
                    Task::Block { indent: inner, depth: nested, budget: budget / 2 },
                    Task::Line(indent, "} do {".to_string()),
                    Task::Line(inner, "scf.condition(%c)".to_string()),
                ]);
                let body = Self::body(inner, nested, budget / 2, spine);
                self.loop_body(spine.is_none(), inner, budget / 2, body, tasks);
            }
            9..=10 => {
                let iv = self.value().replace("%v", "%k");
                self.line(indent, &format!("scf.parallel ({iv}) = (%c0) to (%n) step (%c1) {{"));
                self.indices.push(iv);
                tasks.extend([
                    close(indent),
                    Task::Line(inner, "scf.reduce".to_string()),
                    Task::PopIndex,
                    Self::body(inner, nested, budget, spine),
                ]);
            }
            11..=12 => {
                let iv = self.value().replace("%v", "%k");
                self.line(indent, &format!("scf.forall ({iv}) in (%n) {{"));
                self.indices.push(iv);
                tasks.extend([close(indent), Task::PopIndex]);
                let body = Self::body(inner, nested, budget, spine);
                self.loop_body(spine.is_none(), inner, budget, body, tasks);
            }
            13..=14 => {
                self.line(indent, "scf.execute_region {");
                tasks.push(close(indent));
                if spine.is_none() && self.rng.chance(50) {
                    tasks.push(Task::Blocks { indent: inner, depth: nested, budget, exit: "scf.yield" });
                } else {
                    tasks
                        .extend([Task::Line(inner, "scf.yield".to_string()), Self::body(inner, nested, budget, spine)]);
                }
            }
            _ => {
                let index = self.index();
                self.line(indent, &format!("scf.index_switch {index}"));
                let cases = 1 + self.rng.below(2);
                let share = budget / (cases + 1);
                // In the order they run; pushed reversed below.
                let mut steps = Vec::new();
                for case in 0..cases {
                    steps.push(Task::Line(indent, format!("case {} {{", case * 2)));
                    steps.push(if case == 0 {
                        Self::body(inner, nested, share, spine)
                    } else {
                        Task::Block { indent: inner, depth: nested, budget: share }
                    });
                    steps.push(Task::Line(inner, "scf.yield".to_string()));
                    steps.push(close(indent));
                }
                steps.push(Task::Line(indent, "default {".to_string()));
                steps.push(Task::Block { indent: inner, depth: nested, budget: share });
                steps.push(Task::Line(inner, "scf.yield".to_string()));
                steps.push(close(indent));
                tasks.extend(steps.into_iter().rev());
            }
        }
    }

    /// A region of several blocks: the entry, then `^bbN` blocks, each
    /// ending in a `cf.br` forward or a `cf.cond_br` with one forward target
    /// and one anywhere but the entry (a back edge, a self loop, or a
    /// diamond's other arm). Every block reaches the last one, which ends in
    /// `exit`. Each block's terminator is written after the block
    /// ([`Body::blocks_after`]).
    fn blocks(&mut self, indent: usize, depth: usize, budget: usize, exit: &'static str, tasks: &mut Vec<Task>) {
        let count = 1 + self.rng.below(4);
        let first = self.next_block;
        self.next_block += count;
        let share = budget / (count + 1);
        let region = CfRegion { indent, depth, share, first, count, exit };
        tasks.push(Task::BlocksAfter { region, k: 0 });
        tasks.push(Task::Block { indent, depth, budget: share });
    }

    /// After block `k` of a region of several blocks: its terminator, then
    /// the next block's label and the next block.
    fn blocks_after(&mut self, region: CfRegion, k: usize, tasks: &mut Vec<Task>) {
        let CfRegion { indent, depth, share, first, count, exit } = region;
        let label = |k: usize| format!("^bb{}", first + k - 1);
        if k == count {
            self.line(indent, exit);
            return;
        }
        let forward = label(k + 1 + self.rng.below(count - k));
        if self.rng.chance(45) {
            self.line(indent, &format!("cf.br {forward}"));
        } else {
            let condition = self.condition(indent);
            let other = label(1 + self.rng.below(count));
            let (then, otherwise) = if self.rng.chance(50) { (forward, other) } else { (other, forward) };
            self.line(indent, &format!("cf.cond_br {condition}, {then}, {otherwise}"));
        }
        // Labels sit one level out, as MLIR prints them.
        for _ in 1..indent {
            self.out.push_str("  ");
        }
        let _ = writeln!(self.out, "{}:", label(k + 1));
        tasks.push(Task::BlocksAfter { region, k: k + 1 });
        tasks.push(Task::Block { indent, depth, budget: share });
    }

    /// Only waits and side-effect-free ops: a pure wait loop's body.
    fn pure_wait_body(&mut self, indent: usize, budget: usize) {
        let end = self.emitted + budget.clamp(1, 6);
        while self.emitted < end {
            if self.rng.chance(60) {
                self.wait(indent);
            } else {
                let v = self.value();
                self.line(indent, &format!("{v} = arith.addi %one, %peer : i32"));
            }
        }
    }

    /// A loop's upper bound: `%n`, or (sometimes) one that reads memory.
    fn bound(&mut self, indent: usize) -> String {
        if self.rng.chance(15) {
            let read = self.value();
            let cast = self.value();
            let index = self.index();
            self.line(indent, &format!("{read} = ccl.read %cnt[{index}] : memref<64xi32> -> i32"));
            self.line(indent, &format!("{cast} = arith.index_cast {read} : i32 to index"));
            cast
        } else {
            "%n".to_string()
        }
    }

    /// A branch condition: `%c`, a comparison, or one that reads memory.
    fn condition(&mut self, indent: usize) -> String {
        match self.rng.below(10) {
            0..=5 => "%c".to_string(),
            6..=7 => {
                let v = self.value();
                self.line(indent, &format!("{v} = arith.cmpi slt, %peer, %one : i32"));
                v
            }
            _ => {
                let read = self.value();
                let cmp = self.value();
                let index = self.index();
                self.line(indent, &format!("{read} = ccl.read %cnt[{index}] : memref<64xi32> -> i32"));
                self.line(indent, &format!("{cmp} = arith.cmpi sgt, {read}, %one : i32"));
                cmp
            }
        }
    }

    fn index(&mut self) -> String {
        let i = self.rng.below(self.indices.len());
        self.indices[i].clone()
    }

    fn window(&mut self) -> &'static str {
        self.windows[self.rng.below(self.windows.len())]
    }

    /// A destination: usually a window, sometimes a plain memref.
    fn destination(&mut self) -> (&'static str, &'static str) {
        if self.rng.chance(75) {
            (self.window(), WINDOW)
        } else {
            ("%p", PLAIN)
        }
    }

    fn wait(&mut self, indent: usize) {
        let cmp = self.rng.pick(&["ge", "eq"]);
        self.line(indent, &format!("ccl.wait {cmp} %s, %one : {SIGNAL}, i32"));
    }

    fn callee(&mut self, orchestration: bool) -> String {
        // Orchestration code calls kernels most, then wrappers and others.
        let candidates = self.functions;
        for _ in 0..4 {
            let (name, kind) = self.rng.pick(candidates);
            if !orchestration || *kind == Kind::InCore || self.rng.chance(40) {
                return name.clone();
            }
        }
        self.rng.pick(candidates).0.clone()
    }

    fn leaf(&mut self, indent: usize) {
        let orchestration = self.kind == Kind::Orchestration;
        // Kernels do memory traffic and signals; orchestration code launches
        // and runs collectives; other functions do a bit of everything.
        let roll = self.rng.below(100);
        let choice = match self.kind {
            Kind::InCore => roll,
            Kind::Orchestration => {
                [60, 62, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 90, 92, 94, 96, 98][roll % 20]
            }
            Kind::Other => (roll * 7 + 3) % 100,
        };
        match choice {
            0..=11 => {
                let (dst, ty) = self.destination();
                let index = self.index();
                self.line(indent, &format!("ccl.tile_store %t, {dst}[{index}] : vector<16xf32>, {ty}"));
            }
            12..=16 => {
                let (dst, ty) = self.destination();
                let index = self.index();
                self.line(indent, &format!("ccl.tensor_write {dst}[{index}], %one : {ty}, i32"));
            }
            17..=19 => {
                let (dst, ty) = self.destination();
                self.line(indent, &format!("ccl.get {dst}, %p, %peer : {ty}, {PLAIN}, i32"));
            }
            20..=23 => {
                let (dst, ty) = self.destination();
                self.line(indent, &format!("ccl.remote_store %t, {dst}, %peer : vector<16xf32>, {ty}, i32"));
            }
            24..=25 => {
                let (dst, ty) = self.destination();
                self.line(indent, &format!("ccl.put {dst}, %p, %peer : {ty}, {PLAIN}, i32"));
            }
            26..=28 => {
                let (src, ty) = self.destination();
                let v = self.value();
                self.line(indent, &format!("{v} = ccl.remote_load {src}, %peer : {ty}, i32 -> vector<16xf32>"));
            }
            29..=33 => {
                let (src, ty) = self.destination();
                let index = self.index();
                let v = self.value();
                self.line(indent, &format!("{v} = ccl.tile_load {src}[{index}] : {ty} -> vector<16xf32>"));
            }
            34..=38 => {
                let (src, ty) = self.destination();
                let index = self.index();
                let v = self.value();
                self.line(indent, &format!("{v} = ccl.read {src}[{index}] : {ty} -> f32"));
            }
            39..=44 => {
                let op = self.rng.pick(&["set", "atomic_add"]);
                self.line(indent, &format!("ccl.notify {op} %s, %peer, %one : {SIGNAL}, i32, i32"));
            }
            45..=49 => self.wait(indent),
            50..=51 => self.line(indent, "ccl.fence"),
            52..=53 => {
                if self.rng.chance(50) {
                    self.line(indent, "ccl.cacheinvalid");
                } else {
                    let w = self.window();
                    self.line(indent, &format!("ccl.cacheinvalid {w} : {WINDOW}"));
                }
            }
            54..=55 => {
                let v = self.value();
                self.line(indent, &format!("{v} = arith.addi %peer, %one : i32"));
            }
            56..=57 => {
                let v = self.value();
                let op = self.rng.pick(&["ccl.comm_size", "ccl.rank"]);
                self.line(indent, &format!("{v} = {op} : i32"));
            }
            58..=59 => self.call(indent, orchestration),
            60..=73 => self.call(indent, orchestration),
            74..=79 => {
                let callee = self.callee(orchestration);
                let w = self.window();
                self.line(indent, &format!("ccl.submit @{callee}({w}) : ({WINDOW}) -> ()"));
            }
            80..=85 => {
                let blocks = if self.kind != Kind::InCore && self.rng.chance(50) {
                    // Rank count and core_num as constants (positive, so
                    // ccl-admit-launch-width folds them) or dynamic.
                    let p = self.value();
                    let l = self.value();
                    let b = self.value();
                    let pv = self.rng.pick(&[1, 2, 4, 8, 16]);
                    let lv = self.rng.pick(&[1, 7, 8, 10, 16, 32]);
                    self.line(indent, &format!("{p} = arith.constant {pv} : i32"));
                    self.line(indent, &format!("{l} = arith.constant {lv} : i32"));
                    self.line(indent, &format!("{b} = ccl.cal_all_to_all_v_blocks {p}, {l} : i32, i32"));
                    b
                } else if self.kind != Kind::InCore && self.rng.chance(50) {
                    let size = self.value();
                    let b = self.value();
                    self.line(indent, &format!("{size} = ccl.comm_size : i32"));
                    self.line(indent, &format!("{b} = ccl.cal_all_to_all_v_blocks {size}, %one : i32, i32"));
                    b
                } else {
                    "%one".to_string()
                };
                let send = self.window();
                let recv = self.window();
                self.line(
                    indent,
                    &format!(
                        "ccl.all_to_all_v {send}, %cnt, {recv}, %cnt, blocks {blocks} : {WINDOW}, memref<64xi32>, {WINDOW}, memref<64xi32>, i32"
                    ),
                );
            }
            86..=90 => {
                let reduce = self.rng.pick(&["sum", "max", "min"]);
                let (dst, ty) = self.destination();
                self.line(indent, &format!("ccl.all_reduce {reduce} %p, {dst} : {PLAIN}, {ty}"));
            }
            91..=94 => self.line(indent, "ccl.barrier"),
            95..=97 => {
                let v = self.value();
                self.line(indent, &format!("{v} = ccl.read %cnt[%i] : memref<64xi32> -> i32"));
            }
            _ => {
                let v = self.value();
                self.line(indent, &format!("{v} = arith.muli %one, %peer : i32"));
            }
        }
    }

    fn call(&mut self, indent: usize, orchestration: bool) {
        let callee = self.callee(orchestration);
        self.line(indent, &format!("func.call @{callee}({CALL_ARGS}) : ({ARG_TYPES}) -> ()"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let config = Config { seed: 7, ops: 1000, depth: 6, functions: None };
        let a = generate(&config);
        assert_eq!(a, generate(&config));
        assert_ne!(a, generate(&Config { seed: 8, ..config }));
        let lines = a.lines().count();
        assert!((700..1600).contains(&lines), "{lines} lines for 1000 ops");
    }

    #[test]
    fn reaches_the_depth() {
        let text = generate(&Config { seed: 1, ops: 2000, depth: 40, functions: Some(5) });
        let deepest = text.lines().map(|l| l.len() - l.trim_start().len()).max().unwrap_or(0);
        assert!(deepest / 2 >= 40, "deepest indentation {deepest}");
    }
}
