//! A crash ends the process promptly. LLVM's crash handler (installed by
//! the tool mains, as in mlir-opt) prints a stack trace before the process
//! dies of the signal, and printing allocates: it loads libgcc_s for
//! `backtrace`, formats, and runs `llvm-symbolizer`. After memory corruption
//! in a process with more than one thread, the crash may have happened
//! inside malloc with an arena lock held, and the handler then waits on that
//! lock forever; a symbolizer that never returns does the same.
//!
//! So each fatal signal first arms a timer, then runs LLVM's handler. If
//! the handler has not finished when the timer fires, the process ends as
//! the crash would have: by the same signal, with its default action. Only
//! async-signal-safe calls are made in the handlers. The timer is a POSIX
//! timer of its own, not `alarm`: LLVM's stack printer arms and cancels
//! `alarm` around each entry it prints. Its `SIGALRM` is ours too once a
//! crash began, so a stuck entry ends the process the same way.

use std::{
    ffi::{c_int, c_void},
    sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering},
};

/// How long LLVM's handler may take to print the stack trace (it takes well
/// under a second when it finishes at all).
pub const WATCHDOG_SECONDS: u32 = 5;

/// The signals LLVM's handler treats as crashes (its `KillSigs`).
const FATAL_SIGNALS: [c_int; 10] = [
    libc::SIGILL,
    libc::SIGTRAP,
    libc::SIGABRT,
    libc::SIGFPE,
    libc::SIGBUS,
    libc::SIGSEGV,
    libc::SIGQUIT,
    libc::SIGSYS,
    libc::SIGXCPU,
    libc::SIGXFSZ,
];

/// LLVM's handler for each of [`FATAL_SIGNALS`] (a `sa_sigaction`), 0 if
/// the signal was not LLVM's.
static WRAPPED: [AtomicUsize; FATAL_SIGNALS.len()] = [const { AtomicUsize::new(0) }; FATAL_SIGNALS.len()];

/// The first fatal signal the process received.
static CRASH_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The watchdog's timer (a `timer_t`), made before any crash: creating a
/// timer is not async-signal-safe, arming one is.
static TIMER: AtomicUsize = AtomicUsize::new(0);
static TIMER_MADE: AtomicBool = AtomicBool::new(false);

/// Installs the crash handlers with `install_handlers` (LLVM's, as the tool
/// mains would: `cclir-dialect` passes the glue's registration) and puts the
/// watchdog in front of each handler it installed for a fatal signal. Call
/// once, before a tool main.
pub fn install_watchdog(install_handlers: impl FnOnce()) {
    install_handlers();
    // SAFETY: timer_create writes the timer id it is given.
    unsafe {
        let mut event: libc::sigevent = std::mem::zeroed();
        event.sigev_notify = libc::SIGEV_SIGNAL;
        event.sigev_signo = libc::SIGALRM;
        let mut timer: libc::timer_t = std::ptr::null_mut();
        if libc::timer_create(libc::CLOCK_MONOTONIC, &mut event, &mut timer) == 0 {
            TIMER.store(timer as usize, Ordering::SeqCst);
            TIMER_MADE.store(true, Ordering::SeqCst);
        }
    }
    for (slot, &signal) in WRAPPED.iter().zip(&FATAL_SIGNALS) {
        // SAFETY: sigaction reads and writes the structs it is given.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut current) != 0
                || current.sa_flags & libc::SA_SIGINFO == 0
                || current.sa_sigaction == 0
            {
                continue;
            }
            slot.store(current.sa_sigaction, Ordering::SeqCst);
            let mut ours = current;
            ours.sa_sigaction = on_fatal_signal as SigAction as usize;
            libc::sigaction(signal, &ours, std::ptr::null_mut());
        }
    }
}

type SigAction = extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void);

extern "C" fn on_fatal_signal(signal: c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    let _ = CRASH_SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    arm_watchdog();
    let wrapped = FATAL_SIGNALS.iter().position(|&s| s == signal).map_or(0, |i| WRAPPED[i].load(Ordering::SeqCst));
    if wrapped != 0 {
        // SAFETY: the handler LLVM installed for this signal, called as the
        // kernel would have called it.
        let llvm: SigAction = unsafe { std::mem::transmute::<usize, SigAction>(wrapped) };
        llvm(signal, info, context);
    } else {
        end_by(signal);
    }
}

fn arm_watchdog() {
    // SAFETY: sigaction, sigprocmask, timer_settime and alarm are
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_watchdog as extern "C" fn(c_int) as usize;
        action.sa_flags = libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut());
        unblock(libc::SIGALRM);
        if TIMER_MADE.load(Ordering::SeqCst) {
            let mut when: libc::itimerspec = std::mem::zeroed();
            when.it_value.tv_sec = WATCHDOG_SECONDS as libc::time_t;
            libc::timer_settime(TIMER.load(Ordering::SeqCst) as libc::timer_t, 0, &when, std::ptr::null_mut());
        } else {
            libc::alarm(WATCHDOG_SECONDS);
        }
    }
}

extern "C" fn on_watchdog(_: c_int) {
    const MESSAGE: &[u8] = b"error: the crash handler did not finish; ending the process\n";
    // SAFETY: write is async-signal-safe.
    unsafe { libc::write(libc::STDERR_FILENO, MESSAGE.as_ptr() as *const c_void, MESSAGE.len()) };
    end_by(CRASH_SIGNAL.load(Ordering::SeqCst));
}

/// Ends the process by `signal` with its default action (`_exit` if that
/// returns, as it does for a signal whose default is to be ignored).
fn end_by(signal: c_int) {
    // SAFETY: sigaction, sigprocmask, raise and _exit are async-signal-safe.
    unsafe {
        if signal > 0 {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
            // SAFETY: a signal handler ends the process here.
            unblock(signal);
            libc::raise(signal);
        }
        libc::_exit(128 + signal.max(0));
    }
}

/// Unblocks `signal` for the calling thread.
///
/// # Safety
/// The caller is a signal handler or otherwise owns the thread's signal
/// mask (no other code of the thread relies on `signal` staying blocked).
unsafe fn unblock(signal: c_int) {
    // SAFETY: the caller's promise; the set is a local, initialised by
    // sigemptyset before use.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
}
