//! Phase B's scan of the orchestration-like functions (docs/semantics.md):
//! the flag `seen`, "a publish happened on some path before here", threaded
//! through the program, and every call-like op met while it holds. The
//! insert pass marks the kernels those calls launch; the checker requires
//! them to invalidate before their first GM read. One scan, so what the
//! checker demands is exactly what the inserter provides.
//!
//! The flag carries the publish that set it (for the checker's note); it
//! only grows (no publish, then some publish), so every fixpoint below
//! ends after one more visit:
//! - a block folds its nodes left to right;
//! - `scf.if` and switches: each branch from the incoming flag, OR of the
//!   results; `scf.execute_region`: its body;
//! - sequential loops (`scf.for`, `scf.while`, any other op with regions):
//!   the body, and once more with the flag set when the body published and
//!   the flag was clear (loop-carried order); parallel loops: once;
//! - a region of several blocks follows its successor edges: a block's
//!   flag is the OR of its predecessors', the entry block's the region's;
//!   blocks no path from the entry reaches start clear; the region's
//!   result is the OR of the blocks that leave it;
//! - a call publishes when it is a `ccl.submit`, calls a function with
//!   `ccl.builtin_template_dir`, or calls an orchestration-like function
//!   whose own scan (from a clear flag) ends set: its summary.
//!
//! A region scanned once with the flag set is not scanned with it set again
//! (nothing new can happen there), so each region is scanned at most twice.
//!
//! Summaries are solved before the scan, for the whole module at once,
//! cycles of wrappers included ([`summaries`]). Since the flag only grows,
//! a function's scan from a clear flag ends set exactly when one of its
//! publishes lies on a path to its end, and the rules above put an op on
//! such a path unless a region of several blocks holds it in a block that
//! reaches no exit of the region. So a summary is "a publish of its own
//! reaches the end, or a call of a wrapper whose summary holds does":
//! reachability over the calls that reach the end, solved in one walk of
//! each function and one of those calls (the least fixpoint of the
//! function-by-function rounds it replaces, which cost a round per hop
//! around a cycle of wrappers: quadratic).
use super::model::{Event, EventKind, Function, LoopKind, Module, Node, OpKey, Region};
use cclir_dialect::names::FunctionKind;

/// The flag: `Some(publish)` once a publish happened on some path.
pub type Seen = Option<OpKey>;

/// What a scan reports: a call-like `call` in `caller`, met while `seen`
/// holds `publish`, naming `callee` (a function of the module, or none).
/// The same call may be reported more than once (a rescan); consumers keep
/// sets.
pub trait Launches {
    fn launch(&mut self, caller: usize, call: &Event, callee: Option<usize>, publish: OpKey);
}

/// What a scan of the module did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Orchestration-like functions scanned (the scan targets).
    pub scan_targets: u64,
    /// Loop bodies and multi-block regions scanned again with the flag set.
    pub rescans: u64,
    /// Ops the scan visited (at most twice the ops of scan targets).
    pub op_visits: u64,
    /// Calls that publish because the orchestration-like function they
    /// call does (its own scan ends with the flag set), each counted once.
    pub wrapper_publishes: u64,
}

/// Which program the scan reads: the rules' Phase B
/// ([`ScanRules::PHASE_B`]), or what the execution model runs
/// ([`ScanRules::SOUND`], the checker's soundness rules: docs/semantics.md,
/// the Soundness paragraph).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanRules<'l> {
    /// Functions with no orchestration-like kind (no `ccl.kind`, `group`,
    /// `spmd`, `opaque`) run collectives and launch kernels as well: scan
    /// them, and count a call of one as a wrapper's.
    pub other_targets: bool,
    /// Parallel loops' iterations run one after another too: rescan them.
    pub rescan_parallel: bool,
    /// A launch sets the flag as a publish does ("a launch ran on this
    /// rank before"): with `Some(kernels)`, a call of an InCore function
    /// `kernels` holds (by module index), of a function the module does
    /// not define, and a submit.
    pub launches_publish: Option<&'l [bool]>,
}

impl<'l> ScanRules<'l> {
    /// Phase B as docs/semantics.md writes it.
    pub const PHASE_B: ScanRules<'static> =
        ScanRules { other_targets: false, rescan_parallel: false, launches_publish: None };
    /// Phase B over every path the execution model runs.
    pub const SOUND: ScanRules<'static> =
        ScanRules { other_targets: true, rescan_parallel: true, launches_publish: None };

    /// As `SOUND`, with a launch of one of `kernels` as the publish.
    pub fn after_launches_of(kernels: &'l [bool]) -> Self {
        ScanRules { launches_publish: Some(kernels), ..ScanRules::SOUND }
    }

    pub fn is_target(self, kind: FunctionKind) -> bool {
        kind == FunctionKind::Orchestration || (self.other_targets && kind == FunctionKind::Other)
    }
}

/// Scans every orchestration-like function of `module`, in module order,
/// once each: the summaries are solved first ([`summaries`]), so every call
/// of a wrapper is read with its final answer.
pub fn scan_module(module: &Module, launches: &mut dyn Launches) -> ScanStats {
    scan_module_with(module, ScanRules::PHASE_B, launches)
}

/// [`scan_module`] under `rules`.
pub fn scan_module_with(module: &Module, rules: ScanRules<'_>, launches: &mut dyn Launches) -> ScanStats {
    let mut scanner = Scanner {
        module,
        rules,
        summaries: summaries_with(module, rules),
        saturated: FunctionFlags::new(module, |function| function.region_count),
        wrapper_calls: FunctionFlags::new(module, |function| function.op_count),
        caller: 0,
        launches,
        stats: ScanStats::default(),
    };
    for (f, function) in module.functions.iter().enumerate() {
        if rules.is_target(function.kind) {
            scanner.stats.scan_targets += 1;
            scanner.function(f);
        }
    }
    scanner.stats.wrapper_publishes = scanner.wrapper_calls.count();
    scanner.stats
}

/// One flag per (function, index) for the indices `0..size(function)` of
/// every function of a module: a flat vector with an offset per function,
/// in place of a hash set of pairs the scan asks once per region it enters.
pub struct FunctionFlags {
    offsets: Vec<usize>,
    flags: Vec<bool>,
    /// How many flags are set.
    count: u64,
}

impl FunctionFlags {
    pub fn new(module: &Module, size: impl Fn(&super::model::Function) -> u32) -> Self {
        let mut offsets = Vec::with_capacity(module.functions.len());
        let mut total = 0;
        for function in &module.functions {
            offsets.push(total);
            total += size(function) as usize;
        }
        FunctionFlags { offsets, flags: vec![false; total], count: 0 }
    }

    pub fn get(&self, function: usize, index: u32) -> bool {
        self.flags[self.offsets[function] + index as usize]
    }

    /// Sets the flag; whether it was clear.
    pub fn set(&mut self, function: usize, index: u32) -> bool {
        let was_clear = !std::mem::replace(&mut self.flags[self.offsets[function] + index as usize], true);
        self.count += was_clear as u64;
        was_clear
    }

    /// How many (function, index) pairs have their flag set.
    pub fn count(&self) -> u64 {
        self.count
    }
}

struct Scanner<'m, 'l> {
    module: &'m Module,
    rules: ScanRules<'m>,
    /// Per function: whether its own scan ends with the flag set (solved
    /// before the scan).
    summaries: Vec<bool>,
    /// (function, region) already scanned with the flag set.
    saturated: FunctionFlags,
    /// (caller, call order) of the calls that publish through a summary.
    wrapper_calls: FunctionFlags,
    caller: usize,
    launches: &'l mut dyn Launches,
    stats: ScanStats,
}

impl Scanner<'_, '_> {
    fn function(&mut self, f: usize) -> Seen {
        self.caller = f;
        let module = self.module;
        match &module.functions[f].body {
            Some(body) => self.region(body, None),
            None => None,
        }
    }

    fn region(&mut self, region: &Region, seen: Seen) -> Seen {
        if seen.is_some() && self.saturated.get(self.caller, region.id) {
            return seen;
        }
        let result = match region.single_block() {
            Some(nodes) => self.block(nodes, seen),
            None => self.blocks(region, seen),
        };
        if seen.is_some() {
            self.saturated.set(self.caller, region.id);
        }
        result
    }

    /// A region of several blocks, along its successor edges.
    fn blocks(&mut self, region: &Region, seen: Seen) -> Seen {
        let n = region.blocks.len();
        // None: not reached yet; Some(flag): the block's incoming flag.
        let mut incoming: Vec<Option<Seen>> = vec![None; n];
        let mut exit: Seen = None;
        let mut work: Vec<usize> = Vec::new();
        let mut rescanned = false;
        incoming[0] = Some(seen);
        work.push(0);
        let mut next_unreached = 0;
        loop {
            while let Some(b) = work.pop() {
                let flag = incoming[b].flatten();
                let out = self.block(&region.blocks[b].nodes, flag);
                if region.blocks[b].successors.is_empty() {
                    exit = exit.or(out);
                }
                for &s in &region.blocks[b].successors {
                    let s = s as usize;
                    match incoming[s] {
                        None => {
                            incoming[s] = Some(out);
                            work.push(s);
                        }
                        Some(None) if out.is_some() => {
                            incoming[s] = Some(out);
                            rescanned = true;
                            work.push(s);
                        }
                        Some(_) => {}
                    }
                }
            }
            // Blocks no path from the entry reaches start clear.
            while next_unreached < n && incoming[next_unreached].is_some() {
                next_unreached += 1;
            }
            if next_unreached == n {
                break;
            }
            incoming[next_unreached] = Some(None);
            work.push(next_unreached);
        }
        if rescanned {
            self.stats.rescans += 1;
        }
        exit
    }

    fn block(&mut self, nodes: &[super::model::Node], seen: Seen) -> Seen {
        nodes.iter().fold(seen, |s, node| self.node(node, s))
    }

    fn in_sequence(&mut self, regions: &[&Region], seen: Seen) -> Seen {
        regions.iter().fold(seen, |s, region| self.region(region, s))
    }

    fn sequential_loop(&mut self, regions: &[&Region], seen: Seen) -> Seen {
        let result = self.in_sequence(regions, seen);
        if result.is_some() && seen.is_none() {
            self.stats.rescans += 1;
            self.in_sequence(regions, result);
        }
        result
    }

    fn node(&mut self, node: &Node, seen: Seen) -> Seen {
        match node {
            Node::Event(event) => {
                self.stats.op_visits += 1;
                self.event(event, seen)
            }
            Node::If { then, otherwise } => {
                let then = self.region(then, seen);
                let otherwise = match otherwise {
                    Some(region) => self.region(region, seen),
                    None => seen,
                };
                then.or(otherwise)
            }
            Node::Switch { cases } => cases.iter().fold(seen, |any, case| self.region(case, seen).or(any)),
            Node::Scope { body } => self.region(body, seen),
            Node::Loop { kind: LoopKind::Sequential, body } => self.sequential_loop(&[body], seen),
            Node::Loop { kind: LoopKind::Parallel, body } if !self.rules.rescan_parallel => self.region(body, seen),
            Node::Loop { kind: LoopKind::Parallel, body } => self.sequential_loop(&[body], seen),
            Node::While { before, after } => self.sequential_loop(&[before, after], seen),
            Node::Opaque { regions } => {
                let regions: Vec<&Region> = regions.iter().collect();
                self.sequential_loop(&regions, seen)
            }
        }
    }

    fn event(&mut self, event: &Event, seen: Seen) -> Seen {
        match &event.kind {
            EventKind::Call { callee, submit } => {
                if let Some(publish) = seen {
                    self.launches.launch(self.caller, event, *callee, publish);
                }
                let through_wrapper = wrapper(self.module, self.rules, *callee).is_some_and(|w| self.summaries[w]);
                if through_wrapper {
                    self.wrapper_calls.set(self.caller, event.order);
                }
                if through_wrapper || publishes_by_itself(self.module, self.rules, *callee, *submit) {
                    seen.or(Some(event.op))
                } else {
                    seen
                }
            }
            EventKind::Collective => seen.or(Some(event.op)),
            _ => seen,
        }
    }
}

/// Whether a call-like op publishes whatever its callee does: a
/// `ccl.submit`, or a call of a builtin-template function; under
/// `launches_publish`, any launch (a call of an InCore function or of a
/// function the module does not define).
fn publishes_by_itself(module: &Module, rules: ScanRules<'_>, callee: Option<usize>, submit: bool) -> bool {
    submit
        || callee.is_some_and(|c| module.functions[c].builtin_template)
        || rules.launches_publish.is_some_and(|kernels| {
            callee.is_none_or(|c| {
                let function = &module.functions[c];
                (function.kind == FunctionKind::InCore && kernels.get(c).copied().unwrap_or(true))
                    || (function.kind != FunctionKind::InCore && function.body.is_none())
            })
        })
}

/// The callee of a call-like op when it is a wrapper (orchestration-like):
/// the call publishes when the callee's summary holds.
fn wrapper(module: &Module, rules: ScanRules<'_>, callee: Option<usize>) -> Option<usize> {
    callee.filter(|&c| rules.is_target(module.functions[c].kind))
}

/// Per function of `module`: whether its scan from a clear flag ends set
/// (false for functions that are not orchestration-like, and for
/// declarations). Linear in the module: one walk per function body, then
/// one visit per call of a wrapper that reaches its caller's end.
pub fn summaries(module: &Module) -> Vec<bool> {
    summaries_with(module, ScanRules::PHASE_B)
}

/// [`summaries`] under `rules`.
pub fn summaries_with(module: &Module, rules: ScanRules<'_>) -> Vec<bool> {
    let n = module.functions.len();
    let mut summary = vec![false; n];
    let mut published = Vec::new();
    // (callee, caller): a call of wrapper `callee` reaches `caller`'s end.
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for (f, function) in module.functions.iter().enumerate() {
        if !rules.is_target(function.kind) {
            continue;
        }
        let Some(ending) = Ending::of(module, rules, function) else { continue };
        if ending.publishes {
            summary[f] = true;
            published.push(f);
        } else {
            edges.extend(ending.wrappers.into_iter().map(|w| (w, f)));
        }
    }
    // The callers of each wrapper, grouped by wrapper (a counting sort).
    let mut start = vec![0usize; n + 1];
    for &(callee, _) in &edges {
        start[callee + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut callers = vec![0usize; edges.len()];
    let mut next = start.clone();
    for &(callee, caller) in &edges {
        callers[next[callee]] = caller;
        next[callee] += 1;
    }
    // A caller publishes once a wrapper whose call reaches its end does.
    while let Some(callee) = published.pop() {
        for &caller in &callers[start[callee]..start[callee + 1]] {
            if !std::mem::replace(&mut summary[caller], true) {
                published.push(caller);
            }
        }
    }
    summary
}

/// What reaches the end of one function body: whether a publish of its
/// own does, and the wrappers whose calls do.
struct Ending<'l> {
    rules: ScanRules<'l>,
    publishes: bool,
    wrappers: Vec<usize>,
}

impl<'l> Ending<'l> {
    /// `None` for a declaration (or a body that was not lowered).
    fn of(module: &Module, rules: ScanRules<'l>, function: &Function) -> Option<Ending<'l>> {
        let mut ending = Ending { rules, publishes: false, wrappers: Vec::new() };
        ending.region(module, function.body.as_ref()?, true);
        Some(ending)
    }

    /// Visits the events of `region`; `reaches` says whether the region's
    /// end reaches the function's.
    fn region(&mut self, module: &Module, region: &Region, reaches: bool) {
        match region.single_block() {
            Some(nodes) => self.nodes(module, nodes, reaches),
            None => {
                let exits = blocks_reaching_an_exit(region);
                for (block, exits) in region.blocks.iter().zip(exits) {
                    self.nodes(module, &block.nodes, reaches && exits);
                }
            }
        }
    }

    fn nodes(&mut self, module: &Module, nodes: &[Node], reaches: bool) {
        for node in nodes {
            match node {
                Node::Event(event) if reaches => match &event.kind {
                    EventKind::Call { callee, submit } => {
                        if publishes_by_itself(module, self.rules, *callee, *submit) {
                            self.publishes = true;
                        } else if let Some(w) = wrapper(module, self.rules, *callee) {
                            self.wrappers.push(w);
                        }
                    }
                    EventKind::Collective => self.publishes = true,
                    _ => {}
                },
                Node::Event(_) => {}
                Node::If { then, otherwise } => {
                    self.region(module, then, reaches);
                    if let Some(otherwise) = otherwise {
                        self.region(module, otherwise, reaches);
                    }
                }
                Node::Switch { cases: regions } | Node::Opaque { regions } => {
                    for region in regions {
                        self.region(module, region, reaches);
                    }
                }
                Node::Scope { body } | Node::Loop { body, .. } => self.region(module, body, reaches),
                Node::While { before, after } => {
                    self.region(module, before, reaches);
                    self.region(module, after, reaches);
                }
            }
        }
    }
}

/// Per block of a region of several blocks: whether some path along its
/// successor edges leads to a block that leaves the region.
fn blocks_reaching_an_exit(region: &Region) -> Vec<bool> {
    let n = region.blocks.len();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, block) in region.blocks.iter().enumerate() {
        for &s in &block.successors {
            predecessors[s as usize].push(b);
        }
    }
    let mut reaches = vec![false; n];
    let mut work: Vec<usize> = (0..n).filter(|&b| region.blocks[b].successors.is_empty()).collect();
    for &b in &work {
        reaches[b] = true;
    }
    while let Some(b) = work.pop() {
        for &p in &predecessors[b] {
            if !std::mem::replace(&mut reaches[p], true) {
                work.push(p);
            }
        }
    }
    reaches
}
