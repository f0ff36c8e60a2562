//! How much memory a simulation holds, for its `--max-memory` bound.
//!
//! A binary whose global allocator reports to [`allocated`] and [`freed`]
//! (ccl-sim's does) gets an exact, cheap count of the bytes its heap holds,
//! read on every state; without it the count is the process's resident set,
//! read from `/proc/self/status` every [`RESIDENT_SAMPLE`] reads.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};

static LIVE: AtomicI64 = AtomicI64::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

/// Bytes a thread allocates or frees before it adds them to the shared
/// count. Every thread of the search allocates on every state: one shared
/// counter written on every allocation keeps its cache line moving between
/// the cores and costs more than the search gains from the second one. The
/// count is off by less than this per thread.
const BATCH: i64 = 64 << 10;

thread_local! {
    // A `const` initializer and no destructor: the allocator may use it
    // while the thread starts and ends.
    static PENDING: Cell<i64> = const { Cell::new(0) };
}

fn change(bytes: i64) {
    // `try_with`: past its thread-local storage a thread counts directly.
    let batched = PENDING.try_with(|pending| {
        let total = pending.get() + bytes;
        if total.abs() >= BATCH {
            pending.set(0);
            LIVE.fetch_add(total, Ordering::Relaxed);
        } else {
            pending.set(total);
        }
    });
    if batched.is_err() {
        LIVE.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// A global allocator handed out `bytes`.
pub fn allocated(bytes: usize) {
    change(bytes as i64);
    if !COUNTING.load(Ordering::Relaxed) {
        COUNTING.store(true, Ordering::Relaxed);
    }
}

/// A global allocator took `bytes` back.
pub fn freed(bytes: usize) {
    change(-(bytes as i64));
}

/// Reads of the resident set between two samples, without the counter.
const RESIDENT_SAMPLE: u32 = 256;
static READS: AtomicU32 = AtomicU32::new(0);
static RESIDENT: AtomicU64 = AtomicU64::new(0);

/// The bytes the process holds: the allocator's count if it reports one,
/// else the resident set as last sampled.
pub fn in_use() -> u64 {
    if COUNTING.load(Ordering::Relaxed) {
        // This thread's own bytes not yet added make the count exact for
        // one thread. One thread's frees may reach the shared count before
        // another's allocations of the same bytes.
        let own = PENDING.try_with(Cell::get).unwrap_or(0);
        return (LIVE.load(Ordering::Relaxed) + own).max(0) as u64;
    }
    if READS.fetch_add(1, Ordering::Relaxed).is_multiple_of(RESIDENT_SAMPLE) {
        RESIDENT.store(kib_field("/proc/self/status", "VmRSS:").unwrap_or(0), Ordering::Relaxed);
    }
    RESIDENT.load(Ordering::Relaxed)
}

/// A `Name:   123 kB` field of a /proc file, in bytes.
fn kib_field(path: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|line| line.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The default bound: half the machine's physical memory (4 GiB where it
/// cannot be read), and at most half the process's address-space limit
/// (`ulimit -v`): the heap the bound counts is not all the address space
/// the process maps (code, stacks, the allocator's reserve), and the bound
/// must stop the search before the system refuses memory.
pub fn default_limit() -> u64 {
    let physical = kib_field("/proc/meminfo", "MemTotal:").map(|total| total / 2).unwrap_or(4 << 30);
    address_space_limit().map_or(physical, |limit| physical.min(limit / 2))
}

/// The soft address-space limit of this process in bytes, `None` when
/// unlimited or unreadable (`/proc/self/limits`, "Max address space").
fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|line| line.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

/// `bytes` as people read it: `1.5 GiB`, `640 MiB`, `12 KiB`, `80 bytes`.
pub fn human(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            let value = bytes as f64 / size as f64;
            return if value >= 10.0 || value.fract() == 0.0 {
                format!("{value:.0} {unit}")
            } else {
                format!("{value:.1} {unit}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// Parses a size: a number of bytes, or a number with `K`, `M`, `G` or `T`
/// (powers of 1024; `KiB`, `MB` and the like are read the same).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return None,
    };
    number.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("3 kb"), Some(3 << 10));
        assert_eq!(parse_size("1.5G"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("99999999999T"), None);
        assert_eq!(parse_size("G"), None);
    }

    #[test]
    fn sizes_print_in_binary_units() {
        assert_eq!(human(80), "80 bytes");
        assert_eq!(human(3 << 30), "3 GiB");
        assert_eq!(human(1536 << 20), "1.5 GiB");
        assert_eq!(human(640 << 20), "640 MiB");
        assert_eq!(human((64 << 20) - 1), "64 MiB");
    }
}
