//! Reading a buffer into one top-level `builtin.module`, as mlir-opt does:
//! a buffer that is not a single module is wrapped in an implicit one.
//!
//! MLIR's C API parses exactly one top-level operation. To wrap without
//! moving any line, `module{` is put in front of the first line and `}` after
//! the last; diagnostics on line 1 are then shifted back by the prefix width.

use cclir_passes::framework::{Diagnostic, SourceLoc};
use melior::{
    ir::{
        block::BlockLike, operation::{OperationLike, WalkOrder, WalkResult}, Location, Operation, ValueLike,
        RegionLike,
    },
    Context,
};

pub const WRAP_PREFIX: &str = "module{";

/// Whether the first token of `text` (past comments and blank space) starts
/// an explicit module, so the buffer is parsed as it is.
pub fn starts_with_module(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//") {
            rest = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
            continue;
        }
        break;
    }
    rest.starts_with("module") || rest.starts_with("\"builtin.module\"") || rest.starts_with("builtin.module")
}

/// The buffer with the implicit module around it, ready for the parser.
pub fn wrap(text: &str) -> crate::diagnostics::SourceText {
    let mut wrapped = String::with_capacity(WRAP_PREFIX.len() + text.len() + 3);
    wrapped.push_str(WRAP_PREFIX);
    wrapped.push_str(text);
    wrapped.push_str("\n}");
    wrapped.into()
}

/// Moves diagnostics on line 1 of `buffer` back by the prefix width.
pub fn unshift(diagnostic: &mut Diagnostic, buffer: &str) {
    if let SourceLoc::File { file, line: 1, col } = &mut diagnostic.loc {
        if file == buffer {
            *col = col.saturating_sub(WRAP_PREFIX.len() as u32).max(1);
        }
    }
    for note in &mut diagnostic.notes {
        unshift(note, buffer);
    }
}

/// Undoes what the wrapping did to locations: the implicit module gets
/// `file:0:0` as in mlir-opt, and ops and block arguments on line 1 move back
/// by the prefix width. Line 1 is only walked when it holds code (a first
/// line of comments, the usual case, costs nothing).
pub fn restore_locations(context: &Context, module: &Operation<'_>, text: &str, buffer: &str) {
    unsafe {
        let name = mlir_sys::MlirStringRef { data: buffer.as_ptr() as *const _, length: buffer.len() };
        let origin = mlir_sys::mlirLocationFileLineColGet(context.to_raw(), name, 0, 0);
        mlir_sys::mlirOperationSetLocation(module.to_raw(), origin);
    }
    let first_line = text.split('\n').next().unwrap_or("");
    let code = first_line.split("//").next().unwrap_or("").trim();
    if code.is_empty() {
        return;
    }
    let shift = |location: Location<'_>| -> Option<mlir_sys::MlirLocation> {
        match SourceLoc::from_mlir(location) {
            SourceLoc::File { file, line: 1, col } if file == buffer && unsafe {
                mlir_sys::mlirLocationIsAFileLineColRange(location.to_raw())
            } => unsafe {
                let name = mlir_sys::MlirStringRef { data: buffer.as_ptr() as *const _, length: buffer.len() };
                let col = col.saturating_sub(WRAP_PREFIX.len() as u32).max(1);
                Some(mlir_sys::mlirLocationFileLineColGet(context.to_raw(), name, 1, col))
            },
            _ => None,
        }
    };
    module.walk(WalkOrder::PreOrder, |op| {
        if let Some(fixed) = shift(op.location()) {
            unsafe { mlir_sys::mlirOperationSetLocation(op.to_raw(), fixed) };
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    if let Ok(argument) = current.argument(index) {
                        let raw = argument.to_raw();
                        let location = unsafe { Location::from_raw(mlir_sys::mlirValueGetLocation(raw)) };
                        if let Some(fixed) = shift(location) {
                            unsafe { mlir_sys::mlirBlockArgumentSetLocation(raw, fixed) };
                        }
                    }
                }
                block = current.next_in_region();
            }
        }
        WalkResult::Advance
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_module_is_seen_past_comments() {
        assert!(starts_with_module("// RUN: x\n\nmodule {\n}"));
        assert!(!starts_with_module("// RUN: x\nfunc.func @f() {\n}"));
        assert_eq!(wrap("a\nb").text(), "module{a\nb\n}");
    }
}
