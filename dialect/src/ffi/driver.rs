//! What the library API does with MLIR that melior does not wrap: parsing
//! as mlir-opt parses a file, pass managers built by MLIR's own pipeline
//! parser, streaming print, and MLIR's diagnostics turned into values.

use super::{
    bridge::{self, Catalog},
    strings::{append_to_vec, byte_ref, bytes, owned, string_ref},
    sys,
};
use crate::diagnostics::{Diagnostic, DiagnosticSink, Severity};
use cclir_pass_framework::Counters;
use melior::{
    ir::{Operation, OperationRef},
    pass::PassManager,
    Context,
};
use mlir_sys::*;
use std::{ffi::c_void, io::Write};

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

/// `diagnostic` and its notes as a value.
///
/// # Safety
/// `diagnostic` must be live for the call (MLIR's handlers get one that is).
pub(crate) unsafe fn convert_diagnostic(diagnostic: MlirDiagnostic) -> Diagnostic {
    // SAFETY: the caller's promise: a live diagnostic, whose location, text
    // and notes MLIR reads for us here; `message` outlives the print.
    unsafe {
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
        let location = melior::ir::Location::from_raw(mlirDiagnosticGetLocation(diagnostic));
        Diagnostic {
            severity,
            loc: super::locations::source_loc_of(location),
            message: String::from_utf8_lossy(&message).into_owned(),
            notes,
        }
    }
}

/// MLIR's diagnostic handler for a context with a sink: the diagnostic as a
/// value, pushed to the sink; handled either way.
///
/// # Safety
/// `diagnostic` is live for the call, and `user_data` the boxed
/// `DiagnosticSink` that `attach_diagnostic_sink` registered with it,
/// not yet dropped (MLIR's contract for handlers and their user data).
unsafe extern "C" fn collect_diagnostic(diagnostic: MlirDiagnostic, user_data: *mut c_void) -> MlirLogicalResult {
    let _ = crate::panic::catch_in_callback(|| {
        // SAFETY: `user_data` is the boxed sink `attach_diagnostic_sink`
        // gave the context, alive until `drop_sink`; a sink is `Sync`.
        let sink = unsafe { &*(user_data as *const DiagnosticSink) };
        // SAFETY: MLIR hands its handlers a live diagnostic.
        sink.push(unsafe { convert_diagnostic(diagnostic) });
    });
    // Handled either way: nothing reaches MLIR's default handler, which
    // would print it a second time.
    MlirLogicalResult { value: 1 }
}

/// Drops the sink of a diagnostic handler MLIR removes.
///
/// # Safety
/// `user_data` is the boxed `DiagnosticSink` of `attach_diagnostic_sink`,
/// dropped once (MLIR calls this once per handler).
unsafe extern "C" fn drop_sink(user_data: *mut c_void) {
    // SAFETY: the boxed sink of `attach_diagnostic_sink`, which MLIR drops
    // once, with the handler.
    let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(user_data as *mut DiagnosticSink) }));
}

/// Routes every diagnostic of `context` into `sink`, as values.
pub fn attach_diagnostic_sink(context: &Context, sink: DiagnosticSink) {
    // SAFETY: the context is live; it owns the boxed sink from here and
    // frees it through `drop_sink`.
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
/// op gets an implicit `builtin.module`, and the result is verified. `None`
/// on failure (the diagnostics went to the context's handlers).
pub fn parse_for_tool<'c>(context: &'c Context, source: &[u8], name: &str) -> Option<Operation<'c>> {
    // SAFETY: the context is live and the glue copies the source and the
    // name before it returns; it returns null or a new op the caller owns.
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

/// MLIR's print callback: a chunk of text into the writer.
///
/// # Safety
/// `chunk` is readable for the call, and `user_data` the `WriterState` of
/// `print_operation`, alive and not otherwise borrowed while MLIR prints.
unsafe extern "C" fn write_to_writer(chunk: MlirStringRef, user_data: *mut c_void) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: `user_data` is `print_operation`'s `WriterState`, alive
        // and not otherwise borrowed while MLIR prints.
        let sink = unsafe { &mut *(user_data as *mut WriterState<'_>) };
        if sink.error.is_none() {
            // SAFETY: MLIR's chunk is readable for the call.
            if let Err(error) = sink.writer.write_all(unsafe { bytes(chunk) }) {
                sink.error = Some(error);
            }
        }
    }));
}

/// Prints `op` to `writer` as MLIR's printer streams it.
pub fn print_operation(op: OperationRef<'_, '_>, options: PrintOptions, writer: &mut dyn Write) -> std::io::Result<()> {
    // SAFETY: `op` is live; the flags are made, used and destroyed here;
    // `state` outlives the print, which calls `write_to_writer` only
    // before it returns.
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

// ---------------------------------------------------------------------------
// Pass managers
// ---------------------------------------------------------------------------

/// A Rust pass of a built pipeline: its argument, name and counters.
pub struct BuiltPass {
    pub argument: String,
    pub name: String,
    pub counters: Counters,
}

/// Visits a Rust pass of a built pipeline: its argument, name and counters
/// into the list.
///
/// # Safety
/// `data` is `build_pass_manager`'s `Vec<BuiltPass>`, alive and not
/// otherwise borrowed during the visit; the strings are readable and
/// `statistics` is a live statistics handle, for the call.
unsafe extern "C" fn collect_pass(
    data: *mut c_void,
    argument: MlirStringRef,
    name: MlirStringRef,
    statistics: *mut c_void,
) {
    let _ = crate::panic::catch_in_callback(|| {
        // SAFETY: `data` is `build_pass_manager`'s list, alive and not
        // otherwise borrowed during the call that visits the passes.
        let passes = unsafe { &mut *(data as *mut Vec<BuiltPass>) };
        // SAFETY: the glue passes the pass's live statistics handle.
        if let Some(counters) = unsafe { bridge::share_counters(statistics) } {
            // SAFETY: the glue's strings are readable for the call.
            let (argument, name) = unsafe { (owned(argument), owned(name)) };
            passes.push(BuiltPass { argument, name, counters });
        }
    });
}

/// A pass manager for `pipeline` (`builtin.module(...)`), built by MLIR's
/// own parser after every pass is registered (`catalog`'s among them); the
/// Rust passes it holds in pipeline order; or MLIR's error text.
pub fn build_pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
    catalog: &'static Catalog,
) -> Result<(PassManager<'c>, Vec<BuiltPass>), String> {
    bridge::register_all_passes(catalog);
    let manager = PassManager::new(context);
    let mut error = Vec::new();
    let mut passes: Vec<BuiltPass> = Vec::new();
    // SAFETY: the manager is live; the glue copies the pipeline text, and
    // `error` and `passes` outlive the call, which alone uses them.
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
    // SAFETY: the manager is live; `text` outlives the call.
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
    // SAFETY: the manager is live.
    unsafe { mlirPassManagerEnableVerifier(manager.to_raw(), enabled) }
}

/// Runs `manager` on `op`; failures were reported to the diagnostic handlers.
pub fn run_pass_manager(manager: &PassManager<'_>, op: OperationRef<'_, '_>) -> bool {
    // SAFETY: both are live, and `op` is of the manager's context.
    unsafe { mlirPassManagerRunOnOp(manager.to_raw(), op.to_raw()).value != 0 }
}

/// Visits a registered pass name: into the list.
///
/// # Safety
/// `data` is `registered_pass_names`'s `Vec<String>`, alive and not
/// otherwise borrowed during the visit; `name` is readable for the call.
unsafe extern "C" fn collect_name(data: *mut c_void, name: MlirStringRef) {
    // SAFETY: `data` is `registered_pass_names`'s list, alive and not
    // otherwise borrowed during the call; the name is readable for the call.
    let _ = crate::panic::catch_in_callback(|| unsafe { (*(data as *mut Vec<String>)).push(owned(name)) });
}

/// Every registered pass and pipeline name, upstream and `catalog`'s.
pub fn registered_pass_names(catalog: &'static Catalog) -> Vec<String> {
    bridge::register_all_passes(catalog);
    let mut names = Vec::new();
    // SAFETY: `names` outlives the call, which alone uses it.
    unsafe { sys::cclForEachRegisteredPassName(collect_name, &mut names as *mut _ as *mut c_void) };
    names
}
