//! The tool mains: `ccl-opt` (MLIR's `MlirOptMain`), `ccl-lsp-server`
//! (`MlirLspServerMain`) and `ccl-reduce` (`mlirReduceMain`), each with
//! every upstream dialect and pass, the ccl dialect, and (but for the
//! language server) the Rust passes of a [`Catalog`]. The work runs on the main thread switched to a large
//! reserved stack (`cclir_process::stack`), because MLIR's parser, verifier and
//! printer recurse once per nesting level.
//!
//! What `ccl-opt` does beyond mlir-opt (checking the input before MLIR
//! reads it, writing the output file, suggesting a pass name, printing the
//! statistics) is the caller's, as safe functions in [`OptHooks`]; this
//! module makes the C callbacks around them.

use super::{
    bridge::{self, guarded, register_rust, set_message, Catalog},
    strings::{bytes, owned, string_ref},
    sys,
};
use crate::diagnostics::Diagnostic;
use cclir_pass_framework::Counters;
use cclir_process::{
    crash,
    stack::{self, Stack},
};
use mlir_sys::{MlirDiagnostic, MlirStringRef};
use std::{
    ffi::{c_char, c_int, c_void, CString},
    sync::OnceLock,
};

/// An output file `ccl-opt -o` writes: in chunks, then closed, kept only if
/// the run succeeded.
pub trait OutputSink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String>;
    fn close(self: Box<Self>, keep: bool) -> Result<(), String>;
}

/// What `ccl-opt` does beyond mlir-opt; every error is the whole message
/// the tool prints.
pub struct OptHooks {
    /// Checks an input buffer named `name` before MLIR reads it; the stack
    /// holds `max_nesting` levels of brackets.
    pub check_input: fn(text: &[u8], name: &str, max_nesting: usize) -> Result<(), String>,
    /// Opens the output file `path`.
    pub open_output: fn(path: &str) -> Result<Box<dyn OutputSink>, String>,
    /// The registered pass name nearest to an unknown one, if any is near.
    pub suggest: fn(unknown: &str, names: &[String]) -> Option<String>,
    /// Prints the statistics of the Rust passes of a pipeline
    /// (`--mlir-pass-statistics`; `list` for its `=list` display).
    pub print_statistics: fn(pipeline: &str, passes: Vec<PipelinePass>, list: bool),
    /// `--sarif=FILE`: keeps a diagnostic of the run (with its notes) for
    /// the log.
    pub record_diagnostic: fn(diagnostic: Diagnostic),
    /// `--sarif=FILE`: writes the diagnostics kept so far as a SARIF log to
    /// `path`, for a run that ends with `exit_code`.
    pub write_sarif: fn(path: &str, exit_code: i32) -> Result<(), String>,
}

/// A Rust pass of the pipeline `ccl-opt` ran, in pipeline order.
pub struct PipelinePass {
    pub argument: String,
    pub name: String,
    /// Its statistics (`None` if they could not be made).
    pub counters: Option<Counters>,
}

/// The hooks of the running `ccl-opt`, and the deepest nesting its stack
/// holds (set before the tool main runs).
static OPT: OnceLock<(&'static OptHooks, usize)> = OnceLock::new();

/// Whether LLVM's crash handlers are the tool's (as in mlir-opt and
/// mlir-reduce; mlir-lsp-server installs none).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CrashHandlers {
    Llvm,
    None,
}

/// Runs `main` (a C main: argc, argv) with the process's arguments on a
/// reserved stack, given the nesting that stack holds; returns its exit
/// code.
fn run_on_big_stack(handlers: CrashHandlers, main: impl FnOnce(usize, c_int, *mut *mut c_char) -> c_int) -> i32 {
    if handlers == CrashHandlers::Llvm {
        // SAFETY: registers LLVM's handlers; no Rust state is involved.
        crash::install_watchdog(|| unsafe { sys::cclRegisterSignalHandlers() });
    }
    let stack = match Stack::reserve() {
        Ok(stack) => stack,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    let nesting = stack::nesting_for(stack.bytes());
    let args: Vec<CString> = std::env::args_os()
        .map(|arg| CString::new(std::os::unix::ffi::OsStrExt::as_bytes(arg.as_os_str())).unwrap_or_default())
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    stack.run(|| main(nesting, args.len() as c_int, argv.as_mut_ptr()))
}

/// `ccl-opt`: mlir-opt with the ccl dialect and `catalog`'s passes.
pub fn opt_main(catalog: &'static Catalog, hooks: &'static OptHooks) -> i32 {
    bridge::set_catalog(catalog);
    run_on_big_stack(CrashHandlers::Llvm, |nesting, argc, argv| {
        OPT.get_or_init(|| (hooks, nesting));
        // SAFETY: `argv` holds `argc` NUL-terminated arguments and a null,
        // alive for the call; the hooks are callbacks of the glue's types.
        unsafe { sys::cclOptMain(argc, argv, &OPT_HOOKS) }
    })
}

/// `ccl-lsp-server` (the language server knows no passes).
pub fn lsp_server_main() -> i32 {
    // SAFETY: as in `opt_main`.
    run_on_big_stack(CrashHandlers::None, |_, argc, argv| unsafe { sys::cclLspServerMain(argc, argv) })
}

/// `ccl-reduce`.
pub fn reduce_main(catalog: &'static Catalog) -> i32 {
    bridge::set_catalog(catalog);
    // SAFETY: as in `opt_main`.
    run_on_big_stack(CrashHandlers::Llvm, |_, argc, argv| unsafe { sys::cclReduceMain(argc, argv, register_rust) })
}

static OPT_HOOKS: sys::CclOptHooks = sys::CclOptHooks {
    register_rust,
    check_input,
    open_output,
    write_output,
    close_output,
    suggest,
    print_statistics,
    record_diagnostic,
    write_sarif,
};

/// The hooks `opt_main` stored before it handed these callbacks to C++.
fn hooks() -> (&'static OptHooks, usize) {
    *OPT.get().expect("opt_main stores the hooks before MLIR calls them")
}

/// `length` bytes at `data`.
///
/// # Safety
/// `data` must point at `length` readable bytes for `'d`, or `length` be 0.
unsafe fn buffer<'d>(data: *const c_char, length: usize) -> &'d [u8] {
    if length == 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(data as *const u8, length) }
    }
}

/// `ccl-opt`'s input check (the glue calls it before MLIR parses a buffer).
///
/// # Safety
/// `data` points at `length` readable bytes and `name` is readable, for
/// the call; `message` is null or a writable `const char *`.
unsafe extern "C" fn check_input(
    data: *const c_char,
    length: usize,
    name: MlirStringRef,
    message: *mut *const c_char,
) -> c_int {
    let check = || {
        let (hooks, nesting) = hooks();
        // SAFETY: the glue passes the input buffer and its name, readable
        // for the call.
        let (text, name) = unsafe { (buffer(data, length), owned(name)) };
        (hooks.check_input)(text, &name, nesting).map(|()| 1)
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    unsafe { guarded(0, message, check) }
}

/// The output file behind a handle: `open_output` boxes the hook's box
/// again for a thin pointer.
type Output = Box<dyn OutputSink>;

/// Opens `ccl-opt -o FILE`: a handle for `write_output` and `close_output`.
///
/// # Safety
/// `path` is readable for the call; `message` is null or a writable
/// `const char *`.
unsafe extern "C" fn open_output(path: MlirStringRef, message: *mut *const c_char) -> *mut c_void {
    let open = || {
        // SAFETY: the glue passes the path, readable for the call.
        let path = unsafe { owned(path) };
        (hooks().0.open_output)(&path).map(|file| Box::into_raw(Box::new(file)) as *mut c_void)
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    unsafe { guarded(std::ptr::null_mut(), message, open) }
}

/// Writes a chunk of `ccl-opt`'s output to the file of `handle`.
///
/// # Safety
/// `handle` comes from `open_output`, is not closed, and is used by one
/// call at a time; `data` points at `length` readable bytes for the call;
/// `message` is null or a writable `const char *`.
unsafe extern "C" fn write_output(
    handle: *mut c_void,
    data: *const c_char,
    length: usize,
    message: *mut *const c_char,
) -> c_int {
    let write = || {
        // SAFETY: a handle from `open_output` not yet closed, used by one
        // call at a time.
        let file = unsafe { &mut *(handle as *mut Output) };
        // SAFETY: the glue passes a chunk readable for the call.
        file.write(unsafe { buffer(data, length) }).map(|()| 1)
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    unsafe { guarded(0, message, write) }
}

/// Closes the output file of `handle`, keeping it or not; frees the handle.
///
/// # Safety
/// `handle` comes from `open_output` and is closed once (the glue forgets
/// it after this call); `message` is null or a writable `const char *`.
unsafe extern "C" fn close_output(handle: *mut c_void, keep: c_int, message: *mut *const c_char) -> c_int {
    let close = || {
        // SAFETY: a handle from `open_output`, closed once (the glue
        // forgets it after this call).
        let file = unsafe { Box::from_raw(handle as *mut Output) };
        file.close(keep != 0).map(|()| 1)
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    unsafe { guarded(0, message, close) }
}

/// "Did you mean": the registered name nearest to `unknown`, or null.
///
/// # Safety
/// `unknown` and the `count` strings at `names` are readable for the call.
unsafe extern "C" fn suggest(unknown: MlirStringRef, names: *const MlirStringRef, count: usize) -> *const c_char {
    let found = crate::panic::catch_in_callback(|| {
        // SAFETY: the glue passes the unknown name and `count` names,
        // readable for the call.
        let unknown = unsafe { owned(unknown) };
        let names: Vec<String> =
            // SAFETY: as above.
            (0..count).map(|i| unsafe { String::from_utf8_lossy(bytes(*names.add(i))).into_owned() }).collect();
        (hooks().0.suggest)(&unknown, &names)
    });
    match found {
        // SAFETY: a null out-parameter is allowed; the glue copies the kept
        // text before the next callback.
        Ok(Some(name)) => unsafe { set_message(std::ptr::null_mut(), &name) },
        _ => std::ptr::null(),
    }
}

/// Prints the statistics of the Rust passes of a pipeline run.
///
/// # Safety
/// `pipeline` and the `count` arguments and names are readable, and the
/// `count` handles at `handles` are live statistics handles, for the call.
unsafe extern "C" fn print_statistics(
    pipeline: MlirStringRef,
    count: usize,
    arguments: *const MlirStringRef,
    names: *const MlirStringRef,
    handles: *const *mut c_void,
    list: c_int,
) {
    let _ = crate::panic::catch_in_callback(|| {
        // SAFETY: the glue passes the pipeline text and `count` arguments,
        // names and statistics handles (live), readable for the call.
        let pipeline = unsafe { owned(pipeline) };
        let passes: Vec<PipelinePass> = (0..count)
            .map(|i| PipelinePass {
                // SAFETY: as above.
                argument: unsafe { owned(*arguments.add(i)) },
                // SAFETY: as above.
                name: unsafe { owned(*names.add(i)) },
                // SAFETY: as above.
                counters: unsafe { bridge::share_counters(*handles.add(i)) },
            })
            .collect();
        (hooks().0.print_statistics)(&pipeline, passes, list != 0);
    });
}

/// `--sarif=FILE`: keeps a diagnostic of the run for the log.
///
/// # Safety
/// `diagnostic` is live for the call (MLIR hands handlers live ones).
unsafe extern "C" fn record_diagnostic(diagnostic: MlirDiagnostic) {
    // A panic must not cross into MLIR's diagnostic engine.
    let _ = crate::panic::catch_in_callback(|| {
        // SAFETY: MLIR hands its handlers a live diagnostic.
        let diagnostic = unsafe { super::driver::convert_diagnostic(diagnostic) };
        (hooks().0.record_diagnostic)(diagnostic);
    });
}

/// `--sarif=FILE`: writes the diagnostics kept so far.
///
/// # Safety
/// `path` is readable for the call; `message` is null or a writable
/// `const char *`.
unsafe extern "C" fn write_sarif(path: MlirStringRef, exit_code: c_int, message: *mut *const c_char) -> c_int {
    let write = || {
        // SAFETY: the glue passes the path, readable for the call.
        let path = unsafe { owned(path) };
        (hooks().0.write_sarif)(&path, exit_code).map(|()| 1)
    };
    // SAFETY: `message` is the glue's writable out-parameter.
    unsafe { guarded(0, message, write) }
}

/// Makes a signal that kills the process remove `path` (a temporary output
/// file), or stops doing so once the file is renamed into place.
pub fn remove_on_signal(path: &std::path::Path, remove: bool) {
    let text = path.to_string_lossy();
    // SAFETY: the glue copies the path before it returns.
    unsafe { sys::cclRemoveFileOnSignal(string_ref(&text), remove) };
}
