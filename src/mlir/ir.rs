//! What the library API does with MLIR that melior does not wrap: contexts
//! with the ccl dialect, parsing as mlir-opt parses a file, pass managers
//! built by MLIR's own pipeline parser, streaming print, and MLIR's
//! diagnostics turned into values.

use super::{
    bridge,
    strings::{append_to_vec, byte_ref, bytes, owned, string_ref},
    sys,
};
use crate::diagnostics::{Diagnostic, DiagnosticSink, Severity, SourceLoc};
use cclir_passes::framework::Counters;
use melior::{
    dialect::{DialectHandle, DialectRegistry},
    ir::{operation::OperationLike, Operation, OperationRef},
    pass::PassManager,
    utility::register_all_dialects,
    Context,
};
use mlir_sys::*;
use std::{ffi::c_void, io::Write};

/// The ccl dialect's handle, for registries and contexts.
pub fn ccl_dialect_handle() -> DialectHandle {
    unsafe { DialectHandle::from_raw(sys::mlirGetDialectHandle__ccl__()) }
}

/// A registry with every upstream dialect (and extension) and ccl.
pub fn registry() -> DialectRegistry {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    ccl_dialect_handle().insert_dialect(&registry);
    registry
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

unsafe fn source_loc(loc: MlirLocation) -> SourceLoc {
    if loc.ptr.is_null() {
        return SourceLoc::Unknown;
    }
    if mlirLocationIsAFileLineColRange(loc) {
        return SourceLoc::File {
            file: owned(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc))),
            line: mlirLocationFileLineColRangeGetStartLine(loc).max(0) as u32,
            col: mlirLocationFileLineColRangeGetStartColumn(loc).max(0) as u32,
        };
    }
    if mlirLocationIsAName(loc) {
        return source_loc(mlirLocationNameGetChildLoc(loc));
    }
    if mlirLocationIsACallSite(loc) {
        return source_loc(mlirLocationCallSiteGetCaller(loc));
    }
    if mlirLocationIsAFused(loc) {
        let count = mlirLocationFusedGetNumLocations(loc);
        let mut locations = vec![MlirLocation { ptr: std::ptr::null() }; count as usize];
        mlirLocationFusedGetLocations(loc, locations.as_mut_ptr());
        return locations
            .into_iter()
            .map(|l| source_loc(l))
            .find(|l| *l != SourceLoc::Unknown)
            .unwrap_or(SourceLoc::Unknown);
    }
    SourceLoc::Unknown
}

/// The source position of `location` (the first file position inside name,
/// call-site and fused locations), for tools that report on ops themselves.
pub fn source_loc_of(location: melior::ir::Location<'_>) -> SourceLoc {
    unsafe { source_loc(location.to_raw()) }
}

/// The name of a name location (`loc("ccl-lower-all-to-all-v.snapshot"(...))`
/// names the protocol step an op belongs to); `None` for other locations.
pub fn location_name(location: melior::ir::Location<'_>) -> Option<String> {
    unsafe {
        let raw = location.to_raw();
        if raw.ptr.is_null() || !mlirLocationIsAName(raw) {
            return None;
        }
        Some(owned(mlirIdentifierStr(mlirLocationNameGetName(raw))))
    }
}

pub(super) unsafe fn convert_diagnostic(diagnostic: MlirDiagnostic) -> Diagnostic {
    #[allow(non_upper_case_globals)]
    let severity = match mlirDiagnosticGetSeverity(diagnostic) {
        MlirDiagnosticSeverity_MlirDiagnosticError => Severity::Error,
        MlirDiagnosticSeverity_MlirDiagnosticWarning => Severity::Warning,
        MlirDiagnosticSeverity_MlirDiagnosticNote => Severity::Note,
        _ => Severity::Remark,
    };
    let mut message = Vec::new();
    mlirDiagnosticPrint(diagnostic, Some(append_to_vec), &mut message as *mut _ as *mut c_void);
    let notes = (0..mlirDiagnosticGetNumNotes(diagnostic))
        .map(|index| convert_diagnostic(mlirDiagnosticGetNote(diagnostic, index)))
        .collect();
    Diagnostic {
        severity,
        loc: source_loc(mlirDiagnosticGetLocation(diagnostic)),
        message: String::from_utf8_lossy(&message).into_owned(),
        notes,
    }
}

unsafe extern "C" fn collect_diagnostic(diagnostic: MlirDiagnostic, user_data: *mut c_void) -> MlirLogicalResult {
    let _ = crate::panic::catch_in_callback(|| {
        let sink = unsafe { &*(user_data as *const DiagnosticSink) };
        sink.push(unsafe { convert_diagnostic(diagnostic) });
    });
    // Handled either way: nothing reaches MLIR's default handler, which
    // would print it a second time.
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn drop_sink(user_data: *mut c_void) {
    let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(user_data as *mut DiagnosticSink) }));
}

/// Routes every diagnostic of `context` into `sink`, as values.
pub fn attach_diagnostic_sink(context: &Context, sink: DiagnosticSink) {
    unsafe {
        mlirContextAttachDiagnosticHandler(
            context.to_raw(),
            Some(collect_diagnostic),
            Box::into_raw(Box::new(sink)) as *mut c_void,
            Some(drop_sink),
        );
    }
}

// ---------------------------------------------------------------------------
// Parsing and printing
// ---------------------------------------------------------------------------

/// Parses `source` (MLIR text, or bytecode by its magic number) as mlir-opt
/// parses a file: locations name `name`, a buffer that is not one top-level
/// op gets an implicit `builtin.module`, and the result is verified. `None` on failure (the diagnostics went to the
/// context's handlers).
pub fn parse_for_tool<'c>(context: &'c Context, source: &[u8], name: &str) -> Option<Operation<'c>> {
    unsafe {
        let raw = sys::cclParseSourceForTool(context.to_raw(), byte_ref(source), string_ref(name), true);
        Operation::from_option_raw(raw)
    }
}

/// How the printer prints (mlir-opt's `--mlir-print-*` flags).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    pub generic: bool,
    pub debug_info: bool,
    pub local_scope: bool,
}

struct WriterState<'w> {
    writer: &'w mut dyn Write,
    error: Option<std::io::Error>,
}

unsafe extern "C" fn write_to_writer(chunk: MlirStringRef, user_data: *mut c_void) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let sink = unsafe { &mut *(user_data as *mut WriterState<'_>) };
        if sink.error.is_none() {
            if let Err(error) = sink.writer.write_all(unsafe { bytes(chunk) }) {
                sink.error = Some(error);
            }
        }
    }));
}

/// Prints `op` to `writer` as MLIR's printer streams it.
pub fn print_operation(op: OperationRef<'_, '_>, options: PrintOptions, writer: &mut dyn Write) -> std::io::Result<()> {
    unsafe {
        let flags = mlirOpPrintingFlagsCreate();
        if options.generic {
            mlirOpPrintingFlagsPrintGenericOpForm(flags);
        }
        if options.debug_info {
            mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
        }
        if options.local_scope {
            mlirOpPrintingFlagsUseLocalScope(flags);
        }
        let mut state = WriterState { writer, error: None };
        mlirOperationPrintWithFlags(op.to_raw(), flags, Some(write_to_writer), &mut state as *mut _ as *mut c_void);
        mlirOpPrintingFlagsDestroy(flags);
        state.error.map_or(Ok(()), Err)
    }
}

/// A borrowed reference to an owned op.
pub fn as_ref<'c, 'o>(op: &'o Operation<'c>) -> OperationRef<'c, 'o> {
    unsafe { OperationRef::from_raw(op.to_raw()) }
}

// ---------------------------------------------------------------------------
// Pass managers
// ---------------------------------------------------------------------------

/// A Rust pass of a built pipeline: its argument, name and counters.
pub struct BuiltPass {
    pub argument: String,
    pub name: String,
    pub counters: Counters,
}

unsafe extern "C" fn collect_pass(
    data: *mut c_void,
    argument: MlirStringRef,
    name: MlirStringRef,
    statistics: *mut c_void,
) {
    let _ = crate::panic::catch_in_callback(|| {
        let passes = unsafe { &mut *(data as *mut Vec<BuiltPass>) };
        if let Some(counters) = unsafe { bridge::share_counters(statistics) } {
            passes.push(BuiltPass { argument: unsafe { owned(argument) }, name: unsafe { owned(name) }, counters });
        }
    });
}

/// A pass manager for `pipeline` (`builtin.module(...)`), built by MLIR's
/// own parser after every pass is registered; the Rust passes it holds in
/// pipeline order; or MLIR's error text.
pub fn build_pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
) -> Result<(PassManager<'c>, Vec<BuiltPass>), String> {
    bridge::register_all_passes();
    let manager = PassManager::new(context);
    let mut error = Vec::new();
    let mut passes: Vec<BuiltPass> = Vec::new();
    let parsed = unsafe {
        sys::cclParsePassPipeline(
            manager.as_operation_pass_manager().to_raw(),
            string_ref(pipeline),
            Some(append_to_vec),
            &mut error as *mut _ as *mut c_void,
            collect_pass,
            &mut passes as *mut _ as *mut c_void,
        )
    };
    if parsed.value == 0 {
        return Err(String::from_utf8_lossy(&error).trim_end().to_string());
    }
    Ok((manager, passes))
}

/// The pipeline of `manager` as MLIR prints it.
pub fn pipeline_text(manager: &PassManager<'_>) -> String {
    let mut text = Vec::new();
    unsafe {
        mlirPrintPassPipeline(
            manager.as_operation_pass_manager().to_raw(),
            Some(append_to_vec),
            &mut text as *mut _ as *mut c_void,
        )
    };
    String::from_utf8_lossy(&text).into_owned()
}

pub fn enable_verifier(manager: &PassManager<'_>, enabled: bool) {
    unsafe { mlirPassManagerEnableVerifier(manager.to_raw(), enabled) }
}

/// Runs `manager` on `op`; failures were reported to the diagnostic handlers.
pub fn run_pass_manager(manager: &PassManager<'_>, op: OperationRef<'_, '_>) -> bool {
    unsafe { mlirPassManagerRunOnOp(manager.to_raw(), op.to_raw()).value != 0 }
}

unsafe extern "C" fn collect_name(data: *mut c_void, name: MlirStringRef) {
    let _ = crate::panic::catch_in_callback(|| unsafe { (*(data as *mut Vec<String>)).push(owned(name)) });
}

/// Every registered pass and pipeline name, upstream and Rust.
pub fn registered_pass_names() -> Vec<String> {
    bridge::register_all_passes();
    let mut names = Vec::new();
    unsafe { sys::cclForEachRegisteredPassName(collect_name, &mut names as *mut _ as *mut c_void) };
    names
}
