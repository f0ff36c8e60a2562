//! The passes' shared view of a module: a small tree of the ops that matter
//! for communication order (publishes, markers, signals, GM reads, calls,
//! collectives) inside the control flow that contains them, structured
//! (`scf`) or not (blocks with their successor edges).
//!
//! Everything else (arith, index, math, loads from plain memrefs, ...) is
//! dropped while lowering, and a control-flow op whose regions hold nothing
//! that matters is dropped too, so the analyses run on a tree that is often
//! much smaller than the IR. The tree names its ops by key ([`OpKey`]),
//! an identity that never turns back into a reference: a pass that needs
//! the op again (to place a marker, to locate a diagnostic) finds it in
//! the IR it holds ([`function_ops`], [`find_ops`]). The analyses
//! themselves are pure Rust and tests drive them without MLIR.

use super::trip_guard;
use crate::{
    framework::PassContext,
    ir::{self, BlockKey, Exclusive, TypeKey, ValueKey},
};
use cclir_dialect::names::{FunctionKind, Interned, Name};
use melior::ir::{operation::OperationLike, BlockLike, BlockRef, Location, OperationRef, RegionLike, RegionRef, Value};
use rustc_hash::{FxHashMap, FxHashSet};

pub use crate::ir::OpKey;

/// The window of a local publish or region invalidate: the SSA value's
/// identity, numbered per function in order of appearance.
pub type WindowId = u32;

/// What an op means for communication order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// `tile_store` / `tensor_write` / `get`; `window` is the `dst` when it
    /// is window-bound (a local publish), `None` for a plain memref.
    Store {
        window: Option<WindowId>,
    },
    /// `remote_store` / `put`: a remote publish.
    RemoteStore,
    /// `func.call` or `ccl.submit`; `callee` indexes `Module::functions`
    /// when the flat symbol names a function of the module.
    Call {
        callee: Option<usize>,
        submit: bool,
    },
    /// `all_to_all_v`, `all_reduce`, `barrier`.
    Collective,
    Wait,
    Fence,
    /// `ccl.cacheinvalid(W)` (`Some`) or whole-GM `ccl.cacheinvalid()`.
    Invalidate(Option<WindowId>),
    Notify,
    /// `func.return` (of the function itself).
    Return,
    /// `read`, `tile_load`, `remote_load`.
    GmRead,
}

/// One relevant op: its handle, its pre-order index in its function (a
/// stable identity and the order diagnostics are sorted by) and its meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub op: OpKey,
    pub order: u32,
    pub kind: EventKind,
}

/// A block: its nodes, and the blocks of its region its terminator branches
/// to (indices into `Region::blocks`). A block without successors leaves
/// the region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub nodes: Vec<Node>,
    pub successors: Vec<u32>,
}

/// A region: its blocks in region order, the first the entry. `id` numbers
/// the regions of one function (for memoised summaries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Region {
    pub id: u32,
    pub blocks: Vec<Block>,
}

impl Region {
    pub fn is_empty(&self) -> bool {
        self.blocks.iter().all(|block| block.nodes.is_empty())
    }

    /// A structured region's nodes: its one block (empty for no block).
    pub fn single_block(&self) -> Option<&[Node]> {
        match self.blocks.as_slice() {
            [] => Some(&[]),
            [block] => Some(&block.nodes),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// `scf.for`: iterations in order.
    Sequential,
    /// `scf.parallel`, `scf.forall`: iterations unordered.
    Parallel,
}

/// A node of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Event(Event),
    /// `scf.if`: then, and else (`None` when the else region is empty).
    If {
        then: Region,
        otherwise: Option<Region>,
    },
    /// `scf.index_switch` and the like: exactly one region runs.
    Switch {
        cases: Vec<Region>,
    },
    /// A one-region loop; zero or more iterations.
    Loop {
        kind: LoopKind,
        body: Region,
    },
    /// `scf.while`: `before` runs at least once, then `after` and `before`
    /// again zero or more times; the loop exits after `before`.
    While {
        before: Region,
        after: Region,
    },
    /// `scf.execute_region`: its body once.
    Scope {
        body: Region,
    },
    /// Any other op with regions: its regions may run in sequence, zero or
    /// more times (the conservative reading).
    Opaque {
        regions: Vec<Region>,
    },
}

impl Node {
    /// The regions nested in the node, in the order the op holds them
    /// (`then` before `else`, `before` before `after`); none for an event.
    pub fn regions(&self) -> smallvec::SmallVec<[&Region; 2]> {
        match self {
            Node::Event(_) => smallvec::SmallVec::new(),
            Node::If { then, otherwise } => std::iter::once(then).chain(otherwise.as_ref()).collect(),
            Node::Switch { cases: regions } | Node::Opaque { regions } => regions.iter().collect(),
            Node::Loop { body, .. } | Node::Scope { body } => smallvec::smallvec![body],
            Node::While { before, after } => smallvec::smallvec![before, after],
        }
    }
}

/// One `func.func` of the module.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub op: OpKey,
    pub kind: FunctionKind,
    pub builtin_template: bool,
    /// `None` for a declaration.
    pub body: Option<Region>,
    /// How many regions `body` numbers (ids are `0..region_count`).
    pub region_count: u32,
    /// How many windows the function's events name.
    pub window_count: u32,
    /// How many ops the function has (events or not).
    pub op_count: u32,
    /// The op owning each region (by region id): the loop, `scf.while` or
    /// other op whose back edges the checker's facts cross, or the op
    /// whose region of several blocks they move around in.
    pub region_owners: Vec<OpKey>,
    /// The functions of the module its call-like ops name, sorted, each
    /// once: its edges in the call graph, gathered while lowering (on the
    /// thread that lowers it) rather than by a second walk of the tree.
    /// Empty when the body is not lowered.
    pub callees: Vec<usize>,
}

/// The module's top-level functions, in module order.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub by_name: FxHashMap<String, usize>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.by_name.get(name).map(|&index| &self.functions[index])
    }
}

/// A function whose `ccl.kind` is not one the dialect lists.
#[derive(Clone, Debug)]
pub struct BadKind<'c> {
    /// The function's location.
    pub location: Location<'c>,
    pub message: String,
}

/// Which function bodies a pass needs lowered (the others keep their
/// kind, name and flags, with no body).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bodies {
    All,
    /// All but InCore functions': what the Phase B scan and wrapper
    /// resolution read.
    NotInCore,
    /// None: the kinds, names and flags only.
    None,
}

impl Bodies {
    fn wants(self, kind: FunctionKind) -> bool {
        match self {
            Bodies::All => true,
            Bodies::NotInCore => kind != FunctionKind::InCore,
            Bodies::None => false,
        }
    }
}

/// Lowers the top-level `func.func`s of `module`; the unknown kinds, all
/// of them in module order, when there are any.
pub fn lower_module<'c>(module: OperationRef<'c, '_>, bodies: Bodies) -> Result<Module, Vec<BadKind<'c>>> {
    let names = Interned::new(ir::context_of(module));
    let mut functions = Vec::new();
    let mut bad = Vec::new();
    for op in function_ops(module, &names) {
        match ir::function_kind(op) {
            Ok(kind) => functions.push((op, kind)),
            Err(unknown) => bad.push(BadKind { location: op.location(), message: unknown.to_string() }),
        }
    }
    if !bad.is_empty() {
        return Err(bad);
    }
    let mut out = Module::default();
    for (index, (op, _)) in functions.iter().enumerate() {
        if let Some(name) = ir::symbol_name(*op) {
            out.by_name.entry(name.to_string()).or_insert(index);
        }
    }
    let mut window_types = FxHashMap::default();
    for (op, kind) in functions {
        let function = Lowerer::function(
            op,
            kind,
            bodies.wants(kind),
            &names,
            &out.by_name,
            &mut window_types,
            &FxHashSet::default(),
            None,
        );
        out.functions.push(function);
    }
    Ok(out)
}

/// The top-level `func.func`s of `module`, in module order: the functions
/// of its model ([`Module::functions`]), index for index.
pub fn function_ops<'c, 'a>(module: OperationRef<'c, 'a>, names: &Interned) -> Vec<OperationRef<'c, 'a>> {
    ir::regions(module).flat_map(ir::blocks).flat_map(ir::ops).filter(|op| Name::of(*op) == names.func).collect()
}

/// As [`lower_module`], with the bodies lowered one function per task on
/// the thread pool of `cx` (the same model: a body's lowering reads only its
/// function). The serial part is the walk over the module's top level.
pub fn lower_module_in_parallel<'c>(
    module: OperationRef<'c, '_>,
    bodies: Bodies,
    cx: &PassContext<'_>,
) -> Result<Module, Vec<BadKind<'c>>> {
    let mut out = lower_module(module, Bodies::None)?;
    let names = Interned::new(ir::context_of(module));
    let functions = function_ops(module, &names);
    let wanted: Vec<usize> = (0..out.functions.len()).filter(|&f| bodies.wants(out.functions[f].kind)).collect();
    let tasks = Exclusive::new(wanted.iter().map(|&f| functions[f]).collect());
    let lowered = cx.parallel_map(wanted.len(), |task| {
        lower_body(&out, wanted[task], tasks.take(task).expect("one task per function"), &names)
    });
    for (index, body) in wanted.into_iter().zip(lowered) {
        out.functions[index] = body;
    }
    Ok(out)
}

/// Lowers the body of function `index` of a module lowered without it
/// (`Bodies::NotInCore` or `Bodies::None`); `func` is that function's op.
/// It reads only that function, so the functions of a module can be
/// lowered one per task, on any thread.
pub fn lower_body(module: &Module, index: usize, func: OperationRef<'_, '_>, names: &Interned) -> Function {
    lower_kernel(module, index, func, names, &FxHashSet::default()).0
}

/// As [`lower_body`], and the op of every event (by its order, ascending),
/// for the analyses that read an event's operands again. The stores of
/// `published` (plain-buffer writes another block reads:
/// `comm_order::buffers`) are local publishes of their destination, as a
/// window store is.
pub fn lower_kernel<'c, 'a>(
    module: &Module,
    index: usize,
    func: OperationRef<'c, 'a>,
    names: &Interned,
    published: &FxHashSet<OpKey>,
) -> (Function, EventOps<'c, 'a>) {
    let function = &module.functions[index];
    debug_assert_eq!(OpKey::of(func), function.op, "the op of function {index}");
    let mut window_types = FxHashMap::default();
    let mut ops = EventOps::default();
    let lowered = Lowerer::function(
        func,
        function.kind,
        true,
        names,
        &module.by_name,
        &mut window_types,
        published,
        Some(&mut ops),
    );
    (lowered, ops)
}

/// Lowers function `func` (its body) on its own, with no module around
/// it: its calls name no function of the model. For the passes that run
/// on one function (the sink), which may not read the others.
pub fn lower_alone<'c, 'a>(
    func: OperationRef<'c, 'a>,
    names: &Interned,
    kind: FunctionKind,
    published: &FxHashSet<OpKey>,
) -> (Function, EventOps<'c, 'a>) {
    let mut window_types = FxHashMap::default();
    let mut ops = EventOps::default();
    let no_functions = FxHashMap::default();
    let lowered =
        Lowerer::function(func, kind, true, names, &no_functions, &mut window_types, published, Some(&mut ops));
    (lowered, ops)
}

/// The ops of a lowered function's events, by order.
#[derive(Default)]
pub struct EventOps<'c, 'a>(Vec<(u32, OperationRef<'c, 'a>)>);

impl<'c, 'a> EventOps<'c, 'a> {
    /// How many events.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The op of the event numbered `order`.
    pub fn get(&self, order: u32) -> Option<OperationRef<'c, 'a>> {
        self.0.binary_search_by_key(&order, |(o, _)| *o).ok().map(|at| self.0[at].1)
    }
}

struct Lowerer<'t, 'c, 'a> {
    names: &'t Interned,
    /// Plain-buffer stores that publish (see [`lower_kernel`]).
    published: &'t FxHashSet<OpKey>,
    /// Where the events' ops are kept, when the caller wants them.
    event_ops: Option<&'t mut EventOps<'c, 'a>>,
    region_owners: Vec<OpKey>,
    by_name: &'t FxHashMap<String, usize>,
    order: u32,
    regions: u32,
    windows: FxHashMap<ValueKey, WindowId>,
    /// Memo: is a memref type (by its uniqued pointer) window-bound?
    window_types: &'t mut FxHashMap<TypeKey, bool>,
    /// The nodes of the blocks being lowered, innermost block last.
    scratch: Vec<Node>,
    /// Every callee named so far, in walk order.
    callees: Vec<usize>,
}

impl<'t, 'c, 'a> Lowerer<'t, 'c, 'a> {
    #[allow(clippy::too_many_arguments)]
    fn function(
        func: OperationRef<'c, 'a>,
        kind: FunctionKind,
        lower: bool,
        names: &'t Interned,
        by_name: &'t FxHashMap<String, usize>,
        window_types: &'t mut FxHashMap<TypeKey, bool>,
        published: &'t FxHashSet<OpKey>,
        event_ops: Option<&'t mut EventOps<'c, 'a>>,
    ) -> Function {
        let mut lowerer = Lowerer {
            names,
            published,
            event_ops,
            region_owners: Vec::new(),
            by_name,
            order: 0,
            regions: 0,
            windows: FxHashMap::default(),
            window_types,
            scratch: Vec::new(),
            callees: Vec::new(),
        };
        let body = ir::regions(func)
            .next()
            .filter(|region| lower && region.first_block().is_some())
            .map(|region| lowerer.region(region));
        let mut callees = lowerer.callees;
        callees.sort_unstable();
        callees.dedup();
        Function {
            name: ir::symbol_name(func).unwrap_or_default().to_string(),
            op: OpKey::of(func),
            kind,
            builtin_template: func.has_attribute(cclir_dialect::names::ATTR_BUILTIN_TEMPLATE_DIR),
            body,
            region_count: lowerer.regions,
            window_count: lowerer.windows.len() as u32,
            op_count: lowerer.order,
            region_owners: lowerer.region_owners,
            callees,
        }
    }

    fn region(&mut self, region: RegionRef<'c, 'a>) -> Region {
        let id = self.regions;
        self.regions += 1;
        let owner = region.first_block().and_then(|b| b.parent_operation()).map(OpKey::of);
        self.region_owners.push(owner.unwrap_or(OpKey::synthetic(u32::MAX)));
        let Some(entry) = region.first_block() else {
            return Region { id, blocks: Vec::new() };
        };
        // Most regions have one block, which branches nowhere: no block
        // list to collect and no successors to resolve.
        if entry.next_in_region().is_none() {
            return Region { id, blocks: vec![Block { nodes: self.nodes(entry), successors: Vec::new() }] };
        }
        let refs: Vec<BlockRef<'c, 'a>> = ir::blocks(region).collect();
        // A successor outside the region cannot be (the verifier rejects it).
        let index: FxHashMap<BlockKey, u32> =
            refs.iter().enumerate().map(|(i, block)| (BlockKey::of(*block), i as u32)).collect();
        let blocks = refs
            .iter()
            .map(|block| {
                let nodes = self.nodes(*block);
                let successors = ir::successors(*block).iter().filter_map(|key| index.get(key).copied()).collect();
                Block { nodes, successors }
            })
            .collect();
        Region { id, blocks }
    }

    /// The nodes of `block`'s ops. They are gathered on one stack shared by
    /// the whole lowering, so each block's list is allocated once, at its
    /// final size (and not at all when nothing in the block matters).
    ///
    /// An `scf.for` followed (among the nodes) by its trip guard
    /// (`trip_guard`) becomes one `scf.if` whose then-branch starts with
    /// the loop and whose else-branch skips it: the two run together, and
    /// the path "the body ran, then the guard's else-branch" does not exist.
    fn nodes(&mut self, block: BlockRef<'c, 'a>) -> Vec<Node> {
        let start = self.scratch.len();
        // The `scf.for` of the last node of this block, if it is one.
        let mut last_for = None;
        for op in ir::ops(block) {
            let Some(mut node) = self.op(op) else { continue };
            if let (Some(scf_for), Node::If { then, .. }) = (last_for, &mut node) {
                if trip_guard::is_trip_guard(self.names, op, scf_for) {
                    let looped = self.scratch.pop().expect("the loop's node is the last one");
                    if then.blocks.is_empty() {
                        then.blocks.push(Block::default());
                    }
                    // The loop runs before the then-region's entry block.
                    then.blocks[0].nodes.insert(0, looped);
                }
            }
            last_for = (Name::of(op) == self.names.scf_for && matches!(node, Node::Loop { .. })).then_some(op);
            self.scratch.push(node);
        }
        self.scratch.drain(start..).collect()
    }

    fn window_of(&mut self, value: Value<'_, '_>) -> Option<WindowId> {
        let ty = melior::ir::ValueLike::r#type(&value);
        let names = self.names;
        let bound = *self.window_types.entry(TypeKey::of(ty)).or_insert_with(|| ir::is_window_bound(names, value));
        bound.then(|| self.window_id(value))
    }

    /// The window a store publishes: its window-bound destination, or a
    /// plain destination the store is one of `published` for.
    fn published_window(&mut self, op: OperationRef<'_, '_>, dst: Value<'_, '_>) -> Option<WindowId> {
        match self.window_of(dst) {
            Some(window) => Some(window),
            None if !self.published.is_empty() && self.published.contains(&OpKey::of(op)) => Some(self.window_id(dst)),
            None => None,
        }
    }

    fn window_id(&mut self, value: Value<'_, '_>) -> WindowId {
        let next = self.windows.len() as WindowId;
        *self.windows.entry(ValueKey::of(value)).or_insert(next)
    }

    fn op(&mut self, op: OperationRef<'c, 'a>) -> Option<Node> {
        let order = self.order;
        self.order += 1;
        let name = Name::of(op);
        if let Some(ops) = self.event_ops.as_deref_mut() {
            if self.names.kind(name).is_some() || name == self.names.call || name == self.names.func_return {
                ops.0.push((order, op));
            }
        }
        let event = |kind| Some(Node::Event(Event { op: OpKey::of(op), order, kind }));
        let names = self.names;
        if let Some(kind) = names.kind(name) {
            let view = cclir_dialect::ods::CclOp::view(kind, op)?;
            use cclir_dialect::ods::CclOp as C;
            return match view {
                C::TileStore(store) => event(EventKind::Store { window: self.published_window(op, store.dst()) }),
                C::TensorWrite(write) => event(EventKind::Store { window: self.published_window(op, write.dst()) }),
                C::Get(get) => event(EventKind::Store { window: self.published_window(op, get.dst()) }),
                C::RemoteStore(_) | C::Put(_) => event(EventKind::RemoteStore),
                C::Submit(submit) => event(EventKind::Call { callee: self.callee(submit.callee()), submit: true }),
                C::AllToAllV(_) | C::AllReduce(_) | C::Barrier(_) => event(EventKind::Collective),
                C::Wait(_) => event(EventKind::Wait),
                C::Fence(_) => event(EventKind::Fence),
                // The region form names its target by SSA value; a target
                // that is not window-bound still gets its own identity.
                C::CacheInvalid(invalidate) => {
                    event(EventKind::Invalidate(invalidate.target().map(|target| self.window_id(target))))
                }
                C::Notify(_) => event(EventKind::Notify),
                C::Read(_) | C::TileLoad(_) | C::RemoteLoad(_) => event(EventKind::GmRead),
                C::CalAllToAllVBlocks(_) | C::CommSize(_) | C::Rank(_) | C::BlockId(_) => None,
            };
        }
        if name == names.call {
            return event(EventKind::Call { callee: self.callee(ir::callee_symbol(op)), submit: false });
        }
        if name == names.func_return {
            return event(EventKind::Return);
        }
        // A nested symbol table or function is not part of this body.
        if name == names.func || name == names.module || op.region_count() == 0 {
            return None;
        }
        // A loop, not an iterator adapter: this recursion is one level per
        // nesting level of the IR, on whatever stack the pass runs on (a
        // thread pool worker's, for the function passes), so each level
        // costs as few frames as it can.
        let mut regions: Vec<Region> = Vec::new();
        for region in ir::regions(op) {
            regions.push(self.region(region));
        }
        if regions.iter().all(Region::is_empty) {
            return None;
        }
        let count = regions.len();
        Some(if name == names.scf_if && count == 2 {
            let otherwise = regions.pop().filter(|r| !r.blocks.is_empty());
            Node::If { then: regions.pop().unwrap_or_default(), otherwise }
        } else if name == names.scf_index_switch {
            Node::Switch { cases: regions }
        } else if name == names.scf_for && count == 1 {
            Node::Loop { kind: LoopKind::Sequential, body: regions.pop().unwrap_or_default() }
        } else if (name == names.scf_parallel || name == names.scf_forall) && count == 1 {
            Node::Loop { kind: LoopKind::Parallel, body: regions.pop().unwrap_or_default() }
        } else if name == names.scf_while && count == 2 {
            let after = regions.pop().unwrap_or_default();
            Node::While { before: regions.pop().unwrap_or_default(), after }
        } else if name == names.scf_execute_region && count == 1 {
            Node::Scope { body: regions.pop().unwrap_or_default() }
        } else {
            Node::Opaque { regions }
        })
    }

    fn callee(&mut self, symbol: Option<&str>) -> Option<usize> {
        let callee = symbol.and_then(|name| self.by_name.get(name).copied());
        self.callees.extend(callee);
        callee
    }
}

/// The ops of `keys` among the ops nested in `root` (found by one walk, so
/// only ops alive in `root` are found).
pub fn find_ops<'c, 'a>(root: OperationRef<'c, 'a>, keys: &[OpKey]) -> FxHashMap<OpKey, OperationRef<'c, 'a>> {
    let wanted: FxHashSet<OpKey> = keys.iter().copied().collect();
    let mut found = FxHashMap::default();
    ir::walk_nested(root, |op| {
        let key = OpKey::of(op);
        if wanted.contains(&key) {
            found.insert(key, op);
        }
        ir::Walk::Advance
    });
    found
}
