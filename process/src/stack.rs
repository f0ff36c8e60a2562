//! The stack the tools run on. MLIR's parser, verifier and printer recurse
//! once per nesting level, so the tools run on a big stack of their own:
//! address space mapped without reserving memory, committed only as deep
//! nests touch it, with a guard page below it.
//!
//! The stack is the main thread's, switched to (`psm::on_stack`), not a
//! second thread's. A second thread would make the process differ from
//! mlir-opt's in two ways that show after memory corruption inside MLIR
//! (corrupted bytecode overflows a buffer in MLIR's reader): its
//! allocations come from a malloc arena of its own, so an overflow reaches
//! the arena's unmapped end and faults where mlir-opt's main-thread heap
//! reports a parse error; and glibc locks its arenas only once a process has
//! more than one thread, so a crash inside malloc leaves the lock held and
//! LLVM's crash handler, which allocates, waits on it forever.
//!
//! How big: 8 GiB where the address space allows it. Under an address-space
//! or data limit (`ulimit -v`, `ulimit -d`, as batch schedulers and CI
//! containers set them) the stack takes a sixteenth of what is left at
//! start-up, at least [`LIMITED_FLOOR_BYTES`] where a quarter of it allows,
//! leaving the rest to the heap: every byte of stack is a byte of heap
//! mlir-opt has and the tool has not, so an input that asks MLIR for nearly
//! all of the address space (a corrupted bytecode count) ends as it does in
//! mlir-opt unless its request falls in that share. The nesting the tools
//! accept shrinks with the stack (see [`nesting_for`]), but not below what
//! mlir-opt's default stack holds while the room allows.

use std::ffi::c_void;

/// The stack reserved when the address space allows it.
pub const FULL_BYTES: usize = 8 << 30;

/// The deepest bracket nesting a stack of [`FULL_BYTES`] is trusted with.
/// MLIR's parser, verifier and printer use well under 16 KiB of stack per
/// level (measured: see docs/ccl-opt.md); this leaves about 42 KiB.
pub const FULL_NESTING: usize = 200_000;

/// The share of the room left under a limit the stack takes (one part in
/// this many).
pub const ROOM_SHARE: usize = 16;

/// The least stack taken under a limit, where a quarter of the room holds
/// it: [`nesting_for`] trusts it with 3,125 levels, about what mlir-opt
/// parses on its default 8 MiB stack (docs/ccl-opt.md, "Limits").
pub const LIMITED_FLOOR_BYTES: usize = 128 << 20;

/// The smallest stack the tools run on (a default thread's): below it the
/// address space left is too small for MLIR to do anything anyway.
pub const MIN_BYTES: usize = 8 << 20;

/// The deepest nesting a stack of `bytes` holds: [`FULL_NESTING`] scaled to
/// the stack's size.
pub fn nesting_for(bytes: usize) -> usize {
    (FULL_NESTING as u128 * bytes.min(FULL_BYTES) as u128 / FULL_BYTES as u128) as usize
}

/// The stack to ask for when `room` bytes of address space are left under
/// the process's limits (`None`: no limit): all of [`FULL_BYTES`] if a
/// [`ROOM_SHARE`]th of the room holds it, else that share of the room but
/// at least [`LIMITED_FLOOR_BYTES`] (at most a quarter of the room), in
/// whole pages.
pub fn size_for(room: Option<usize>, page: usize) -> usize {
    let share = |room: usize| (room / ROOM_SHARE).max(LIMITED_FLOOR_BYTES.min(room / 4));
    let wanted = room.map_or(FULL_BYTES, |room| share(room).min(FULL_BYTES));
    wanted / page * page
}

/// A mapped stack, unmapped when dropped.
pub struct Stack {
    base: *mut u8,
    mapped: usize,
    bytes: usize,
}

impl Stack {
    /// Maps the stack the limits allow (see the module comment); a smaller
    /// one if that mapping fails, down to [`MIN_BYTES`].
    pub fn reserve() -> Result<Stack, String> {
        let page = page_size();
        let mut bytes = size_for(room_under_limits(), page);
        let first = bytes;
        while bytes >= MIN_BYTES {
            if let Some(stack) = Stack::map(bytes, page) {
                return Ok(stack);
            }
            bytes = bytes / 2 / page * page;
        }
        Err(format!(
            "error: cannot reserve a stack for the tool to run on ({} MiB, nor down to {} MiB) under this process's \
             address-space limit (ulimit -v) or data limit (ulimit -d)",
            first >> 20,
            MIN_BYTES >> 20
        ))
    }

    fn map(bytes: usize, page: usize) -> Option<Stack> {
        let mapped = bytes + page;
        // SAFETY: a fresh anonymous mapping, owned by the returned value;
        // its lowest page becomes the guard.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return None;
            }
            if libc::mprotect(base, page, libc::PROT_NONE) != 0 {
                libc::munmap(base, mapped);
                return None;
            }
            Some(Stack { base: base as *mut u8, mapped, bytes })
        }
    }

    /// The usable size (the guard page not counted).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Runs `f` on this stack, on the calling thread. A panic in `f` is
    /// carried back across the switch and resumed here.
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        let guard = self.mapped - self.bytes;
        // SAFETY: `base + guard .. base + mapped` is mapped read-write, page
        // aligned, with the guard page below it; the closure cannot unwind
        // through the switch (the panic is caught on the new stack).
        let result = unsafe {
            psm::on_stack(self.base.add(guard), self.bytes, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            })
        };
        result.unwrap_or_else(|payload| std::panic::resume_unwind(payload))
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, no longer in use.
        unsafe { libc::munmap(self.base as *mut c_void, self.mapped) };
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        page as usize
    } else {
        4096
    }
}

/// The address space left under `RLIMIT_AS` and the private writable memory
/// left under `RLIMIT_DATA` (which a stack mapping counts against), the
/// smaller; `None` when neither is limited.
fn room_under_limits() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let used = |field: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
            .map_or(0, |kib| kib << 10)
    };
    [(libc::RLIMIT_AS, "VmSize:"), (libc::RLIMIT_DATA, "VmData:")]
        .into_iter()
        .filter_map(|(resource, field)| soft_limit(resource).map(|limit| limit.saturating_sub(used(field))))
        .min()
}

fn soft_limit(resource: libc::__rlimit_resource_t) -> Option<usize> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_stack_when_unlimited_a_sixteenth_of_the_room_otherwise() {
        assert_eq!(size_for(None, 4096), FULL_BYTES);
        assert_eq!(size_for(Some(usize::MAX), 4096), FULL_BYTES);
        assert_eq!(size_for(Some(3 << 30), 4096), 3 << 26);
        assert_eq!(size_for(Some((4 << 30) + 4096 * 17), 4096), (1 << 28) + 4096);
        // The floor where a sixteenth is less, a quarter where the floor is more.
        assert_eq!(size_for(Some(1 << 30), 4096), LIMITED_FLOOR_BYTES);
        assert_eq!(size_for(Some((256 << 20) + 4096 * 5), 4096), (64 << 20) + 4096);
    }

    #[test]
    fn nesting_scales_with_the_stack() {
        assert_eq!(nesting_for(FULL_BYTES), FULL_NESTING);
        assert_eq!(nesting_for(2 * FULL_BYTES), FULL_NESTING);
        assert_eq!(nesting_for(FULL_BYTES / 4), FULL_NESTING / 4);
        assert_eq!(nesting_for(0), 0);
    }

    #[test]
    fn a_closure_runs_on_the_reserved_stack_and_returns() {
        let stack = Stack::reserve().expect("a stack");
        let marker = 0u8;
        let here = &marker as *const u8 as usize;
        let (inside, value) = stack.run(|| {
            let local = 0u8;
            (&local as *const u8 as usize, 42)
        });
        assert_eq!(value, 42);
        let (low, high) = (stack.base as usize, stack.base as usize + stack.mapped);
        assert!((low..high).contains(&inside), "the closure ran off the reserved stack");
        assert!(!(low..high).contains(&here));
    }

    #[test]
    fn a_panic_on_the_stack_comes_back() {
        let stack = Stack::reserve().expect("a stack");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stack.run(|| panic!("inside"))));
        assert!(caught.is_err());
    }
}
