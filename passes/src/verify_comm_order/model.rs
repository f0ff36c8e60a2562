//! The checker's own view of a module: a small tree of the ops that matter
//! for communication order (publishes, markers, signals, GM reads, calls,
//! collectives) inside the structured control flow that contains them.
//!
//! Everything else (arith, index, math, loads from plain memrefs, ...) is
//! dropped while lowering, and a control-flow op whose regions hold nothing
//! that matters is dropped too, so the analyses run on a tree that is often
//! much smaller than the IR. The tree holds raw op handles only to build
//! diagnostics at the end; the analyses themselves are pure Rust and can be
//! driven by tests without MLIR.

use crate::{ir, names, names::FunctionKind};
use melior::ir::{operation::OperationLike, r#type::TypeLike, BlockRef, OperationRef, RegionLike, RegionRef, ValueLike};
use std::collections::HashMap;

/// A raw `MlirOperation` pointer, valid while the module is (used only to
/// locate diagnostics).
pub type OpHandle = usize;

/// The window of a local publish or region invalidate: the SSA value's
/// identity, numbered per function in order of appearance.
pub type WindowId = u32;

/// What an op means for communication order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// `tile_store` / `tensor_write` / `get`; `window` is the `dst` when it
    /// is window-bound (a local publish), `None` for a plain memref.
    Store { window: Option<WindowId> },
    /// `remote_store` / `put`: a remote publish.
    RemoteStore,
    /// `func.call` or `ccl.submit`, with the flat callee symbol if any.
    Call { callee: Option<String>, submit: bool },
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
    pub op: OpHandle,
    pub order: u32,
    pub kind: EventKind,
}

/// A region: its blocks in region order. `id` numbers the regions of one
/// function (for memoised summaries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Region {
    pub id: u32,
    pub blocks: Vec<Vec<Node>>,
}

impl Region {
    pub fn is_empty(&self) -> bool {
        self.blocks.iter().all(|block| block.is_empty())
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
    If { then: Region, otherwise: Option<Region> },
    /// `scf.index_switch` and the like: exactly one region runs.
    Switch { cases: Vec<Region> },
    /// A one-region loop; zero or more iterations.
    Loop { kind: LoopKind, body: Region },
    /// `scf.while`: `before` runs at least once, then `after` and `before`
    /// again zero or more times; the loop exits after `before`.
    While { before: Region, after: Region },
    /// `scf.execute_region`: its body once.
    Scope { body: Region },
    /// Any other op with regions: its regions may run in sequence, zero or
    /// more times (the conservative reading).
    Opaque { regions: Vec<Region> },
}

/// One `func.func` of the module.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub op: OpHandle,
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
}

/// The module's top-level functions, in module order.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub by_name: HashMap<String, usize>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.by_name.get(name).map(|&index| &self.functions[index])
    }
}

/// A function whose `ccl.kind` is not one DIALECT.md lists.
#[derive(Clone, Debug)]
pub struct BadKind {
    pub op: OpHandle,
    pub message: String,
}

/// Lowers every top-level `func.func` of `module`.
pub fn lower_module(module: OperationRef<'_, '_>) -> Result<Module, Vec<BadKind>> {
    let mut out = Module::default();
    let mut bad = Vec::new();
    let mut window_types: HashMap<usize, bool> = HashMap::new();
    for block in ir::regions(module).flat_map(ir::blocks) {
        for op in ir::ops(block) {
            if ir::op_name(op) != names::FUNC {
                continue;
            }
            let kind = match ir::function_kind(op) {
                Ok(kind) => kind,
                Err(unknown) => {
                    bad.push(BadKind { op: op.to_raw().ptr as usize, message: unknown.to_string() });
                    continue;
                }
            };
            let function = lower_function(op, kind, &mut window_types);
            out.by_name.entry(function.name.clone()).or_insert(out.functions.len());
            out.functions.push(function);
        }
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(bad)
    }
}

struct Lowerer<'t> {
    order: u32,
    regions: u32,
    windows: HashMap<usize, WindowId>,
    /// Memo: is a memref type (by its uniqued pointer) window-bound?
    window_types: &'t mut HashMap<usize, bool>,
}

fn lower_function(func: OperationRef<'_, '_>, kind: FunctionKind, window_types: &mut HashMap<usize, bool>) -> Function {
    let mut lowerer = Lowerer { order: 0, regions: 0, windows: HashMap::new(), window_types };
    let body = func.region(0).ok().filter(|region| region.first_block().is_some()).map(|region| lowerer.region(region));
    Function {
        name: ir::symbol_name(func).unwrap_or_default().to_string(),
        op: func.to_raw().ptr as usize,
        kind,
        builtin_template: func.has_attribute(names::ATTR_BUILTIN_TEMPLATE_DIR),
        body,
        region_count: lowerer.regions,
        window_count: lowerer.windows.len() as u32,
        op_count: lowerer.order,
    }
}

impl Lowerer<'_> {
    fn region(&mut self, region: RegionRef<'_, '_>) -> Region {
        let id = self.regions;
        self.regions += 1;
        let blocks = ir::blocks(region).map(|block| self.block(block)).collect();
        Region { id, blocks }
    }

    fn block(&mut self, block: BlockRef<'_, '_>) -> Vec<Node> {
        let mut nodes = Vec::new();
        for op in ir::ops(block) {
            if let Some(node) = self.op(op) {
                nodes.push(node);
            }
        }
        nodes
    }

    fn window_of(&mut self, value: melior::ir::Value<'_, '_>) -> Option<WindowId> {
        let ty = value.r#type().to_raw().ptr as usize;
        let bound = *self
            .window_types
            .entry(ty)
            .or_insert_with(|| ir::is_window_memref_type(value.r#type()));
        if !bound {
            return None;
        }
        let next = self.windows.len() as WindowId;
        Some(*self.windows.entry(ir::value_key(value)).or_insert(next))
    }

    fn op(&mut self, op: OperationRef<'_, '_>) -> Option<Node> {
        let order = self.order;
        self.order += 1;
        let name = ir::op_name(op);
        let event = |kind| Some(Node::Event(Event { op: op.to_raw().ptr as usize, order, kind }));
        let operand_window = |this: &mut Self, index: usize| op.operand(index).ok().and_then(|v| this.window_of(v));
        match name {
            names::TILE_STORE => event(EventKind::Store { window: operand_window(self, 1) }),
            names::TENSOR_WRITE | names::GET => event(EventKind::Store { window: operand_window(self, 0) }),
            names::REMOTE_STORE | names::PUT => event(EventKind::RemoteStore),
            names::CALL | names::SUBMIT => event(EventKind::Call {
                callee: ir::callee_symbol(op).map(str::to_string),
                submit: name == names::SUBMIT,
            }),
            names::ALL_TO_ALL_V | names::ALL_REDUCE | names::BARRIER => event(EventKind::Collective),
            names::WAIT => event(EventKind::Wait),
            names::FENCE => event(EventKind::Fence),
            names::CACHE_INVALID => {
                // The region form names its target by SSA value; a target
                // that is not window-bound still gets its own identity.
                let window = if op.operand_count() == 0 {
                    None
                } else {
                    let value = op.operand(0).ok()?;
                    let next = self.windows.len() as WindowId;
                    Some(*self.windows.entry(ir::value_key(value)).or_insert(next))
                };
                event(EventKind::Invalidate(window))
            }
            names::NOTIFY => event(EventKind::Notify),
            names::RETURN => event(EventKind::Return),
            names::READ | names::TILE_LOAD | names::REMOTE_LOAD => event(EventKind::GmRead),
            // A nested symbol table or function is not part of this body.
            names::FUNC | "builtin.module" => None,
            _ if op.region_count() == 0 => None,
            _ => {
                let regions: Vec<Region> = ir::regions(op).map(|region| self.region(region)).collect();
                if regions.iter().all(Region::is_empty) {
                    return None;
                }
                let mut regions = regions.into_iter();
                let mut next = || regions.next().unwrap_or_default();
                Some(match name {
                    names::SCF_IF => {
                        let then = next();
                        let otherwise = Some(next()).filter(|r| !r.blocks.is_empty());
                        Node::If { then, otherwise }
                    }
                    "scf.index_switch" => Node::Switch { cases: regions_of(next, op.region_count()) },
                    names::SCF_FOR => Node::Loop { kind: LoopKind::Sequential, body: next() },
                    names::SCF_PARALLEL | names::SCF_FORALL if op.region_count() == 1 => {
                        Node::Loop { kind: LoopKind::Parallel, body: next() }
                    }
                    names::SCF_WHILE if op.region_count() == 2 => {
                        let before = next();
                        let after = next();
                        Node::While { before, after }
                    }
                    names::SCF_EXECUTE_REGION if op.region_count() == 1 => Node::Scope { body: next() },
                    _ => Node::Opaque { regions: regions_of(next, op.region_count()) },
                })
            }
        }
    }
}

fn regions_of(mut next: impl FnMut() -> Region, count: usize) -> Vec<Region> {
    (0..count).map(|_| next()).collect()
}

/// Rebuilds an op reference from a handle (the module must be alive).
///
/// # Safety
/// `handle` must come from this run's lowering of a module that is still
/// alive and unchanged.
pub unsafe fn op_ref<'c, 'a>(handle: OpHandle) -> OperationRef<'c, 'a> {
    OperationRef::from_raw(mlir_sys::MlirOperation { ptr: handle as *mut std::ffi::c_void })
}
