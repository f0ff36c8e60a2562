//! The tool mains: `ccl-opt` (MLIR's `MlirOptMain`), `ccl-lsp-server`
//! (`MlirLspServerMain`) and `ccl-reduce` (`mlirReduceMain`), each with
//! every upstream dialect and pass, the ccl dialect and the Rust passes. The
//! work runs on the main thread switched to a large reserved stack
//! ([`super::stack`]), because MLIR's parser, verifier and printer recurse
//! once per nesting level; the input is checked against the depth that
//! stack holds before MLIR sees it.

use super::{
    bridge, crash,
    stack::{self, Stack},
    strings::{bytes, owned},
    sys,
};
use crate::{
    diagnostics::{Diagnostic, Severity, SourceLoc},
    input,
    output::OutputFile,
    statistics::{self, Display, PassStatistics},
};
use mlir_sys::MlirStringRef;
use std::{
    cell::RefCell,
    ffi::{c_char, c_int, c_void, CString},
    sync::atomic::{AtomicUsize, Ordering},
};

/// The deepest bracket nesting the input may have: what the stack the tool
/// runs on holds ([`stack::nesting_for`]), set before the tool main runs.
static MAX_NESTING: AtomicUsize = AtomicUsize::new(0);

/// Whether LLVM's crash handlers are the tool's (as in mlir-opt and
/// mlir-reduce; mlir-lsp-server installs none).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CrashHandlers {
    Llvm,
    None,
}

/// Runs `main` (a C main: argc, argv) with the process's arguments on a
/// reserved stack; returns its exit code.
fn run_on_big_stack(handlers: CrashHandlers, main: impl FnOnce(c_int, *mut *mut c_char) -> c_int) -> i32 {
    if handlers == CrashHandlers::Llvm {
        crash::install_watchdog();
    }
    let stack = match Stack::reserve() {
        Ok(stack) => stack,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    MAX_NESTING.store(stack::nesting_for(stack.bytes()), Ordering::SeqCst);
    let args: Vec<CString> = std::env::args_os()
        .map(|arg| CString::new(std::os::unix::ffi::OsStrExt::as_bytes(arg.as_os_str())).unwrap_or_default())
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    stack.run(|| main(args.len() as c_int, argv.as_mut_ptr()))
}

/// `ccl-opt`: mlir-opt with the ccl dialect and passes.
pub fn opt_main() -> i32 {
    run_on_big_stack(CrashHandlers::Llvm, |argc, argv| unsafe { sys::cclOptMain(argc, argv, &OPT_HOOKS) })
}

/// `ccl-lsp-server`.
pub fn lsp_server_main() -> i32 {
    run_on_big_stack(CrashHandlers::None, |argc, argv| unsafe { sys::cclLspServerMain(argc, argv) })
}

/// `ccl-reduce`.
pub fn reduce_main() -> i32 {
    run_on_big_stack(CrashHandlers::Llvm, |argc, argv| unsafe { sys::cclReduceMain(argc, argv, bridge::register_rust) })
}

static OPT_HOOKS: sys::CclOptHooks = sys::CclOptHooks {
    register_rust: bridge::register_rust,
    check_input,
    open_output,
    write_output,
    close_output,
    suggest,
    print_statistics,
    record_diagnostic: super::opt_sarif::record_diagnostic,
    write_sarif: super::opt_sarif::write_sarif,
};

thread_local! {
    static MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `text` for the C++ caller and points `out` at it.
unsafe fn set_message(out: *mut *const c_char, text: &str) {
    let text = CString::new(text.replace('\0', " ")).unwrap_or_default();
    MESSAGE.with(|slot| {
        *slot.borrow_mut() = text;
        if !out.is_null() {
            unsafe { *out = slot.borrow().as_ptr() };
        }
    });
}

/// Runs a hook body; a panic becomes a failure with its message.
pub(super) unsafe fn guarded<T>(failed: T, message: *mut *const c_char, body: impl FnOnce() -> Result<T, String>) -> T {
    match crate::panic::catch_in_callback(body) {
        Ok(Ok(value)) => value,
        Ok(Err(text)) => {
            unsafe { set_message(message, &text) };
            failed
        }
        Err(payload) => {
            unsafe { set_message(message, &format!("internal error: {}", crate::panic::message(&payload))) };
            failed
        }
    }
}

unsafe extern "C" fn check_input(
    data: *const c_char,
    length: usize,
    name: MlirStringRef,
    message: *mut *const c_char,
) -> c_int {
    unsafe {
        guarded(0, message, || {
            let text = if length == 0 { &[][..] } else { std::slice::from_raw_parts(data as *const u8, length) };
            // Each rejection is recorded for `--sarif` as it is printed.
            input::bytecode::check(text).map_err(|corrupt| {
                let diagnostic = corrupt.diagnostic(&owned(name));
                let text = diagnostic.to_string();
                super::opt_sarif::record(diagnostic);
                text
            })?;
            input::check_nesting(text, MAX_NESTING.load(Ordering::SeqCst)).map(|()| 1).map_err(|deep| {
                let loc = SourceLoc::File { file: owned(name), line: deep.line as u32, col: deep.col as u32 };
                let message = format!("nesting deeper than {} levels: the parser's stack would overflow", deep.limit);
                let text = format!("{loc}: error: {message}");
                super::opt_sarif::record(Diagnostic { severity: Severity::Error, loc, message, notes: Vec::new() });
                text
            })
        })
    }
}

unsafe extern "C" fn open_output(path: MlirStringRef, message: *mut *const c_char) -> *mut c_void {
    unsafe {
        guarded(std::ptr::null_mut(), message, || {
            OutputFile::open(&owned(path)).map(|file| Box::into_raw(Box::new(file)) as *mut c_void)
        })
    }
}

unsafe extern "C" fn write_output(
    handle: *mut c_void,
    data: *const c_char,
    length: usize,
    message: *mut *const c_char,
) -> c_int {
    unsafe {
        guarded(0, message, || {
            let file = &mut *(handle as *mut OutputFile);
            let bytes = if length == 0 { &[][..] } else { std::slice::from_raw_parts(data as *const u8, length) };
            file.write(bytes).map(|()| 1)
        })
    }
}

unsafe extern "C" fn close_output(handle: *mut c_void, keep: c_int, message: *mut *const c_char) -> c_int {
    unsafe {
        guarded(0, message, || {
            let file = Box::from_raw(handle as *mut OutputFile);
            file.close(keep != 0).map(|()| 1)
        })
    }
}

unsafe extern "C" fn suggest(unknown: MlirStringRef, names: *const MlirStringRef, count: usize) -> *const c_char {
    let found = crate::panic::catch_in_callback(|| {
        let unknown = unsafe { owned(unknown) };
        let names: Vec<String> =
            (0..count).map(|i| unsafe { String::from_utf8_lossy(bytes(*names.add(i))).into_owned() }).collect();
        crate::suggest::nearest(&unknown, names.iter().map(String::as_str)).map(str::to_string)
    });
    match found {
        Ok(Some(name)) => {
            unsafe { set_message(std::ptr::null_mut(), &name) };
            MESSAGE.with(|slot| slot.borrow().as_ptr())
        }
        _ => std::ptr::null(),
    }
}

unsafe extern "C" fn print_statistics(
    pipeline: MlirStringRef,
    count: usize,
    arguments: *const MlirStringRef,
    names: *const MlirStringRef,
    handles: *const *mut c_void,
    list: c_int,
) {
    let _ = crate::panic::catch_in_callback(|| {
        let pipeline = unsafe { owned(pipeline) };
        let arguments: Vec<String> = (0..count).map(|i| unsafe { owned(*arguments.add(i)) }).collect();
        let argument_refs: Vec<&str> = arguments.iter().map(String::as_str).collect();
        let nesting = statistics::nesting_of(&pipeline, &argument_refs);
        let passes: Vec<PassStatistics> = (0..count)
            .filter_map(|i| {
                let counters = unsafe { bridge::share_counters(*handles.add(i)) }?;
                Some(PassStatistics {
                    argument: arguments[i].clone(),
                    name: unsafe { owned(*names.add(i)) },
                    nesting: nesting[i].clone(),
                    counters,
                })
            })
            .collect();
        let display = if list != 0 { Display::List } else { Display::Pipeline };
        eprint!("{}", statistics::report(&passes, display));
    });
}

/// Makes a signal that kills the process remove `path` (a temporary output
/// file), or stops doing so once the file is renamed into place.
pub fn remove_on_signal(path: &std::path::Path, remove: bool) {
    let text = path.to_string_lossy();
    unsafe { sys::cclRemoveFileOnSignal(super::strings::string_ref(&text), remove) };
}
