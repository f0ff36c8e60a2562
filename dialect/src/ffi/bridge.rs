//! The Rust half of the one C++ pass class (`dialect-glue/cpp/RustPass.cpp`):
//! the descriptions MLIR's registry gets for each Rust pass and named pipeline,
//! and the callbacks every instance makes. Every callback catches panics: a
//! panicking pass becomes an error diagnostic at the op it ran on, and a
//! failed pass; nothing unwinds into C++.
//!
//! Which passes there are is the caller's: the tools hand a [`Catalog`]
//! (the passes crate's lists) to every entry point that may register them,
//! so this crate does not depend on the passes.

use super::{
    rewrite::Erasures,
    strings::{leak_c, string_ref},
    sys,
};
use cclir_pass_framework::{
    check_options, Analysis, CclPass, Counters, Host, OptionKind, OptionSpec, OptionValues, PassContext, PassInfo,
    PipelineInfo, Report, Severity,
};
use melior::ir::{operation::OperationLike, OperationRef};
use mlir_sys::{MlirLocation, MlirOperation};
use std::{
    cell::RefCell,
    ffi::{c_char, c_int, c_void, CString},
    sync::{Once, OnceLock},
};

/// The Rust passes and named pipelines MLIR's registry gets.
pub struct Catalog {
    pub passes: fn() -> &'static [&'static PassInfo],
    pub pipelines: fn() -> &'static [&'static PipelineInfo],
}

/// The catalog the first entry point handed over; the C++ side calls
/// [`register_rust`] without arguments.
static CATALOG: OnceLock<&'static Catalog> = OnceLock::new();

/// Registers every upstream pass and every pass and named pipeline of
/// `catalog` with MLIR's global registry, once per process (a later
/// catalog is ignored: the registry is global).
pub fn register_all_passes(catalog: &'static Catalog) {
    set_catalog(catalog);
    // SAFETY: `register_rust` is a callback of the type the glue expects;
    // the glue calls it at most once, under its own once-guard.
    unsafe { sys::cclRegisterAllPasses(register_rust) };
}

/// Keeps `catalog` for [`register_rust`], which C++ calls when it registers
/// the passes (a later catalog is ignored: the registry is global).
pub(crate) fn set_catalog(catalog: &'static Catalog) {
    CATALOG.get_or_init(|| catalog);
}

/// Arguments registered so far (MLIR's registry aborts on a second one).
static REGISTERED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// Registers one more Rust pass (a downstream crate's own) with MLIR's
/// registry, next to `catalog`'s: pipelines then name it like any pass.
/// Fails if a pass of that argument is registered already.
pub fn register_pass(info: &'static PassInfo, catalog: &'static Catalog) -> Result<(), String> {
    register_all_passes(catalog);
    let mut registered = REGISTERED.lock().unwrap_or_else(|poison| poison.into_inner());
    if registered.contains(&info.argument) {
        return Err(format!("a pass named '{}' is registered already", info.argument));
    }
    registered.push(info.argument);
    // SAFETY: the description and the callbacks live for the process, as
    // MLIR's registry keeps them; `REGISTERED` made sure the argument is new.
    unsafe { sys::cclRegisterRustPass(pass_info(info), &CALLBACKS) };
    Ok(())
}

/// Called once by the C++ side (inside its own once-guard), after an entry
/// point of this module stored the catalog.
///
/// # Safety
/// Called by the glue's registration, on a thread where MLIR's registry
/// may be written (no other registration runs at the same time).
pub(crate) unsafe extern "C" fn register_rust() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        crate::panic::install_quiet_hook();
        let Some(catalog) = CATALOG.get() else { return };
        let mut registered = REGISTERED.lock().unwrap_or_else(|poison| poison.into_inner());
        for info in (catalog.passes)() {
            registered.push(info.argument);
            // SAFETY: as in `register_pass`: process-lifetime description
            // and callbacks, each argument once.
            unsafe { sys::cclRegisterRustPass(pass_info(info), &CALLBACKS) };
        }
        for info in (catalog.pipelines)() {
            // SAFETY: the description lives for the process.
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

/// The pass description behind a `rust` pointer C++ passed back.
///
/// # Safety
/// `rust` must be the `rust` field of a [`pass_info`] description (a
/// `&'static PassInfo`).
unsafe fn pass_of(rust: *const c_void) -> &'static PassInfo {
    // SAFETY: the caller's promise: a pointer made from a `&'static PassInfo`.
    unsafe { &*(rust as *const PassInfo) }
}

/// The option values C++ parsed, one per option.
///
/// # Safety
/// `values` must point at `count` readable values for `'v`, or `count` be 0.
unsafe fn values_of<'v>(values: *const i64, count: usize) -> OptionValues<'v> {
    // SAFETY: the caller's promise.
    OptionValues(if count == 0 { &[] } else { unsafe { std::slice::from_raw_parts(values, count) } })
}

thread_local! {
    /// The message of the last failed callback on this thread; C++ copies it
    /// before the next callback.
    static MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` for C++ (until the next message on this thread) and
/// points `out` at it.
///
/// # Safety
/// `out` must be null or point at a writable `const char *`.
pub(crate) unsafe fn set_message(out: *mut *const c_char, message: &str) -> *const c_char {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    MESSAGE.with(|slot| {
        *slot.borrow_mut() = text;
        let kept = slot.borrow().as_ptr();
        if !out.is_null() {
            // SAFETY: the caller's promise: `out` is writable.
            unsafe { *out = kept };
        }
        kept
    })
}

/// Runs a callback body: an error or a panic becomes `failed`, with its
/// message in `*message`.
///
/// # Safety
/// As [`set_message`], for `message`.
pub(crate) unsafe fn guarded<T>(failed: T, message: *mut *const c_char, body: impl FnOnce() -> Result<T, String>) -> T {
    let text = match crate::panic::catch_in_callback(body) {
        Ok(Ok(value)) => return value,
        Ok(Err(text)) => text,
        Err(payload) => format!("internal error: {}", crate::panic::message(&payload)),
    };
    // SAFETY: the caller's promise.
    unsafe { set_message(message, &text) };
    failed
}

// -- statistics ---------------------------------------------------------------

/// New counters for an original pass instance: a handle C++ keeps.
///
/// # Safety
/// `rust` is the `rust` field of a [`pass_info`] description.
unsafe extern "C" fn new_statistics(rust: *const c_void) -> *mut c_void {
    crate::panic::catch_in_callback(|| {
        // SAFETY: C++ passes back the `rust` field of this pass's description.
        let info = unsafe { pass_of(rust) };
        Box::into_raw(Box::new(Counters::new(info.statistics))) as *mut c_void
    })
    .unwrap_or(std::ptr::null_mut())
}

/// One more owner of the counters of `statistics` (a clone of a pass).
///
/// # Safety
/// `statistics` is null or a live handle from `new_statistics` or
/// `share_statistics`.
unsafe extern "C" fn share_statistics(statistics: *mut c_void) -> *mut c_void {
    // SAFETY: C++ passes a handle from `new_statistics`/`share_statistics`
    // it has not released.
    match unsafe { counters(statistics) } {
        Some(counters) => Box::into_raw(Box::new(counters.clone())) as *mut c_void,
        None => std::ptr::null_mut(),
    }
}

/// Releases one owner of counters.
///
/// # Safety
/// `statistics` is null or a handle from `new_statistics` or
/// `share_statistics`, released once.
unsafe extern "C" fn release_statistics(statistics: *mut c_void) {
    if !statistics.is_null() {
        // SAFETY: a handle from `new_statistics`/`share_statistics` (a boxed
        // `Counters`), released once.
        let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(statistics as *mut Counters) }));
    }
}

/// The counters behind a statistics handle C++ passed back.
///
/// # Safety
/// `handle` must be null or a live handle from `new_statistics` or
/// `share_statistics`, alive for `'h`.
pub(crate) unsafe fn counters<'h>(handle: *mut c_void) -> Option<&'h Counters> {
    // SAFETY: the caller's promise: null or a live boxed `Counters`.
    unsafe { (handle as *const Counters).as_ref() }
}

/// A new owner of the counters behind `handle` (for reports after the pass
/// manager is gone).
///
/// # Safety
/// As [`counters`], for the duration of the call.
pub(crate) unsafe fn share_counters(handle: *mut c_void) -> Option<Counters> {
    // SAFETY: the caller's promise.
    unsafe { counters(handle) }.cloned()
}

// -- options ----------------------------------------------------------------

/// Checks a pass's option values after MLIR parsed them.
///
/// # Safety
/// `rust` is the `rust` field of a [`pass_info`] description, `values`
/// points at one value per option of that pass, and `message` is null or a
/// writable `const char *`.
unsafe extern "C" fn check_pass_options(rust: *const c_void, values: *const i64, message: *mut *const c_char) -> c_int {
    let check = || {
        // SAFETY: C++ passes back the `rust` field of this pass's description.
        let info = unsafe { pass_of(rust) };
        // SAFETY: C++ passes one parsed value per option of the pass.
        check_options(info.argument, info.options, unsafe { values_of(values, info.options.len()) }).map(|()| 1)
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    unsafe { guarded(0, message, check) }
}

/// Builds a named pipeline's text from its option values, into `buffer`.
///
/// # Safety
/// `rust` is the `rust` field of a [`pipeline_info`] description, `values`
/// points at one value per option of that pipeline, `write` and `buffer`
/// are the glue's pair, and `message` is null or a writable `const char *`.
unsafe extern "C" fn build_pipeline(
    rust: *const c_void,
    values: *const i64,
    write: sys::WriteFn,
    buffer: *mut c_void,
    message: *mut *const c_char,
) -> c_int {
    let build = || {
        // SAFETY: C++ passes back the `rust` field of `pipeline_info`'s
        // description, made from a `&'static PipelineInfo`.
        let info = unsafe { &*(rust as *const PipelineInfo) };
        // SAFETY: C++ passes one parsed value per option of the pipeline.
        let values = unsafe { values_of(values, info.options.len()) };
        check_options(info.argument, info.options, values).map(|()| (info.build)(values))
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    let Some(text) = (unsafe { guarded(None, message, || build().map(Some)) }) else { return 0 };
    // SAFETY: `write` and `buffer` are the glue's pair; `text` is readable
    // for the call.
    unsafe { write(buffer, text.as_ptr() as *const c_char, text.len()) };
    1
}

// -- running ------------------------------------------------------------------

/// The pass object of one instance (a `Box<dyn CclPass>`, boxed again for a
/// thin pointer).
type State = Box<dyn CclPass>;

/// Runs a Rust pass instance on `op` (its object made on the first run);
/// a `CCL_RUN_*` code.
///
/// # Safety
/// `rust` is the `rust` field of a [`pass_info`] description; `state` is
/// the instance's own slot (null or a `State` this callback made), used by
/// one callback at a time; `statistics` is null or the instance's live
/// handle; `values` points at one value per option of the pass; `op` is the
/// live op MLIR runs the pass on, the pass's to read and change until the
/// call returns; `instance` is the running C++ pass.
unsafe extern "C" fn run(
    rust: *const c_void,
    state: *mut *mut c_void,
    statistics: *mut c_void,
    values: *const i64,
    op: MlirOperation,
    instance: *mut c_void,
) -> c_int {
    // SAFETY: C++ passes back the `rust` field of this pass's description.
    let info = unsafe { pass_of(rust) };
    // SAFETY: `op` is the live op MLIR runs the pass on, this pass's to read
    // and change until the callback returns.
    let operation = unsafe { OperationRef::from_raw(op) };
    let outcome = crate::panic::catch_in_callback(|| {
        // SAFETY: `state` is the instance's own slot, null or a `State`
        // this callback made; C++ runs one callback per instance at a time.
        let slot = unsafe { &mut *state };
        if slot.is_null() {
            let empty = Counters::new(info.statistics);
            // SAFETY: null or the instance's live statistics handle.
            let counters = unsafe { counters(statistics) }.unwrap_or(&empty);
            // SAFETY: C++ passes one parsed value per option of the pass.
            let pass: State = (info.create)(unsafe { values_of(values, info.options.len()) }, counters);
            *slot = Box::into_raw(Box::new(pass)) as *mut c_void;
        }
        // SAFETY: the slot holds a boxed `State` (made just above or by an
        // earlier run of this instance).
        let pass = unsafe { &mut *(*slot as *mut State) };
        // SAFETY: `op` is live (above), and stays so until the erasures
        // are finished below, after `run` returned: every reference the
        // pass made into it had the call's lifetime.
        let erasures = unsafe { Erasures::new(op) };
        // SAFETY: `op` is live (above).
        let host = MlirHost { context: unsafe { mlir_sys::mlirOperationGetContext(op) }, instance, erasures };
        let mut cx = PassContext::new(&host);
        let result = pass.run(operation, &mut cx);
        let preserved_all = cx.preserved_all();
        let result = match host.erasures.finish() {
            Ok(()) => result,
            Err(message) => {
                emit(Report::error(operation.location(), format!("pass '{}': {message}", info.argument)));
                Err(cclir_pass_framework::PassFailed)
            }
        };
        (result, preserved_all)
    });
    match outcome {
        Ok((Ok(()), true)) => sys::CCL_RUN_PRESERVED_ALL,
        Ok((Ok(()), false)) => sys::CCL_RUN_CHANGED,
        Ok((Err(_), _)) => sys::CCL_RUN_FAILED,
        Err(payload) => {
            // The pass object may be half-updated: the next run makes a new one.
            // SAFETY: `state` is the instance's slot (above); emptied here,
            // so the state is dropped once.
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

/// Drops a pass instance's object.
///
/// # Safety
/// `state` is null or a `State` made by `run`, dropped once (C++ forgets
/// it after this call).
unsafe extern "C" fn destroy_state(_rust: *const c_void, state: *mut c_void) {
    if !state.is_null() {
        // SAFETY: a boxed `State` made by `run`, dropped once (C++ forgets
        // it after this call).
        let _ = crate::panic::catch_in_callback(|| drop(unsafe { Box::from_raw(state as *mut State) }));
    }
}

/// MLIR's diagnostic engine, thread pool and analysis manager, for a
/// running pass.
struct MlirHost {
    context: mlir_sys::MlirContext,
    /// The running C++ pass instance.
    instance: *mut c_void,
    /// The ops the run erased, destroyed when it returns.
    erasures: Erasures,
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
        // SAFETY: `instance` is the pass instance running now; MLIR owns the
        // value from here and drops it with `drop_analysis`.
        unsafe { sys::cclPassCacheAnalysis(self.instance, value, drop_analysis) };
    }

    fn cached_parent_analysis(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        // SAFETY: `instance` is the pass instance running now.
        let value = unsafe { sys::cclPassCachedParentAnalysis(self.instance) } as *const Analysis;
        // SAFETY: null or a value `cache_analysis` gave MLIR (a boxed
        // `Analysis`); MLIR keeps the parent's analyses while the passes
        // nested under it run, so it outlives this pass run.
        unsafe { value.as_ref() }.map(|boxed| &**boxed)
    }

    fn run_pipeline(&self, op: OperationRef<'_, '_>, pipeline: &str) -> bool {
        // SAFETY: `instance` is the pass instance running now, and `op` is
        // live and nested in its op (which the pass checked); MLIR runs the
        // pipeline on it and reports its errors itself.
        unsafe { sys::cclPassRunPipeline(self.instance, string_ref(pipeline), op.to_raw()) }.value == 1
    }

    fn erase(&self, op: OperationRef<'_, '_>) {
        self.erasures.erase(op);
    }
}

/// Called by MLIR's analysis manager when it drops a cached Rust analysis.
///
/// # Safety
/// `value` is a boxed `Analysis` from `cache_analysis`, dropped once.
unsafe extern "C" fn drop_analysis(value: *mut c_void) {
    // SAFETY: a boxed `Analysis` from `cache_analysis`, dropped once.
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
    // SAFETY: the locations are live (a `Report` borrows them), and the two
    // arrays hold `locations.len()` elements each for the call.
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
    /// One task of the loop, on a thread of the pool.
    ///
    /// # Safety
    /// `data` is the `Shared` of this `parallel_for`, alive until
    /// `cclParallelFor` returns.
    unsafe extern "C" fn trampoline(data: *mut c_void, index: usize) {
        // SAFETY: `data` is the `Shared` below, alive until `cclParallelFor`
        // returns, and only read (it is `Sync`).
        let shared = unsafe { &*(data as *const Shared<'_>) };
        if let Err(payload) = crate::panic::catch_in_callback(|| (shared.task)(index)) {
            let mut slot = shared.panic.lock().unwrap_or_else(|poison| poison.into_inner());
            slot.get_or_insert(payload);
        }
    }
    let shared = Shared { task, panic: std::sync::Mutex::new(None) };
    // SAFETY: `context` is the running pass's context; `shared` outlives the
    // call, which returns after every task ran.
    unsafe { sys::cclParallelFor(context, count, trampoline, &shared as *const Shared<'_> as *mut c_void) };
    if let Some(payload) = shared.panic.into_inner().unwrap_or_else(|poison| poison.into_inner()) {
        std::panic::resume_unwind(payload);
    }
}
