//! A global allocator that counts what it holds: the system allocator (or
//! another), telling a [`Meter`] of every allocation and free. `ccl-sim` installs it
//! so that its `--max-memory` bound reads an exact, cheap count
//! (`cclir_sim::memory`) instead of sampling the resident set.

use std::alloc::{GlobalAlloc, Layout, System};
use std::marker::PhantomData;

/// Where the counts go. Both are called from inside the allocator: they
/// must not allocate (an allocation would call them again) and must be
/// cheap (they run on every allocation of the process).
pub trait Meter {
    /// The allocator handed out `bytes`.
    fn allocated(bytes: usize);
    /// The allocator took `bytes` back.
    fn freed(bytes: usize);
    /// The allocator could not hand out `bytes`. Rust's default is to
    /// abort; a meter may end the process its own way instead (see
    /// [`exit_out_of_memory`]). Like the others, it must not allocate.
    fn failed(_bytes: usize) {}
}

/// Ends the process with exit code `code` after writing `message` and the
/// size asked for to stderr, without allocating and without running exit
/// handlers (MLIR's static destructors may allocate, or find the heap in
/// the state that failed): for [`Meter::failed`], where the alternative is
/// an abort.
pub fn exit_out_of_memory(message: &[u8], bytes: usize, code: i32) -> ! {
    // The size in decimal, on the stack.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = bytes;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for part in [message, &digits[at..], b" bytes: no conclusion\n"] {
        // SAFETY: `part` is a live, initialized byte slice of that length;
        // write(2) only reads it. A short or failed write loses part of
        // the message, nothing else.
        let _ = unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: _exit ends the process at once; it touches no Rust state.
    unsafe { libc::_exit(code) }
}

/// An allocator `A` (the system's unless named), reporting to `M`. Install
/// it in a binary with
/// `#[global_allocator] static ALLOCATOR: Counting<MyMeter> = Counting::new();`
/// or `Counting::over(OtherAllocator)`.
pub struct Counting<M, A = System> {
    inner: A,
    meter: PhantomData<fn(M)>,
}

impl<M> Counting<M> {
    pub const fn new() -> Self {
        Counting::over(System)
    }
}

impl<M, A> Counting<M, A> {
    /// `inner`, counted.
    pub const fn over(inner: A) -> Self {
        Counting { inner, meter: PhantomData }
    }
}

impl<M> Default for Counting<M> {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every method forwards to `A` with the caller's arguments, which
// meet `A`'s contract because they meet `GlobalAlloc`'s (`A` is one); the
// meter beside it is bookkeeping that never touches the memory (nor, by
// its contract, allocates).
unsafe impl<M: Meter, A: GlobalAlloc> GlobalAlloc for Counting<M, A> {
    /// # Safety
    /// As [`GlobalAlloc::alloc`].
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let pointer = unsafe { self.inner.alloc(layout) };
        if pointer.is_null() {
            M::failed(layout.size());
        } else {
            M::allocated(layout.size());
        }
        pointer
    }

    /// # Safety
    /// As [`GlobalAlloc::alloc_zeroed`].
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let pointer = unsafe { self.inner.alloc_zeroed(layout) };
        if pointer.is_null() {
            M::failed(layout.size());
        } else {
            M::allocated(layout.size());
        }
        pointer
    }

    /// # Safety
    /// As [`GlobalAlloc::dealloc`].
    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is (see the impl).
        unsafe { self.inner.dealloc(pointer, layout) };
        M::freed(layout.size());
    }

    /// # Safety
    /// As [`GlobalAlloc::realloc`].
    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let moved = unsafe { self.inner.realloc(pointer, layout, new_size) };
        if moved.is_null() {
            M::failed(new_size);
        } else {
            M::allocated(new_size);
            M::freed(layout.size());
        }
        moved
    }
}
