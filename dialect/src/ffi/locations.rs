//! Locations: where one points in the source (through name, call-site and
//! fused locations), the name of a name location, and new name locations.

use super::strings::{owned, string_ref};
use crate::diagnostics::SourceLoc;
use melior::ir::Location;
use mlir_sys::*;

/// The source position of `location` (the first file position inside name,
/// call-site and fused locations).
pub fn source_loc_of(location: Location<'_>) -> SourceLoc {
    // SAFETY: `location` is a live location.
    unsafe { source_loc(location.to_raw()) }
}

/// # Safety
/// `loc` must be a live location or null.
pub(super) unsafe fn source_loc(loc: MlirLocation) -> SourceLoc {
    if loc.ptr.is_null() {
        return SourceLoc::Unknown;
    }
    // SAFETY: `loc` is live (the caller's promise), read as each kind only
    // when it is one; what it holds is live in the same context.
    unsafe {
        if mlirLocationIsAFileLineColRange(loc) {
            return SourceLoc::File {
                file: owned(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc))),
                line: mlirLocationFileLineColRangeGetStartLine(loc).max(0) as u32,
                col: mlirLocationFileLineColRangeGetStartColumn(loc).max(0) as u32,
            };
        }
        if mlirLocationIsAName(loc) {
            return source_loc(mlirLocationNameGetChildLoc(loc));
        }
        if mlirLocationIsACallSite(loc) {
            return source_loc(mlirLocationCallSiteGetCaller(loc));
        }
        if mlirLocationIsAFused(loc) {
            let count = mlirLocationFusedGetNumLocations(loc);
            let mut locations = vec![MlirLocation { ptr: std::ptr::null() }; count as usize];
            mlirLocationFusedGetLocations(loc, locations.as_mut_ptr());
            return locations
                .into_iter()
                .map(|inner| source_loc(inner))
                .find(|inner| *inner != SourceLoc::Unknown)
                .unwrap_or(SourceLoc::Unknown);
        }
    }
    SourceLoc::Unknown
}

/// The name of a name location (`loc("ccl-lower-all-to-all-v.snapshot"(...))`
/// names the protocol step an op belongs to); `None` for other locations.
pub fn location_name(location: Location<'_>) -> Option<String> {
    let raw = location.to_raw();
    // SAFETY: `raw` is a live location, read as a name location only when
    // it is one.
    unsafe {
        if raw.ptr.is_null() || !mlirLocationIsAName(raw) {
            return None;
        }
        Some(owned(mlirIdentifierStr(mlirLocationNameGetName(raw))))
    }
}

/// A location named `name` around `child` (`loc("name"(child))`): ops of
/// one step of a synthesized kernel say which step they are.
pub fn named_location<'c>(name: &str, child: Location<'c>) -> Location<'c> {
    // SAFETY: `child` is live; the name is copied into the context.
    unsafe {
        let context = mlirLocationGetContext(child.to_raw());
        Location::from_raw(mlirLocationNameGet(context, string_ref(name), child.to_raw()))
    }
}
