//! Op, attribute and function-kind names of the `ccl` dialect (DIALECT.md),
//! and the classifications every pass shares.

pub const TILE_STORE: &str = "ccl.tile_store";
pub const TENSOR_WRITE: &str = "ccl.tensor_write";
pub const GET: &str = "ccl.get";
pub const REMOTE_STORE: &str = "ccl.remote_store";
pub const PUT: &str = "ccl.put";
pub const REMOTE_LOAD: &str = "ccl.remote_load";
pub const TILE_LOAD: &str = "ccl.tile_load";
pub const READ: &str = "ccl.read";
pub const NOTIFY: &str = "ccl.notify";
pub const WAIT: &str = "ccl.wait";
pub const FENCE: &str = "ccl.fence";
pub const CACHE_INVALID: &str = "ccl.cacheinvalid";
pub const SUBMIT: &str = "ccl.submit";
pub const ALL_TO_ALL_V: &str = "ccl.all_to_all_v";
pub const ALL_REDUCE: &str = "ccl.all_reduce";
pub const BARRIER: &str = "ccl.barrier";
pub const CAL_ALL_TO_ALL_V_BLOCKS: &str = "ccl.cal_all_to_all_v_blocks";
pub const COMM_SIZE: &str = "ccl.comm_size";
pub const RANK: &str = "ccl.rank";

pub const FUNC: &str = "func.func";
pub const CALL: &str = "func.call";
pub const RETURN: &str = "func.return";

pub const SCF_FOR: &str = "scf.for";
pub const SCF_WHILE: &str = "scf.while";
pub const SCF_PARALLEL: &str = "scf.parallel";
pub const SCF_FORALL: &str = "scf.forall";
pub const SCF_IF: &str = "scf.if";
pub const SCF_EXECUTE_REGION: &str = "scf.execute_region";

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
    name.starts_with("arith.")
        || name.starts_with("index.")
        || name.starts_with("math.")
        || is_terminator_name(name)
        || matches!(name, CAL_ALL_TO_ALL_V_BLOCKS | COMM_SIZE | RANK)
}

pub fn is_terminator_name(name: &str) -> bool {
    matches!(name, "scf.yield" | "scf.condition" | RETURN) || name.starts_with("scf.reduce")
}
