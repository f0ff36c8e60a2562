//! MLIR's JIT (`ExecutionEngine`) for modules of functions over integers,
//! called with their types checked: the launch-width test runs the lowered
//! formula through it (`tests/launch_width_engine.rs`).
//!
//! A call goes through the packed wrapper MLIR's engine makes for every
//! function it compiles (`_mlir_<name>`, which takes one pointer per
//! argument and one for the result). Each pointer must point to storage of
//! the exact type the wrapper reads or writes, so the signatures are read
//! from the module before it is compiled, and a call is made only with
//! storage of those types.

use super::attributes::symbol_name;
use super::operations::op_name;
use super::strings::string_ref;
use super::walk::{blocks, ops, regions};
use melior::ir::{attribute::TypeAttribute, operation::OperationLike, Module};
use std::collections::HashMap;

/// The integer types a function may take and return here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    I8,
    I16,
    I32,
    I64,
}

impl Width {
    fn parse(text: &str) -> Option<Width> {
        match text {
            "i8" => Some(Width::I8),
            "i16" => Some(Width::I16),
            "i32" => Some(Width::I32),
            "i64" => Some(Width::I64),
            _ => None,
        }
    }
}

/// Storage of one argument or the result, of the width the wrapper uses.
enum Slot {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
}

impl Slot {
    /// `value` truncated to `width`, as a C caller passes it.
    fn new(width: Width, value: i64) -> Slot {
        match width {
            Width::I8 => Slot::I8(value as i8),
            Width::I16 => Slot::I16(value as i16),
            Width::I32 => Slot::I32(value as i32),
            Width::I64 => Slot::I64(value),
        }
    }

    fn pointer(&mut self) -> *mut () {
        match self {
            Slot::I8(value) => value as *mut i8 as *mut (),
            Slot::I16(value) => value as *mut i16 as *mut (),
            Slot::I32(value) => value as *mut i32 as *mut (),
            Slot::I64(value) => value as *mut i64 as *mut (),
        }
    }

    /// The value, sign-extended.
    fn value(&self) -> i64 {
        match *self {
            Slot::I8(value) => value.into(),
            Slot::I16(value) => value.into(),
            Slot::I32(value) => value.into(),
            Slot::I64(value) => value,
        }
    }
}

/// A function's parameter types and result type.
#[derive(Clone, Debug)]
struct Signature {
    inputs: Vec<Width>,
    result: Width,
}

/// `!llvm.func<i32 (i64, i32)>` as a signature, if every type in it is one
/// of [`Width`]'s (no `void`, no variadic arguments).
fn signature(function_type: &str) -> Option<Signature> {
    let inner = function_type.strip_prefix("!llvm.func<")?.strip_suffix('>')?;
    let (result, inputs) = inner.split_once(" (")?;
    let inputs = inputs.strip_suffix(')')?;
    let inputs = if inputs.is_empty() {
        Vec::new()
    } else {
        inputs.split(", ").map(Width::parse).collect::<Option<Vec<Width>>>()?
    };
    Some(Signature { inputs, result: Width::parse(result)? })
}

/// A module compiled by MLIR's JIT, whose functions of integer parameters
/// and an integer result (i8, i16, i32, i64) can be called.
pub struct IntegerJit {
    engine: mlir_sys::MlirExecutionEngine,
    signatures: HashMap<String, Signature>,
}

impl IntegerJit {
    /// Compiles `module` (in the LLVM dialect; its context must have the
    /// LLVM translations registered) at `optimization_level` (0 to 3).
    pub fn new(module: &Module<'_>, optimization_level: i32) -> Result<IntegerJit, String> {
        let mut signatures = HashMap::new();
        let body = regions(module.as_operation()).next().and_then(|region| blocks(region).next());
        for op in body.into_iter().flat_map(ops) {
            // A declaration has no body, and so no packed wrapper.
            let defined = regions(op).next().and_then(|region| blocks(region).next()).is_some();
            if op_name(op) != "llvm.func" || !defined {
                continue;
            }
            let function_type = op.attribute("function_type").ok().and_then(|a| TypeAttribute::try_from(a).ok());
            if let (Some(name), Some(function_type)) = (symbol_name(op), function_type) {
                if let Some(signature) = signature(&function_type.value().to_string()) {
                    signatures.insert(name.to_string(), signature);
                }
            }
        }
        // SAFETY: `module` is a live module; no shared libraries are passed
        // (a null list of length 0). The engine translates the module when it
        // is made: later changes to it do not reach the compiled code.
        let engine = unsafe {
            mlir_sys::mlirExecutionEngineCreate(module.to_raw(), optimization_level, 0, std::ptr::null(), false, false)
        };
        if engine.ptr.is_null() {
            return Err("MLIR's execution engine cannot compile the module".to_string());
        }
        Ok(IntegerJit { engine, signatures })
    }

    /// Calls the function `name` with `arguments`, each truncated to its
    /// parameter's width; the result is sign-extended.
    pub fn call(&self, name: &str, arguments: &[i64]) -> Result<i64, String> {
        let signature = self
            .signatures
            .get(name)
            .ok_or_else(|| format!("the module defines no function @{name} of integer parameters and result"))?;
        if arguments.len() != signature.inputs.len() {
            return Err(format!("@{name} takes {} arguments, not {}", signature.inputs.len(), arguments.len()));
        }
        let mut slots: Vec<Slot> =
            signature.inputs.iter().zip(arguments).map(|(width, value)| Slot::new(*width, *value)).collect();
        slots.push(Slot::new(signature.result, 0));
        let mut pointers: Vec<*mut ()> = slots.iter_mut().map(Slot::pointer).collect();
        // SAFETY: the engine is live (made in `new`, destroyed only on drop).
        // It made the packed wrapper `_mlir_<name>` for `name`, a function
        // defined in the module it compiled, whose signature `new` read from
        // that module: the wrapper reads one argument through each of the
        // first pointers and writes the result through the last, each of the
        // width in `signature`, which is the width of the slot it points to.
        // The slots outlive the call and do not move during it.
        let result = unsafe {
            mlir_sys::mlirExecutionEngineInvokePacked(self.engine, string_ref(name), pointers.as_mut_ptr() as *mut _)
        };
        if result.value == 0 {
            return Err(format!("MLIR's execution engine has no function @{name}"));
        }
        Ok(slots.last().map_or(0, Slot::value))
    }
}

impl Drop for IntegerJit {
    fn drop(&mut self) {
        // SAFETY: the engine was made in `new` and is destroyed once.
        unsafe { mlir_sys::mlirExecutionEngineDestroy(self.engine) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_of_integer_functions_only() {
        let read = |text| signature(text).map(|s| (s.inputs, s.result));
        assert_eq!(read("!llvm.func<i32 (i64, i32)>"), Some((vec![Width::I64, Width::I32], Width::I32)));
        assert_eq!(read("!llvm.func<i64 ()>"), Some((vec![], Width::I64)));
        assert_eq!(read("!llvm.func<void (i64)>"), None);
        assert_eq!(read("!llvm.func<i64 (ptr)>"), None);
        assert_eq!(read("!llvm.func<i64 (i64, ...)>"), None);
        assert_eq!(read("!llvm.func<i1 (i64)>"), None);
    }
}
