//! The Rust half of the one C++ pass class (`src/mlir/cpp/RustPass.cpp`):
//! the descriptions MLIR's registry gets for each Rust pass and named
//! pipeline, and the callbacks every instance makes. Every callback catches
//! panics: a panicking pass becomes an error diagnostic at the op it ran on,
//! and a failed pass; nothing unwinds into C++.

use super::{
    strings::{leak_c, string_ref},
    sys,
};
use cclir_passes::framework::{
    check_options, Analysis, CclPass, Counters, Host, OptionKind, OptionSpec, OptionValues, PassContext, PassInfo,
    PipelineInfo, Report, Severity,
};
use melior::ir::{operation::OperationLike, OperationRef};
use mlir_sys::{MlirLocation, MlirOperation};
use std::{
    cell::RefCell,
    ffi::{c_char, c_int, c_void, CString},
    sync::Once,
};

/// Registers every upstream pass and every Rust pass and named pipeline
/// with MLIR's global registry, once per process.
pub fn register_all_passes() {
    unsafe { sys::cclRegisterAllPasses(register_rust) };
}

/// Arguments registered so far (MLIR's registry aborts on a second one).
static REGISTERED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// Registers one more Rust pass (a downstream crate's own) with MLIR's
/// registry, next to the ccl passes: pipelines then name it like any pass.
/// Fails if a pass of that argument is registered already.
pub fn register_pass(info: &'static PassInfo) -> Result<(), String> {
    register_all_passes();
    let mut registered = REGISTERED.lock().unwrap_or_else(|poison| poison.into_inner());
    if registered.contains(&info.argument) {
        return Err(format!("a pass named '{}' is registered already", info.argument));
    }
    registered.push(info.argument);
    unsafe { sys::cclRegisterRustPass(pass_info(info), &CALLBACKS) };
    Ok(())
}

/// Called once by the C++ side (inside its own once-guard).
pub(crate) unsafe extern "C" fn register_rust() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        crate::panic::install_quiet_hook();
        let mut registered = REGISTERED.lock().unwrap_or_else(|poison| poison.into_inner());
        for info in cclir_passes::all_passes() {
            registered.push(info.argument);
            unsafe { sys::cclRegisterRustPass(pass_info(info), &CALLBACKS) };
        }
        for info in cclir_passes::all_pipelines() {
            unsafe { sys::cclRegisterRustPipeline(pipeline_info(info)) };
        }
    });
}

static CALLBACKS: sys::CclPassCallbacks = sys::CclPassCallbacks {
    new_statistics,
    share_statistics,
    release_statistics,
    check_options: check_pass_options,
    run,
    destroy_state,
};

fn option_infos(specs: &[OptionSpec]) -> *const sys::CclOptionInfo {
    let infos: Vec<sys::CclOptionInfo> = specs
        .iter()
        .map(|spec| {
            let (kind, default_value, choices, helps) = match spec.kind {
                OptionKind::Bool { default } => (sys::CCL_OPTION_BOOL, default as i64, &[][..], &[][..]),
                OptionKind::Int { default, .. } => (sys::CCL_OPTION_INT, default, &[][..], &[][..]),
                OptionKind::Choice { default, choices, helps } => {
                    (sys::CCL_OPTION_CHOICE, default as i64, choices, helps)
                }
            };
            sys::CclOptionInfo {
                name: leak_c(spec.name),
                description: leak_c(spec.help),
                kind,
                default_value,
                num_choices: choices.len(),
                choices: leak_c_array(choices),
                choice_helps: leak_c_array(helps),
            }
        })
        .collect();
    // MLIR keeps references to the strings for the life of the process.
    Box::leak(infos.into_boxed_slice()).as_ptr()
}

/// `strings` as a C array of C strings, alive for the process (null when
/// empty).
fn leak_c_array(strings: &[&str]) -> *const *const c_char {
    if strings.is_empty() {
        return std::ptr::null();
    }
    let pointers: Vec<*const c_char> = strings.iter().map(|text| leak_c(text)).collect();
    Box::leak(pointers.into_boxed_slice()).as_ptr()
}

/// The C description of `info`, alive for the process (MLIR's registry
/// keeps it).
fn pass_info(info: &'static PassInfo) -> &'static sys::CclPassInfo {
    let dialects: Vec<*const c_char> = info.dependent_dialects.iter().map(|d| leak_c(d)).collect();
    Box::leak(Box::new(sys::CclPassInfo {
        argument: leak_c(info.argument),
        name: leak_c(info.name),
        description: leak_c(info.summary),
        anchor: info.anchor.op_name().map_or(std::ptr::null(), leak_c),
        num_dependent_dialects: dialects.len(),
        dependent_dialects: Box::leak(dialects.into_boxed_slice()).as_ptr(),
        options: option_infos(info.options),
        num_options: info.options.len(),
        rust: info as *const PassInfo as *const c_void,
    }))
}

fn pipeline_info(info: &'static PipelineInfo) -> &'static sys::CclPipelineInfo {
    Box::leak(Box::new(sys::CclPipelineInfo {
        argument: leak_c(info.argument),
        description: leak_c(info.summary),
        options: option_infos(info.options),
        num_options: info.options.len(),
        rust: info as *const PipelineInfo as *const c_void,
        build: build_pipeline,
    }))
}

unsafe fn pass_of(rust: *const c_void) -> &'static PassInfo {
    &*(rust as *const PassInfo)
}

unsafe fn values_of<'v>(values: *const i64, count: usize) -> OptionValues<'v> {
    OptionValues(if count == 0 { &[] } else { std::slice::from_raw_parts(values, count) })
}

thread_local! {
    /// The message of the last failed callback on this thread; C++ copies it
    /// before the next callback.
    static MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` for C++ and points `out` at it.
unsafe fn set_message(out: *mut *const c_char, message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    MESSAGE.with(|slot| {
        *slot.borrow_mut() = text;
        if !out.is_null() {
            *out = slot.borrow().as_ptr();
        }
    });
}

// -- statistics ---------------------------------------------------------------

unsafe extern "C" fn new_statistics(rust: *const c_void) -> *mut c_void {
    crate::panic::catch_in_callback(|| {
        let info = unsafe { pass_of(rust) };
        Box::into_raw(Box::new(Counters::new(info.statistics))) as *mut c_void
    })
    .unwrap_or(std::ptr::null_mut())
}

unsafe extern "C" fn share_statistics(statistics: *mut c_void) -> *mut c_void {
    if statistics.is_null() {
        return statistics;
    }
    let counters = unsafe { &*(statistics as *const Counters) };
    Box::into_raw(Box::new(counters.clone())) as *mut c_void
}

unsafe extern "C" fn release_statistics(statistics: *mut c_void) {
    if !statistics.is_null() {
        let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(statistics as *mut Counters) }));
    }
}

/// The counters behind a statistics handle C++ passed back.
///
/// # Safety
/// `handle` must be a live handle from `new_statistics`/`share_statistics`.
pub(crate) unsafe fn counters<'h>(handle: *mut c_void) -> Option<&'h Counters> {
    (handle as *const Counters).as_ref()
}

/// A new owner of the counters behind `handle` (for reports after the pass
/// manager is gone).
pub(crate) unsafe fn share_counters(handle: *mut c_void) -> Option<Counters> {
    counters(handle).cloned()
}

// -- options ----------------------------------------------------------------

unsafe extern "C" fn check_pass_options(rust: *const c_void, values: *const i64, message: *mut *const c_char) -> c_int {
    let outcome = crate::panic::catch_in_callback(|| {
        let info = unsafe { pass_of(rust) };
        check_options(info.argument, info.options, unsafe { values_of(values, info.options.len()) })
    });
    match outcome {
        Ok(Ok(())) => 1,
        Ok(Err(text)) => {
            unsafe { set_message(message, &text) };
            0
        }
        Err(payload) => {
            unsafe { set_message(message, &format!("internal error: {}", crate::panic::message(&payload))) };
            0
        }
    }
}

unsafe extern "C" fn build_pipeline(
    rust: *const c_void,
    values: *const i64,
    write: sys::WriteFn,
    buffer: *mut c_void,
    message: *mut *const c_char,
) -> c_int {
    let outcome = crate::panic::catch_in_callback(|| {
        let info = unsafe { &*(rust as *const PipelineInfo) };
        let values = unsafe { values_of(values, info.options.len()) };
        check_options(info.argument, info.options, values).map(|()| (info.build)(values))
    });
    match outcome {
        Ok(Ok(text)) => {
            unsafe { write(buffer, text.as_ptr() as *const c_char, text.len()) };
            1
        }
        Ok(Err(text)) => {
            unsafe { set_message(message, &text) };
            0
        }
        Err(payload) => {
            unsafe { set_message(message, &format!("internal error: {}", crate::panic::message(&payload))) };
            0
        }
    }
}

// -- running ------------------------------------------------------------------

/// The pass object of one instance (a `Box<dyn CclPass>`, boxed again for a
/// thin pointer).
type State = Box<dyn CclPass>;

unsafe extern "C" fn run(
    rust: *const c_void,
    state: *mut *mut c_void,
    statistics: *mut c_void,
    values: *const i64,
    op: MlirOperation,
    instance: *mut c_void,
) -> c_int {
    let info = unsafe { pass_of(rust) };
    let operation = unsafe { OperationRef::from_raw(op) };
    let outcome = crate::panic::catch_in_callback(|| {
        let slot = unsafe { &mut *state };
        if slot.is_null() {
            let empty = Counters::new(info.statistics);
            let counters = unsafe { counters(statistics) }.unwrap_or(&empty);
            let pass: State = (info.create)(unsafe { values_of(values, info.options.len()) }, counters);
            *slot = Box::into_raw(Box::new(pass)) as *mut c_void;
        }
        let pass = unsafe { &mut *(*slot as *mut State) };
        let host = MlirHost { context: unsafe { mlir_sys::mlirOperationGetContext(op) }, instance };
        let mut cx = PassContext::new(&host);
        let result = pass.run(operation, &mut cx);
        (result, cx.preserved_all())
    });
    match outcome {
        Ok((Ok(()), true)) => sys::CCL_RUN_PRESERVED_ALL,
        Ok((Ok(()), false)) => sys::CCL_RUN_CHANGED,
        Ok((Err(_), _)) => sys::CCL_RUN_FAILED,
        Err(payload) => {
            // The pass object may be half-updated: the next run makes a new one.
            unsafe { destroy_state(rust, std::mem::replace(&mut *state, std::ptr::null_mut())) };
            let message = crate::panic::message(&payload);
            emit(Report::error(
                operation.location(),
                format!("internal error: pass '{}' panicked: {message}", info.argument),
            ));
            sys::CCL_RUN_FAILED
        }
    }
}

unsafe extern "C" fn destroy_state(_rust: *const c_void, state: *mut c_void) {
    if !state.is_null() {
        let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(state as *mut State) }));
    }
}

/// MLIR's diagnostic engine, thread pool and analysis manager, for a
/// running pass.
struct MlirHost {
    context: mlir_sys::MlirContext,
    /// The running C++ pass instance.
    instance: *mut c_void,
}

impl Host for MlirHost {
    fn emit(&self, report: Report<'_>) {
        emit(report);
    }

    fn parallel_for(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        parallel_for(self.context, count, task);
    }

    fn cache_analysis(&self, value: Analysis) {
        // A thin pointer to the boxed trait object crosses the boundary.
        let value = Box::into_raw(Box::new(value)) as *mut c_void;
        unsafe { sys::cclPassCacheAnalysis(self.instance, value, drop_analysis) };
    }

    fn cached_parent_analysis(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        let value = unsafe { sys::cclPassCachedParentAnalysis(self.instance) } as *const Analysis;
        // MLIR keeps the parent's analyses while the passes nested under it
        // run, so the value outlives this pass run.
        unsafe { value.as_ref() }.map(|boxed| &**boxed)
    }

    fn run_pipeline(&self, op: OperationRef<'_, '_>, pipeline: &str) -> bool {
        // MLIR runs the pipeline on `op` (nested in the op of the running
        // pass, which the pass checked) and reports its errors itself.
        unsafe { sys::cclPassRunPipeline(self.instance, string_ref(pipeline), op.to_raw()) }.value == 1
    }
}

/// Called by MLIR's analysis manager when it drops a cached Rust analysis.
unsafe extern "C" fn drop_analysis(value: *mut c_void) {
    let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(value as *mut Analysis) }));
}

fn severity_code(severity: Severity) -> c_int {
    (match severity {
        Severity::Error => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticError,
        Severity::Warning => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticWarning,
        Severity::Note => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticNote,
        Severity::Remark => mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticRemark,
    }) as c_int
}

/// Emits `report` through the diagnostic engine of its location's context.
pub fn emit(report: Report<'_>) {
    let locations: Vec<MlirLocation> = report.notes.iter().map(|(loc, _)| loc.to_raw()).collect();
    let messages: Vec<mlir_sys::MlirStringRef> = report.notes.iter().map(|(_, text)| string_ref(text)).collect();
    unsafe {
        sys::cclEmitDiagnostic(
            report.location.to_raw(),
            severity_code(report.severity),
            string_ref(&report.message),
            locations.len(),
            locations.as_ptr(),
            messages.as_ptr(),
        )
    }
}

/// Runs `task(i)` for `i < count` on `context`'s thread pool. A panic in
/// a task is caught on its thread and resumed here, after every task ran.
fn parallel_for(context: mlir_sys::MlirContext, count: usize, task: &(dyn Fn(usize) + Sync)) {
    struct Shared<'t> {
        task: &'t (dyn Fn(usize) + Sync),
        panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
    }
    unsafe extern "C" fn trampoline(data: *mut c_void, index: usize) {
        let shared = unsafe { &*(data as *const Shared<'_>) };
        if let Err(payload) = crate::panic::catch_in_callback(|| (shared.task)(index)) {
            let mut slot = shared.panic.lock().unwrap_or_else(|poison| poison.into_inner());
            slot.get_or_insert(payload);
        }
    }
    let shared = Shared { task, panic: std::sync::Mutex::new(None) };
    unsafe { sys::cclParallelFor(context, count, trampoline, &shared as *const Shared<'_> as *mut c_void) };
    if let Some(payload) = shared.panic.into_inner().unwrap_or_else(|poison| poison.into_inner()) {
        std::panic::resume_unwind(payload);
    }
}
