//! Names the passes tell ops and functions apart by: the function kinds, the
//! attribute names of the dialect contract, the side-effect-free ops, and
//! op names interned in a context ([`Interned`]) so that a pass compares
//! one pointer per op instead of fetching strings across the FFI boundary.
//! The ccl ops are the generated [`OpKind`]s; the upstream ops the passes
//! read are listed here once.

use crate::ods::OpKind;
use melior::ir::OperationRef;
use mlir_sys::{
    mlirAttributeParseGet, mlirAttributePrint, mlirContextGetOrLoadDialect, mlirIdentifierGet, mlirIdentifierStr,
    mlirOperationGetContext, mlirOperationGetName, MlirAttribute, MlirContext, MlirIdentifier, MlirStringRef,
};
use rustc_hash::FxHashMap;
use std::ffi::c_void;

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

// ---------------------------------------------------------------------------
// Interned names
// ---------------------------------------------------------------------------

/// An op name as its context uniques it (an `MlirIdentifier`). Two names
/// are equal exactly when they are the same identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Name(*const c_void);

impl Name {
    /// The name of `op`.
    pub fn of(op: OperationRef<'_, '_>) -> Self {
        Self(unsafe { mlirOperationGetName(op.to_raw()) }.ptr)
    }

    fn get(context: MlirContext, text: &str) -> Self {
        let text = MlirStringRef { data: text.as_ptr() as *const _, length: text.len() };
        Self(unsafe { mlirIdentifierGet(context, text) }.ptr)
    }

    /// Whether ops of this name are side-effect-free (terminators included).
    pub fn is_side_effect_free(self) -> bool {
        is_side_effect_free_bytes(self.bytes())
    }

    /// The characters, read in place by pointer and length.
    fn bytes(&self) -> &[u8] {
        let text = unsafe { mlirIdentifierStr(MlirIdentifier { ptr: self.0 as *mut c_void }) };
        unsafe { crate::strings::bytes_of(text) }
    }
}

/// The names the passes test, interned once per context, and the
/// `#ccl.window` memory space (attributes are uniqued too).
pub struct Interned {
    context: *const c_void,
    window: *const c_void,
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

// Identifiers and attributes are immutable objects owned by the context,
// which outlives every pass run that holds them; reading them from any
// thread is what MLIR's own threaded passes do.
unsafe impl Send for Name {}
unsafe impl Sync for Name {}
unsafe impl Send for Interned {}
unsafe impl Sync for Interned {}

impl Interned {
    pub fn new(context: &melior::Context) -> Self {
        Self::of_raw(context.to_raw())
    }

    fn of_raw(context: MlirContext) -> Self {
        let name = |text: &str| Name::get(context, text);
        let ccl = OpKind::ALL.map(|kind| name(kind.name()));
        Self {
            context: context.ptr,
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
        let context = unsafe { mlirOperationGetContext(op.to_raw()) };
        if slot.as_ref().is_none_or(|names| !std::ptr::eq(names.context, context.ptr)) {
            *slot = Some(Interned::of_raw(context));
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

    /// Whether memory-space attribute `space` (not null) is `#ccl.window`:
    /// a pointer compare, with the printed form as the reference when the
    /// context could not give the attribute.
    pub fn is_window_space(&self, space: MlirAttribute) -> bool {
        if !self.window.is_null() {
            return std::ptr::eq(space.ptr, self.window);
        }
        let mut printed = Vec::new();
        unsafe {
            mlirAttributePrint(space, Some(append), &mut printed as *mut Vec<u8> as *mut c_void);
        }
        printed == WINDOW_SPACE.as_bytes()
    }
}

unsafe extern "C" fn append(chunk: MlirStringRef, data: *mut c_void) {
    let out = unsafe { &mut *(data as *mut Vec<u8>) };
    out.extend_from_slice(unsafe { crate::strings::bytes_of(chunk) });
}

/// `#ccl.window` in `context`, or null when the ccl dialect is not there.
fn window_space(context: MlirContext) -> *const c_void {
    let dialect = "ccl";
    let loaded = unsafe {
        mlirContextGetOrLoadDialect(
            context,
            MlirStringRef { data: dialect.as_ptr() as *const _, length: dialect.len() },
        )
    };
    if loaded.ptr.is_null() {
        return std::ptr::null();
    }
    let text = MlirStringRef { data: WINDOW_SPACE.as_ptr() as *const _, length: WINDOW_SPACE.len() };
    unsafe { mlirAttributeParseGet(context, text) }.ptr
}
