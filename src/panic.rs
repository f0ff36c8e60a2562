//! Panics never cross into MLIR: each callback catches them and turns them
//! into a diagnostic. This module formats a caught panic and keeps the default
//! hook from printing it a second time.

use std::{any::Any, cell::RefCell, sync::Once};

thread_local! {
    static LAST_PANIC_SITE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs a hook that records where a panic happened instead of printing it
/// (the catching callback reports it as a diagnostic).
pub fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let site = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
            LAST_PANIC_SITE.with(|cell| *cell.borrow_mut() = site);
        }))
    });
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
