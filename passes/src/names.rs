//! Op, attribute and function-kind names of the `ccl` dialect (DIALECT.md),
//! the classifications every pass shares, and the same names interned in a
//! context ([`Interned`]) for the passes' per-op tests.

use crate::ods::OpKind;
use melior::ir::OperationRef;
use mlir_sys::{
    mlirAttributeParseGet, mlirContextGetOrLoadDialect, mlirIdentifierGet, mlirIdentifierStr, mlirOperationGetContext,
    mlirOperationGetName, MlirAttribute, MlirContext, MlirIdentifier, MlirStringRef,
};
use std::ffi::c_void;

pub const TILE_STORE: &str = OpKind::TileStore.name();
pub const TENSOR_WRITE: &str = OpKind::TensorWrite.name();
pub const GET: &str = OpKind::Get.name();
pub const REMOTE_STORE: &str = OpKind::RemoteStore.name();
pub const PUT: &str = OpKind::Put.name();
pub const REMOTE_LOAD: &str = OpKind::RemoteLoad.name();
pub const TILE_LOAD: &str = OpKind::TileLoad.name();
pub const READ: &str = OpKind::Read.name();
pub const NOTIFY: &str = OpKind::Notify.name();
pub const WAIT: &str = OpKind::Wait.name();
pub const FENCE: &str = OpKind::Fence.name();
pub const CACHE_INVALID: &str = OpKind::CacheInvalid.name();
pub const SUBMIT: &str = OpKind::Submit.name();
pub const ALL_TO_ALL_V: &str = OpKind::AllToAllV.name();
pub const ALL_REDUCE: &str = OpKind::AllReduce.name();
pub const BARRIER: &str = OpKind::Barrier.name();
pub const CAL_ALL_TO_ALL_V_BLOCKS: &str = OpKind::CalAllToAllVBlocks.name();
pub const COMM_SIZE: &str = OpKind::CommSize.name();
pub const RANK: &str = OpKind::Rank.name();

pub const FUNC: &str = "func.func";
pub const ARITH_CONSTANT: &str = "arith.constant";
pub const CALL: &str = "func.call";
pub const RETURN: &str = "func.return";

pub const SCF_FOR: &str = "scf.for";
pub const SCF_WHILE: &str = "scf.while";
pub const SCF_PARALLEL: &str = "scf.parallel";
pub const SCF_FORALL: &str = "scf.forall";
pub const SCF_IF: &str = "scf.if";
pub const SCF_EXECUTE_REGION: &str = "scf.execute_region";
pub const SCF_INDEX_SWITCH: &str = "scf.index_switch";
pub const SCF_YIELD: &str = "scf.yield";
pub const SCF_CONDITION: &str = "scf.condition";

/// Function attributes.
pub const ATTR_KIND: &str = "ccl.kind";
pub const ATTR_LEVEL: &str = "ccl.level";
pub const ATTR_ROLE: &str = "ccl.role";
pub const ATTR_BUILTIN_TEMPLATE_DIR: &str = "ccl.builtin_template_dir";
/// Op attributes.
pub const ATTR_LAUNCH_WIDTH: &str = "launch_width";
pub const ATTR_SIGNAL_STRIDE: &str = "signal_stride";
pub const ATTR_CALLEE: &str = "callee";

/// The window memory space, as MLIR prints it inside a memref type.
pub const WINDOW_SPACE: &str = "#ccl.window";

/// Every accepted `ccl.kind` value.
pub const KINDS: &[&str] = &["incore", "aic", "aiv", "orchestration", "graph", "group", "spmd", "opaque"];

/// What a function is, by its `ccl.kind` (and level/role) attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `incore`, `aic`, `aiv`: a device kernel.
    InCore,
    /// `orchestration`, `graph`, or level=host with role=orchestrator.
    Orchestration,
    /// `group`, `spmd`, `opaque` (the default).
    Other,
}

impl FunctionKind {
    /// Classifies a `ccl.kind` value; `None` for a value DIALECT.md does not list.
    pub fn from_kind(kind: &str) -> Option<Self> {
        match kind {
            "incore" | "aic" | "aiv" => Some(FunctionKind::InCore),
            "orchestration" | "graph" => Some(FunctionKind::Orchestration),
            "group" | "spmd" | "opaque" => Some(FunctionKind::Other),
            _ => None,
        }
    }
}

/// Ops with no side effect (DIALECT.md, "Control flow").
pub fn is_side_effect_free(name: &str) -> bool {
    is_side_effect_free_bytes(name.as_bytes())
}

pub fn is_terminator_name(name: &str) -> bool {
    is_terminator_bytes(name.as_bytes())
}

// The two tests on bytes, so that `Interned` can apply them to a name MLIR
// hands over without validating it as UTF-8 first.

fn is_side_effect_free_bytes(name: &[u8]) -> bool {
    name.starts_with(b"arith.")
        || name.starts_with(b"index.")
        || name.starts_with(b"math.")
        || is_terminator_bytes(name)
        || OpKind::ALL.iter().any(|kind| kind.is_pure() && kind.name().as_bytes() == name)
}

fn is_terminator_bytes(name: &[u8]) -> bool {
    [SCF_YIELD, SCF_CONDITION, RETURN].iter().any(|terminator| terminator.as_bytes() == name)
        || name.starts_with(b"scf.reduce")
}

// ---------------------------------------------------------------------------
// Interned names
// ---------------------------------------------------------------------------

/// An op name as its context uniques it (an `MlirIdentifier`). Two names
/// are equal exactly when they are the same identifier, so a pass tells ops
/// apart by one pointer compare instead of fetching the string across the
/// FFI boundary and comparing bytes.
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

    /// [`is_side_effect_free`] on this name (terminators included).
    pub fn is_side_effect_free(self) -> bool {
        is_side_effect_free_bytes(self.bytes())
    }

    /// The characters, read in place (no UTF-8 check); the caller must not
    /// keep them past the context.
    fn bytes(&self) -> &[u8] {
        let text = unsafe { mlirIdentifierStr(MlirIdentifier { ptr: self.0 as *mut c_void }) };
        if text.data.is_null() {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) }
    }
}

/// The names the passes test, interned once per context, and the
/// `#ccl.window` memory space (attributes are uniqued too).
pub struct Interned {
    context: *const c_void,
    window: *const c_void,
    pub func: Name,
    pub call: Name,
    pub submit: Name,
    pub tile_store: Name,
    pub tensor_write: Name,
    pub get: Name,
    pub remote_store: Name,
    pub put: Name,
    pub read: Name,
    pub wait: Name,
    pub fence: Name,
    pub cache_invalid: Name,
    pub all_to_all_v: Name,
    pub all_reduce: Name,
    pub barrier: Name,
    pub cal_all_to_all_v_blocks: Name,
    /// Every ccl op, by `OpKind` index.
    ccl: [Name; OpKind::ALL.len()],
    pub arith_constant: Name,
    pub scf_for: Name,
    pub scf_while: Name,
    pub scf_parallel: Name,
    pub scf_forall: Name,
    pub scf_if: Name,
    pub scf_index_switch: Name,
    pub scf_execute_region: Name,
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
        Self {
            context: context.ptr,
            window: window_space(context),
            func: name(FUNC),
            call: name(CALL),
            submit: name(SUBMIT),
            tile_store: name(TILE_STORE),
            tensor_write: name(TENSOR_WRITE),
            get: name(GET),
            remote_store: name(REMOTE_STORE),
            put: name(PUT),
            read: name(READ),
            wait: name(WAIT),
            fence: name(FENCE),
            cache_invalid: name(CACHE_INVALID),
            all_to_all_v: name(ALL_TO_ALL_V),
            all_reduce: name(ALL_REDUCE),
            barrier: name(BARRIER),
            cal_all_to_all_v_blocks: name(CAL_ALL_TO_ALL_V_BLOCKS),
            ccl: OpKind::ALL.map(|kind| name(kind.name())),
            arith_constant: name(ARITH_CONSTANT),
            scf_for: name(SCF_FOR),
            scf_while: name(SCF_WHILE),
            scf_parallel: name(SCF_PARALLEL),
            scf_forall: name(SCF_FORALL),
            scf_if: name(SCF_IF),
            scf_index_switch: name(SCF_INDEX_SWITCH),
            scf_execute_region: name(SCF_EXECUTE_REGION),
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
        self.ccl.iter().position(|known| *known == name).map(|index| OpKind::ALL[index])
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
        crate::ir::is_window_space(space)
    }
}

/// `#ccl.window` in `context`, or null when the ccl dialect is not loaded
/// there (parsing would then report an error).
fn window_space(context: MlirContext) -> *const c_void {
    let dialect = "ccl";
    let loaded = unsafe {
        mlirContextGetOrLoadDialect(context, MlirStringRef { data: dialect.as_ptr() as *const _, length: dialect.len() })
    };
    if loaded.ptr.is_null() {
        return std::ptr::null();
    }
    let text = MlirStringRef { data: WINDOW_SPACE.as_ptr() as *const _, length: WINDOW_SPACE.len() };
    unsafe { mlirAttributeParseGet(context, text) }.ptr
}
