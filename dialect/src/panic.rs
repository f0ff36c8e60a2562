//! Panics never cross into MLIR: each callback catches them and turns them
//! into a diagnostic. This module formats a caught panic, and keeps the
//! default hook from printing a panic a callback is about to report (panics
//! anywhere else still reach the hook that was installed before).

use std::{any::Any, cell::Cell, cell::RefCell, sync::Once};

thread_local! {
    static LAST_PANIC_SITE: RefCell<Option<String>> = const { RefCell::new(None) };
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Installs the hook (once per process).
pub fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CALLBACK.with(Cell::get) {
                let site = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
                LAST_PANIC_SITE.with(|cell| *cell.borrow_mut() = site);
            } else {
                previous(info);
            }
        }))
    });
}

/// Runs `f` as an MLIR callback: a panic in it is caught, not printed.
pub fn catch_in_callback<R>(f: impl FnOnce() -> R) -> Result<R, Box<dyn Any + Send>> {
    let outer = IN_CALLBACK.with(|flag| flag.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_CALLBACK.with(|flag| flag.set(outer));
    result
}

/// The text of a caught panic, with its source site when the hook saw it.
pub fn message(payload: &Box<dyn Any + Send>) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    match LAST_PANIC_SITE.with(|cell| cell.borrow_mut().take()) {
        Some(site) => format!("{text} (at {site})"),
        None => text,
    }
}
