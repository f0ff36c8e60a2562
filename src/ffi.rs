//! The one place that calls mlir-sys directly, for what melior does not wrap:
//! parsing with a buffer name, external passes whose callbacks never let a
//! panic unwind into MLIR, textual upstream pipelines, and streaming print.
//! Every `unsafe` block of the framework is here.

use cclir_passes::framework::{
    Anchor, Changes, Diagnostic, DiagnosticSink, PassContext, PassOptions, PassStep, Severity, SourceLoc, Statistics,
};
use crate::diagnostics::SourceText;
use melior::{
    ir::{operation::OperationLike, Operation, OperationRef},
    pass::OperationPassManager,
    Context,
};
use mlir_sys::*;
use std::{
    cell::RefCell,
    ffi::c_void,
    io::Write,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex, Once,
    },
};

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr() as *const _, length: text.len() }
}

unsafe fn str_of<'a>(s: MlirStringRef) -> &'a [u8] {
    if s.data.is_null() || s.length == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(s.data as *const u8, s.length)
    }
}

/// Registers every upstream MLIR pass with MLIR's global registry. MLIR
/// forbids doing it twice in one process, so it happens once.
pub fn register_upstream_passes_once() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        mlirRegisterAllPasses();
        // llvm::cl names the program in messages it prints itself (pass
        // option errors): give it ours, with no other options parsed.
        let program = c"ccl-opt";
        let argv = [program.as_ptr()];
        LLVMParseCommandLineOptions(1, argv.as_ptr(), c"".as_ptr());
    });
}

extern "C" {
    /// From LLVM's C API (llvm-c/Support.h), linked with MLIR.
    fn LLVMParseCommandLineOptions(argc: i32, argv: *const *const std::ffi::c_char, overview: *const std::ffi::c_char);
    /// The ccl dialect's registration handle (src/mlir/cpp/CclCAPI.cpp).
    fn mlirGetDialectHandle__ccl__() -> MlirDialectHandle;
}

/// The ccl dialect's handle, for registries and contexts.
pub fn ccl_dialect_handle() -> melior::dialect::DialectHandle {
    unsafe { melior::dialect::DialectHandle::from_raw(mlirGetDialectHandle__ccl__()) }
}

/// Parses `source` as one top-level operation (a module, implicitly wrapped
/// as mlir-opt does) whose locations name `buffer_name`. Errors go to the
/// context's diagnostic handlers.
///
/// MLIR's lexer expects a NUL after the last character (its own file reader
/// guarantees one) and reads past the end of a buffer without it (found by
/// the `driver` fuzz target: ASan heap-buffer-overflow on `staticUppe`), so
/// the text is copied with a NUL behind it.
pub fn parse_operation<'c>(context: &'c Context, source: &SourceText, buffer_name: &str) -> Option<Operation<'c>> {
    // The terminator stays outside the length MLIR is given; its lexer stops
    // at it instead of reading past the end of the buffer.
    let text = MlirStringRef { data: source.text().as_ptr() as *const _, length: source.text().len() };
    unsafe {
        let raw = mlirOperationCreateParse(context.to_raw(), text, string_ref(buffer_name));
        Operation::from_option_raw(raw)
    }
}

/// A stream callback for MLIR's printers: appends the chunk to a `Vec<u8>`.
unsafe extern "C" fn append_to_vec(chunk: MlirStringRef, user_data: *mut c_void) {
    // The stream callbacks run once per printed token: a bare catch_unwind
    // (free unless something panics) rather than the hook bookkeeping.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let buffer = &mut *(user_data as *mut Vec<u8>);
        buffer.extend_from_slice(str_of(chunk));
    }));
}

/// A stream callback writing straight into a `dyn Write` (no intermediate
/// string of the whole module).
unsafe extern "C" fn write_to_writer(chunk: MlirStringRef, user_data: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let sink = &mut *(user_data as *mut WriterState);
        if sink.error.is_none() {
            if let Err(error) = sink.writer.write_all(str_of(chunk)) {
                sink.error = Some(error);
            }
        }
    }));
}

struct WriterState<'w> {
    writer: &'w mut dyn Write,
    error: Option<std::io::Error>,
}

/// How the printer prints (mlir-opt's `--mlir-print-*` flags).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    pub generic: bool,
    pub debug_info: bool,
    pub local_scope: bool,
}

/// MLIR printing flags for `options`; the caller destroys them.
unsafe fn printing_flags(options: PrintOptions) -> MlirOpPrintingFlags {
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
    flags
}

/// Prints `op` to `writer` as MLIR's printer streams it.
pub fn print_operation(op: OperationRef<'_, '_>, options: PrintOptions, writer: &mut dyn Write) -> std::io::Result<()> {
    unsafe {
        let flags = printing_flags(options);
        let mut state = WriterState { writer, error: None };
        mlirOperationPrintWithFlags(op.to_raw(), flags, Some(write_to_writer), &mut state as *mut _ as *mut c_void);
        mlirOpPrintingFlagsDestroy(flags);
        match state.error {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// Adds `elements` (comma-separated textual pipeline elements without an
/// anchor) to `manager` through MLIR's own pipeline parser.
pub fn add_upstream_pipeline(manager: OperationPassManager<'_, '_>, elements: &str) -> Result<(), String> {
    let mut message = Vec::new();
    let result = unsafe {
        mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            string_ref(elements),
            Some(append_to_vec),
            &mut message as *mut _ as *mut c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&message).into_owned())
    }
}

/// The textual form MLIR prints for `manager`'s pipeline.
pub fn print_pass_pipeline(manager: OperationPassManager<'_, '_>) -> String {
    let mut text = Vec::new();
    unsafe { mlirPrintPassPipeline(manager.to_raw(), Some(append_to_vec), &mut text as *mut _ as *mut c_void) };
    String::from_utf8_lossy(&text).into_owned()
}

/// Whether MLIR's registry (after `register_upstream_passes_once`) knows the
/// pass or pipeline `name`: it is added to a scratch pass manager.
pub fn is_upstream_pass(context: &Context, name: &str) -> bool {
    let manager = melior::pass::PassManager::new(context);
    let mut sink: Vec<u8> = Vec::new();
    let result = unsafe {
        mlirOpPassManagerAddPipeline(
            manager.as_operation_pass_manager().to_raw(),
            string_ref(name),
            Some(append_to_vec),
            &mut sink as *mut _ as *mut c_void,
        )
    };
    result.value != 0
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

unsafe fn convert_diagnostic(diagnostic: MlirDiagnostic) -> Diagnostic {
    let severity = match mlirDiagnosticGetSeverity(diagnostic) {
        x if x == MlirDiagnosticSeverity_MlirDiagnosticError => Severity::Error,
        x if x == MlirDiagnosticSeverity_MlirDiagnosticWarning => Severity::Warning,
        x if x == MlirDiagnosticSeverity_MlirDiagnosticNote => Severity::Note,
        _ => Severity::Remark,
    };
    let mut message = Vec::new();
    mlirDiagnosticPrint(diagnostic, Some(append_to_vec), &mut message as *mut _ as *mut c_void);
    let loc = SourceLoc::from_mlir(melior::ir::Location::from_raw(mlirDiagnosticGetLocation(diagnostic)));
    let notes = (0..mlirDiagnosticGetNumNotes(diagnostic))
        .map(|index| convert_diagnostic(mlirDiagnosticGetNote(diagnostic, index)))
        .collect();
    Diagnostic { severity, loc, message: String::from_utf8_lossy(&message).into_owned(), notes }
}

thread_local! {
    /// Set while a thread verifies changed ops beside others
    /// (`verify_in_parallel`): its diagnostics are held, with their sink, to
    /// be replayed in op order.
    static HELD: RefCell<Option<Vec<(DiagnosticSink, Diagnostic)>>> = const { RefCell::new(None) };
}

unsafe extern "C" fn collect_diagnostic(diagnostic: MlirDiagnostic, user_data: *mut c_void) -> MlirLogicalResult {
    let handled = crate::panic::catch_in_callback(|| {
        let sink = &*(user_data as *const DiagnosticSink);
        let diagnostic = convert_diagnostic(diagnostic);
        HELD.with(|held| match held.borrow_mut().as_mut() {
            Some(held) => held.push((sink.clone(), diagnostic)),
            None => sink.push(diagnostic),
        });
    });
    // Handled either way: a diagnostic must never reach MLIR's default
    // handler, which would print it a second time.
    let _ = handled;
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn drop_sink(user_data: *mut c_void) {
    let _ = crate::panic::catch_in_callback(|| drop(Box::from_raw(user_data as *mut DiagnosticSink)));
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
// External passes
// ---------------------------------------------------------------------------

/// What MLIR holds for one Rust pass instance. The pass object itself is made
/// on first run, so that `clone` (called by MLIR for each thread) only copies
/// configuration and cannot fail.
struct PassInstance {
    step: &'static PassStep,
    options: PassOptions,
    stats: Statistics,
    sink: DiagnosticSink,
    /// Set when MLIR's own verify-each is off for this pipeline and the
    /// framework verifies what each Rust pass changed instead.
    self_verify: Arc<AtomicBool>,
    pass: Option<Box<dyn cclir_passes::framework::CclPass>>,
}

unsafe extern "C" fn pass_construct(_user_data: *mut c_void) {}

unsafe extern "C" fn pass_destruct(user_data: *mut c_void) {
    let _ = crate::panic::catch_in_callback(|| drop(Box::from_raw(user_data as *mut PassInstance)));
}

unsafe extern "C" fn pass_initialize(_context: MlirContext, _user_data: *mut c_void) -> MlirLogicalResult {
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn pass_clone(user_data: *mut c_void) -> *mut c_void {
    let instance = &*(user_data as *const PassInstance);
    Box::into_raw(Box::new(PassInstance {
        step: instance.step,
        options: instance.options.clone(),
        stats: instance.stats.clone(),
        sink: instance.sink.clone(),
        self_verify: instance.self_verify.clone(),
        pass: None,
    })) as *mut c_void
}

unsafe extern "C" fn pass_run(op: MlirOperation, external: MlirExternalPass, user_data: *mut c_void) {
    let instance = &mut *(user_data as *mut PassInstance);
    let operation = OperationRef::from_raw(op);
    let outcome = crate::panic::catch_in_callback(|| {
        let step = instance.step;
        let options = &instance.options;
        let pass = instance.pass.get_or_insert_with(|| (step.create)(options));
        let mut cx = PassContext::new(&instance.stats, &instance.sink);
        pass.run(operation, &mut cx).map(|()| cx.take_changes())
    });
    match outcome {
        Ok(Ok(changes)) => {
            if instance.self_verify.load(Ordering::Relaxed) && !verify_changes(operation, changes) {
                mlirExternalPassSignalFailure(external);
            }
        }
        Ok(Err(_failed)) => mlirExternalPassSignalFailure(external),
        Err(payload) => {
            // The pass object may be half-updated; make a fresh one next time.
            instance.pass = None;
            let message = crate::panic::message(&payload);
            instance.sink.push(Diagnostic::error(
                SourceLoc::of(&operation),
                format!("internal error: pass '{}' panicked: {message}", instance.step.name),
            ));
            mlirExternalPassSignalFailure(external);
        }
    }
}

/// Runs MLIR's verifier on what a pass changed (all of `anchor` when it did
/// not say); errors go to the diagnostic handlers. Declared ops are
/// verified one after the other, stopping at the first failure; many of
/// them (a module step that changed many functions) are verified on the
/// context's threads, as MLIR verifies a module's functions, with the same
/// diagnostics in the same order.
unsafe fn verify_changes(anchor: OperationRef<'_, '_>, changes: Changes) -> bool {
    match changes {
        Changes::Unknown => mlirOperationVerify(anchor.to_raw()),
        Changes::Ops(ops) => {
            // 1 when the context is single-threaded: its uniquer has no locks.
            let threads = mlirContextGetNumThreads(mlirOperationGetContext(anchor.to_raw())) as usize;
            if threads < 2 || ops.len() < PARALLEL_VERIFY_MIN || !sibling_functions(&ops) {
                ops.into_iter().all(|op| verify_address(op))
            } else {
                // A panic here (a bug) must not unwind into MLIR.
                catch_unwind(AssertUnwindSafe(|| verify_in_parallel(&ops, threads))).unwrap_or(false)
            }
        }
    }
}

/// Below this many declared ops, verifying them on more threads does not
/// pay for starting the threads (an op is a function: tens of microseconds).
const PARALLEL_VERIFY_MIN: usize = 32;

unsafe fn verify_address(op: usize) -> bool {
    mlirOperationVerify(MlirOperation { ptr: op as *mut c_void })
}

/// Whether `ops` are all `func.func`s with one parent: verifying one then
/// reads nothing another's verification touches (a function is isolated
/// from above, and none is inside another), which is when MLIR itself
/// verifies ops in parallel. Ops that share blocks must not be verified at
/// once: dominance checks renumber a block's ops on demand.
unsafe fn sibling_functions(ops: &[usize]) -> bool {
    let raw = |op: usize| MlirOperation { ptr: op as *mut c_void };
    let parent = mlirOperationGetParentOperation(raw(ops[0])).ptr;
    let func = mlirIdentifierGet(mlirOperationGetContext(raw(ops[0])), string_ref(Anchor::Function.op_name())).ptr;
    ops.iter().all(|&op| {
        mlirOperationGetName(raw(op)).ptr == func && mlirOperationGetParentOperation(raw(op)).ptr == parent
    })
}

/// Verifies `ops` (sibling functions: [`sibling_functions`]) on `threads`
/// threads, this one included. Like a
/// sequential run it reports the diagnostics of each op in order, up to and
/// including the first op that fails, and then fails.
fn verify_in_parallel(ops: &[usize], threads: usize) -> bool {
    const CHUNK: usize = 16;
    let next = AtomicUsize::new(0);
    // Ops that failed or said something: (index, passed, what they said).
    type Outcome = (usize, bool, Vec<(DiagnosticSink, Diagnostic)>);
    let outcomes: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let work = || {
        HELD.with(|held| *held.borrow_mut() = Some(Vec::new()));
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= ops.len() {
                break;
            }
            for (index, &op) in ops.iter().enumerate().skip(start).take(CHUNK) {
                let passed = unsafe { verify_address(op) };
                let said = HELD.with(|held| std::mem::take(held.borrow_mut().as_mut().expect("set above")));
                if !passed || !said.is_empty() {
                    outcomes.lock().unwrap_or_else(|poison| poison.into_inner()).push((index, passed, said));
                }
            }
        }
        HELD.with(|held| *held.borrow_mut() = None);
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.min(ops.len().div_ceil(CHUNK)) {
            scope.spawn(work);
        }
        work();
    });
    let mut outcomes = outcomes.into_inner().unwrap_or_else(|poison| poison.into_inner());
    outcomes.sort_unstable_by_key(|(index, _, _)| *index);
    for (_, passed, said) in outcomes {
        said.into_iter().for_each(|(sink, diagnostic)| sink.push(diagnostic));
        if !passed {
            return false;
        }
    }
    true
}

/// Adds one step of a Rust pass to `manager`. MLIR nests it under the step's
/// anchor when `manager` runs on another op.
pub fn add_rust_pass(
    manager: OperationPassManager<'_, '_>,
    step: &'static PassStep,
    argument: &'static str,
    description: &'static str,
    options: PassOptions,
    stats: Statistics,
    sink: DiagnosticSink,
    self_verify: Arc<AtomicBool>,
) {
    let instance = Box::new(PassInstance { step, options, stats, sink, self_verify, pass: None });
    unsafe {
        // A step's static address is unique and 8-byte aligned: a TypeID.
        let type_id = mlirTypeIDCreate(step as *const PassStep as *const c_void);
        let mut dependent = [mlirGetDialectHandle__arith__(), mlirGetDialectHandle__func__()];
        let pass = mlirCreateExternalPass(
            type_id,
            string_ref(step.name),
            string_ref(argument),
            string_ref(description),
            string_ref(step.anchor.op_name()),
            dependent.len() as isize,
            dependent.as_mut_ptr(),
            MlirExternalPassCallbacks {
                construct: Some(pass_construct),
                destruct: Some(pass_destruct),
                initialize: Some(pass_initialize),
                clone: Some(pass_clone),
                run: Some(pass_run),
            },
            Box::into_raw(instance) as *mut c_void,
        );
        mlirOpPassManagerAddOwnedPass(manager.to_raw(), pass);
    }
}

/// Emits `message` as an error at `op` through MLIR's diagnostic engine.
pub fn emit_error(op: OperationRef<'_, '_>, message: &str) {
    let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlirEmitError(op.location().to_raw(), text.as_ptr()) };
}

/// A top-level pass manager anchored on `anchor` (`builtin.module`, `any`, ...).
pub fn pass_manager_on<'c>(context: &'c Context, anchor: &str) -> melior::pass::PassManager<'c> {
    unsafe {
        melior::pass::PassManager::from_raw(mlirPassManagerCreateOnOperation(context.to_raw(), string_ref(anchor)))
    }
}

/// mlir-opt's `--mlir-print-ir-*` switches, as MLIR's C API takes them.
#[derive(Clone, Copy, Debug, Default)]
pub struct IrPrinting {
    pub before_all: bool,
    pub after_all: bool,
    pub module_scope: bool,
    pub after_only_on_change: bool,
    pub after_only_on_failure: bool,
}

pub fn enable_ir_printing(manager: &melior::pass::PassManager<'_>, printing: IrPrinting, print: PrintOptions) {
    unsafe {
        let flags = printing_flags(print);
        mlirPassManagerEnableIRPrinting(
            manager.to_raw(),
            printing.before_all,
            printing.after_all,
            printing.module_scope,
            printing.after_only_on_change,
            printing.after_only_on_failure,
            flags,
            string_ref(""),
        );
        mlirOpPrintingFlagsDestroy(flags);
    }
}

pub fn enable_timing(manager: &melior::pass::PassManager<'_>) {
    unsafe { mlirPassManagerEnableTiming(manager.to_raw()) }
}

pub fn enable_verifier(manager: &melior::pass::PassManager<'_>, enabled: bool) {
    unsafe { mlirPassManagerEnableVerifier(manager.to_raw(), enabled) }
}

/// Runs `manager` on `op`; failures were reported to the diagnostic handlers.
pub fn run_pass_manager(manager: &melior::pass::PassManager<'_>, op: OperationRef<'_, '_>) -> bool {
    unsafe { mlirPassManagerRunOnOp(manager.to_raw(), op.to_raw()).value != 0 }
}

/// Runs MLIR's verifier on `op`; failures go to the diagnostic handlers.
pub fn verify(op: OperationRef<'_, '_>) -> bool {
    unsafe { mlirOperationVerify(op.to_raw()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::{block::BlockLike, RegionLike};

    /// Parallel verification of declared functions reports exactly what a
    /// sequential run does: the first broken function's errors, then stops.
    #[test]
    fn parallel_verification_reports_as_a_sequential_run() {
        let context = crate::dialect::create_context(true, false);
        let sink = DiagnosticSink::default();
        attach_diagnostic_sink(&context, sink.clone());
        let functions: String = (0..100).map(|i| format!("func.func @f{i}() {{\n  return\n}}\n")).collect();
        let source = format!("module {{\n{functions}}}\n");
        let module = parse_operation(&context, &SourceText::new(&source), "many.mlir").expect("parses");
        let functions: Vec<usize> = crate::passes::ir::ops(module.region(0).unwrap().first_block().unwrap())
            .map(|op| op.to_raw().ptr as usize)
            .collect();
        assert!(functions.len() >= PARALLEL_VERIFY_MIN);
        assert!(verify_in_parallel(&functions, 2), "all verify");
        for broken in [70, 30, 95] {
            let func = unsafe { OperationRef::from_raw(MlirOperation { ptr: functions[broken] as *mut c_void }) };
            let ret = func.region(0).unwrap().first_block().unwrap().terminator().unwrap();
            unsafe {
                mlirOperationRemoveFromParent(ret.to_raw());
                mlirOperationDestroy(ret.to_raw());
            }
        }
        let sequential = functions.iter().all(|&op| unsafe { verify_address(op) });
        let expected = sink.take();
        assert!(!sequential);
        assert!(!expected.is_empty() && expected.iter().all(|d| d.loc == expected[0].loc));
        for _ in 0..5 {
            assert!(!verify_in_parallel(&functions, 2));
            assert_eq!(sink.take(), expected);
        }
        // The path a pass run takes, with the context's own thread count.
        let anchor = unsafe { OperationRef::from_raw(module.to_raw()) };
        assert!(!unsafe { verify_changes(anchor, Changes::Ops(functions.clone())) });
        assert_eq!(sink.take(), expected);
    }

    /// Only functions side by side are verified at once: not an op together
    /// with one inside it, not ops sharing a block.
    #[test]
    fn only_sibling_functions_are_verified_at_once() {
        let context = crate::dialect::create_context(true, false);
        let source = "module {\n  func.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.addi %b, %b : i32\n    return\n  }\n  func.func @g() {\n    return\n  }\n}\n";
        let module = parse_operation(&context, &SourceText::new(source), "t.mlir").expect("parses");
        let address = |op: OperationRef<'_, '_>| op.to_raw().ptr as usize;
        let top: Vec<OperationRef<'_, '_>> =
            crate::passes::ir::ops(module.region(0).unwrap().first_block().unwrap()).collect();
        let body: Vec<usize> = crate::passes::ir::ops(top[0].region(0).unwrap().first_block().unwrap())
            .map(address)
            .collect();
        unsafe {
            assert!(sibling_functions(&[address(top[0]), address(top[1])]));
            assert!(!sibling_functions(&[address(top[0]), module.to_raw().ptr as usize]));
            assert!(!sibling_functions(&body));
        }
    }
}
