//! Names ops and functions are told apart by: the function kinds, the
//! attribute names of the dialect contract, the side-effect-free ops, and
//! op names interned in a context ([`Interned`]) so that a pass compares
//! one word per op instead of fetching strings across the FFI boundary.
//! The ccl ops are the generated [`OpKind`]s; the upstream ops the passes
//! read are listed here once.

pub use crate::ffi::identifiers::Name;
use crate::{ffi, ods::OpKind};
use melior::{
    ir::{Attribute, AttributeLike, OperationRef},
    Context,
};
use rustc_hash::FxHashMap;

/// Function attributes.
pub const ATTR_KIND: &str = "ccl.kind";
pub const ATTR_LEVEL: &str = "ccl.level";
pub const ATTR_ROLE: &str = "ccl.role";
pub const ATTR_BUILTIN_TEMPLATE_DIR: &str = "ccl.builtin_template_dir";
/// The launch width a kernel (or a call launching it) runs with.
pub const ATTR_LAUNCH_WIDTH: &str = "ccl.launch_width";

/// The window memory space, as MLIR prints it inside a memref type.
pub const WINDOW_SPACE: &str = "#ccl.window";
/// The op every ccl pass treats as a program of its own when nested.
pub const BUILTIN_MODULE: &str = "builtin.module";

/// Every accepted `ccl.kind` value.
pub const KINDS: &[&str] = &["incore", "aic", "aiv", "orchestration", "graph", "group", "spmd", "opaque"];

/// What a function is, by its `ccl.kind` (and level/role) attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `incore`, `aic`, `aiv`: a device kernel.
    InCore,
    /// `orchestration`, `graph`, or level=host with role=orchestrator.
    Orchestration,
    /// `group`, `spmd`, `opaque` (the default).
    Other,
}

impl FunctionKind {
    /// Classifies a `ccl.kind` value; `None` for a value the dialect does
    /// not list (`""` included).
    pub fn from_kind(kind: &str) -> Option<Self> {
        match kind {
            "incore" | "aic" | "aiv" => Some(FunctionKind::InCore),
            "orchestration" | "graph" => Some(FunctionKind::Orchestration),
            "group" | "spmd" | "opaque" => Some(FunctionKind::Other),
            _ => None,
        }
    }
}

/// The upstream ops that are side-effect-free for the passes (besides every
/// op of `arith`, `index` and `math`, the `Pure` ccl ops and terminators):
/// views, which make no copy (a view of a window-bound memref is
/// window-bound).
const VIEW_OPS: [&str; 4] = ["memref.subview", "memref.collapse_shape", "memref.expand_shape", "memref.cast"];

/// The terminators of structured regions and functions.
const TERMINATORS: &[&str] = &["scf.yield", "scf.condition", "func.return"];

// The tests on bytes, so that they apply to a name MLIR hands over without
// validating it as UTF-8 first.

fn is_side_effect_free_bytes(name: &[u8]) -> bool {
    name.starts_with(b"arith.")
        || name.starts_with(b"index.")
        || name.starts_with(b"math.")
        || is_terminator_bytes(name)
        || VIEW_OPS.iter().any(|view| view.as_bytes() == name)
        || OpKind::ALL.iter().any(|kind| kind.is_pure() && kind.name().as_bytes() == name)
}

fn is_terminator_bytes(name: &[u8]) -> bool {
    TERMINATORS.iter().any(|terminator| terminator.as_bytes() == name) || name.starts_with(b"scf.reduce")
}

/// Whether `op`'s name is one of a side-effect-free op (terminators
/// included), read in place by pointer and length.
pub fn has_side_effect_free_name(op: OperationRef<'_, '_>) -> bool {
    is_side_effect_free_bytes(ffi::identifiers::name_bytes(op))
}

/// `name` as a symbol reference in MLIR's syntax: `@name` when it is a bare
/// identifier, else quoted (`@""`, `@"a b"`), so a message names every
/// function unambiguously, the empty name included.
pub fn symbol_ref(name: &str) -> String {
    let mut chars = name.chars();
    let bare = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        format!("@{name:?}")
    }
}

// ---------------------------------------------------------------------------
// Interned names
// ---------------------------------------------------------------------------

/// The names the passes test, interned once per context, and the
/// `#ccl.window` memory space (attributes are uniqued too).
pub struct Interned {
    /// The context's address, which tells a cached set of another context.
    context: usize,
    /// `#ccl.window`'s address, when the context has the ccl dialect.
    window: Option<usize>,
    /// Every ccl op, by `OpKind` index.
    ccl: [Name; OpKind::ALL.len()],
    /// `ccl` inverted: asked once per op by every lowering, where a scan
    /// of the array was a visible part of the walk.
    kinds: FxHashMap<Name, OpKind>,
    pub module: Name,
    pub func: Name,
    pub call: Name,
    pub func_return: Name,
    pub arith_constant: Name,
    pub scf_for: Name,
    pub scf_while: Name,
    pub scf_parallel: Name,
    pub scf_forall: Name,
    pub scf_if: Name,
    pub scf_index_switch: Name,
    pub scf_execute_region: Name,
    pub arith_cmpi: Name,
    /// `VIEW_OPS`, in that order.
    pub views: [Name; VIEW_OPS.len()],
    pub memref_alloc: Name,
    pub memref_alloca: Name,
}

impl Interned {
    pub fn new(context: &Context) -> Self {
        let name = |text: &str| Name::get(context, text);
        let ccl = OpKind::ALL.map(|kind| name(kind.name()));
        Self {
            context: context.to_raw().ptr as usize,
            window: window_space(context),
            ccl,
            kinds: ccl.iter().copied().zip(OpKind::ALL).collect(),
            module: name(BUILTIN_MODULE),
            func: name("func.func"),
            call: name("func.call"),
            func_return: name("func.return"),
            arith_constant: name("arith.constant"),
            scf_for: name("scf.for"),
            scf_while: name("scf.while"),
            scf_parallel: name("scf.parallel"),
            scf_forall: name("scf.forall"),
            scf_if: name("scf.if"),
            scf_index_switch: name("scf.index_switch"),
            scf_execute_region: name("scf.execute_region"),
            arith_cmpi: name("arith.cmpi"),
            views: VIEW_OPS.map(name),
            memref_alloc: name("memref.alloc"),
            memref_alloca: name("memref.alloca"),
        }
    }

    /// The names of `op`'s context, kept in `slot` across the runs of one
    /// pass instance (a pass manager runs in one context; the check makes a
    /// stale slot impossible anyway).
    pub fn cached<'s>(slot: &'s mut Option<Interned>, op: OperationRef<'_, '_>) -> &'s Interned {
        let context = ffi::context::of_operation(op);
        if slot.as_ref().is_none_or(|names| names.context != context.to_raw().ptr as usize) {
            *slot = Some(Interned::new(context));
        }
        slot.as_ref().expect("just filled")
    }

    /// The ccl op kind of `name`, if it names a ccl op.
    pub fn kind(&self, name: Name) -> Option<OpKind> {
        self.kinds.get(&name).copied()
    }

    /// Whether `name` is the ccl op `kind`.
    pub fn is(&self, name: Name, kind: OpKind) -> bool {
        self.ccl[kind as usize] == name
    }

    /// A view op (`memref.subview` and the like): side-effect-free, but its
    /// result names memory.
    pub fn is_view(&self, name: Name) -> bool {
        self.views.contains(&name)
    }

    /// `scf.for`, `scf.while`, `scf.parallel` or `scf.forall`.
    pub fn is_loop(&self, name: Name) -> bool {
        name == self.scf_for || name == self.scf_while || name == self.scf_parallel || name == self.scf_forall
    }

    /// Whether memory-space attribute `space` is `#ccl.window`: an address
    /// compare, with the printed form as the reference when the context
    /// could not give the attribute.
    pub fn is_window_space(&self, space: Attribute<'_>) -> bool {
        match self.window {
            Some(window) => space.to_raw().ptr as usize == window,
            None => space.to_string() == WINDOW_SPACE,
        }
    }
}

/// `#ccl.window` in `context`, or `None` when the ccl dialect is not there.
fn window_space(context: &Context) -> Option<usize> {
    if !ffi::context::load_dialect(context, "ccl") {
        return None;
    }
    Attribute::parse(context, WINDOW_SPACE).map(|window| window.to_raw().ptr as usize)
}
