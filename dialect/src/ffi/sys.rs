//! The C interface of cclir's C++ glue (`dialect-glue/cpp/CclGlue.h`),
//! item for item, and the dialect's registration handle. Declarations only:
//! the safe wrappers around them are the other modules of `crate::ffi`.
//!
//! The glue is the static library `cclir_mlir_glue`, which the
//! `cclir-dialect-glue` crate builds. This crate links it but does not
//! bundle it into its rlib (`-bundle`), so it compiles without waiting for
//! the C++: the library is looked up when a binary, test or the Python
//! extension links, in the directory the glue crate gives every target
//! that depends on it. rustc then puts it right after this crate and before
//! the MLIR archives (mlir-sys comes later), the order a linker that reads
//! archives once (GNU ld) needs. This crate's own unit tests do not link it:
//! they call no C++, and the linker drops the code that would.

use mlir_sys::{
    MlirBlock, MlirContext, MlirDiagnostic, MlirDialectHandle, MlirLocation, MlirLogicalResult, MlirOpPassManager,
    MlirOperation, MlirStringCallback, MlirStringRef,
};
use std::ffi::{c_char, c_int, c_void};

#[repr(C)]
pub struct CclOptionInfo {
    pub name: *const c_char,
    pub description: *const c_char,
    /// `CCL_OPTION_INT`, `CCL_OPTION_BOOL` or `CCL_OPTION_CHOICE`.
    pub kind: c_int,
    pub default_value: i64,
    /// The names of a choice option's values and what each means (null
    /// for the other kinds).
    pub choices: *const *const c_char,
    pub choice_helps: *const *const c_char,
    pub num_choices: usize,
}

pub const CCL_OPTION_INT: c_int = 0;
pub const CCL_OPTION_BOOL: c_int = 1;
pub const CCL_OPTION_CHOICE: c_int = 2;

#[repr(C)]
pub struct CclPassInfo {
    pub argument: *const c_char,
    pub name: *const c_char,
    pub description: *const c_char,
    pub anchor: *const c_char,
    pub dependent_dialects: *const *const c_char,
    pub num_dependent_dialects: usize,
    pub options: *const CclOptionInfo,
    pub num_options: usize,
    pub rust: *const c_void,
}

pub const CCL_RUN_FAILED: c_int = 0;
pub const CCL_RUN_CHANGED: c_int = 1;
pub const CCL_RUN_PRESERVED_ALL: c_int = 2;

#[repr(C)]
pub struct CclPassCallbacks {
    pub new_statistics: unsafe extern "C" fn(rust: *const c_void) -> *mut c_void,
    pub share_statistics: unsafe extern "C" fn(statistics: *mut c_void) -> *mut c_void,
    pub release_statistics: unsafe extern "C" fn(statistics: *mut c_void),
    pub check_options:
        unsafe extern "C" fn(rust: *const c_void, values: *const i64, message: *mut *const c_char) -> c_int,
    pub run: unsafe extern "C" fn(
        rust: *const c_void,
        state: *mut *mut c_void,
        statistics: *mut c_void,
        values: *const i64,
        op: MlirOperation,
        pass: *mut c_void,
    ) -> c_int,
    pub destroy_state: unsafe extern "C" fn(rust: *const c_void, state: *mut c_void),
}

pub type WriteFn = unsafe extern "C" fn(buffer: *mut c_void, data: *const c_char, length: usize);

#[repr(C)]
pub struct CclPipelineInfo {
    pub argument: *const c_char,
    pub description: *const c_char,
    pub options: *const CclOptionInfo,
    pub num_options: usize,
    pub rust: *const c_void,
    pub build: unsafe extern "C" fn(
        rust: *const c_void,
        values: *const i64,
        write: WriteFn,
        buffer: *mut c_void,
        message: *mut *const c_char,
    ) -> c_int,
}

pub type CclRegisterFn = unsafe extern "C" fn();
pub type CclPassVisitor =
    unsafe extern "C" fn(data: *mut c_void, argument: MlirStringRef, name: MlirStringRef, statistics: *mut c_void);

#[repr(C)]
pub struct CclOptHooks {
    pub register_rust: CclRegisterFn,
    pub check_input: unsafe extern "C" fn(
        data: *const c_char,
        length: usize,
        name: MlirStringRef,
        message: *mut *const c_char,
    ) -> c_int,
    pub open_output: unsafe extern "C" fn(path: MlirStringRef, message: *mut *const c_char) -> *mut c_void,
    pub write_output: unsafe extern "C" fn(
        handle: *mut c_void,
        data: *const c_char,
        length: usize,
        message: *mut *const c_char,
    ) -> c_int,
    pub close_output: unsafe extern "C" fn(handle: *mut c_void, keep: c_int, message: *mut *const c_char) -> c_int,
    pub suggest:
        unsafe extern "C" fn(unknown: MlirStringRef, names: *const MlirStringRef, count: usize) -> *const c_char,
    pub print_statistics: unsafe extern "C" fn(
        pipeline: MlirStringRef,
        count: usize,
        arguments: *const MlirStringRef,
        names: *const MlirStringRef,
        statistics: *const *mut c_void,
        list: c_int,
    ),
    pub record_diagnostic: unsafe extern "C" fn(diagnostic: MlirDiagnostic),
    pub write_sarif: unsafe extern "C" fn(path: MlirStringRef, exit_code: c_int, message: *mut *const c_char) -> c_int,
}

#[cfg_attr(not(test), link(name = "cclir_mlir_glue", kind = "static", modifiers = "-bundle"))]
extern "C" {
    pub fn mlirGetDialectHandle__ccl__() -> MlirDialectHandle;
    pub fn cclOperationGetPrevInBlock(op: MlirOperation) -> MlirOperation;
    pub fn cclBlockGetLastOperation(block: MlirBlock) -> MlirOperation;

    pub fn cclRegisterRustPass(info: *const CclPassInfo, callbacks: *const CclPassCallbacks);
    pub fn cclRegisterRustPipeline(info: *const CclPipelineInfo);
    pub fn cclRegisterAllPasses(register_rust: CclRegisterFn);
    pub fn cclPassCacheAnalysis(pass: *mut c_void, value: *mut c_void, drop: unsafe extern "C" fn(value: *mut c_void));
    pub fn cclPassCachedParentAnalysis(pass: *mut c_void) -> *const c_void;
    pub fn cclPassRunPipeline(pass: *mut c_void, pipeline: MlirStringRef, op: MlirOperation) -> MlirLogicalResult;
    pub fn cclParallelFor(
        context: MlirContext,
        n: usize,
        task: unsafe extern "C" fn(data: *mut c_void, index: usize),
        data: *mut c_void,
    );
    pub fn cclEmitDiagnostic(
        loc: MlirLocation,
        severity: c_int,
        message: MlirStringRef,
        num_notes: usize,
        note_locations: *const MlirLocation,
        note_messages: *const MlirStringRef,
    );
    pub fn cclParsePassPipeline(
        manager: MlirOpPassManager,
        pipeline: MlirStringRef,
        error: MlirStringCallback,
        user_data: *mut c_void,
        visit: CclPassVisitor,
        visit_data: *mut c_void,
    ) -> MlirLogicalResult;
    pub fn cclParseSourceForTool(
        context: MlirContext,
        text: MlirStringRef,
        name: MlirStringRef,
        implicit_module: bool,
    ) -> MlirOperation;

    pub fn cclOptMain(argc: c_int, argv: *mut *mut c_char, hooks: *const CclOptHooks) -> c_int;
    pub fn cclLspServerMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
    pub fn cclReduceMain(argc: c_int, argv: *mut *mut c_char, register_rust: CclRegisterFn) -> c_int;
}

extern "C" {
    pub fn cclForEachRegisteredPassName(
        visit: unsafe extern "C" fn(data: *mut c_void, name: MlirStringRef),
        data: *mut c_void,
    );
}

extern "C" {
    pub fn cclRemoveFileOnSignal(path: MlirStringRef, remove: bool);
    pub fn cclRegisterSignalHandlers();
}
