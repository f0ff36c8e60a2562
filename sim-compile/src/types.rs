//! The simulator's view of MLIR's types, read from their printed form:
//! scalars (integers of 1 to 64 bits, index, floats), vectors of them, and
//! memrefs of them; anything else is `Ty::Other`, which an op that computes
//! on it reports.

use cclir_sim::program::{Scalar, Ty};
use melior::ir::{operation::OperationLike, OperationRef};

/// The longest vector (tile) ccl-sim runs: its values are kept lane by lane.
pub const MAX_VECTOR_LANES: usize = 1 << 20;

/// The interpreter's view of a printed MLIR type.
pub fn ty_of(text: &str) -> Ty {
    if let Some(scalar) = scalar_of(text) {
        return Ty::Scalar(scalar);
    }
    if let Some(inner) = text.strip_prefix("vector<").and_then(|t| t.strip_suffix('>')) {
        let mut parts: Vec<&str> = inner.split('x').collect();
        let element = parts.pop().and_then(scalar_of);
        let len = parts.iter().try_fold(1usize, |len, p| len.checked_mul(p.parse::<usize>().ok()?));
        if let (Some(element), Some(len)) = (element, len.filter(|len| *len <= MAX_VECTOR_LANES)) {
            return Ty::Vector { element, len };
        }
    }
    if let Some(inner) = text.strip_prefix("memref<").and_then(|t| t.strip_suffix('>')) {
        let shape_part = split_top_level(inner).first().copied().unwrap_or_default();
        let mut parts: Vec<&str> = shape_part.split('x').collect();
        if let Some(element) = parts.pop().and_then(scalar_of) {
            let shape = parts.iter().map(|p| p.parse::<i64>().ok()).collect();
            return Ty::MemRef { element, shape };
        }
    }
    Ty::Other(text.to_string())
}

/// Why `op` cannot run on a value of type `text`.
pub(crate) fn unsupported_type(op: &str, text: &str) -> String {
    format!(
        "ccl-sim does not run '{op}' on {text}: it models integers of 1 to 64 bits, index, f16, bf16, f32, f64 \
         and vectors of them up to {MAX_VECTOR_LANES} lanes"
    )
}

fn scalar_of(text: &str) -> Option<Scalar> {
    match text {
        "index" => Some(Scalar::Int(64)),
        "f16" | "bf16" => Some(Scalar::Float(16)),
        "f32" | "tf32" => Some(Scalar::Float(32)),
        "f64" => Some(Scalar::Float(64)),
        // Values are 64-bit patterns: wider integers (and i0) are not modelled.
        _ => {
            text.strip_prefix('i').and_then(|bits| bits.parse().ok()).filter(|b| (1..=64).contains(b)).map(Scalar::Int)
        }
    }
}

/// How many results `func` returns, from its `function_type`.
pub(crate) fn callee_result_count(func: OperationRef<'_, '_>) -> usize {
    let text = func.attribute("function_type").map(|a| a.to_string()).unwrap_or_default();
    match text.split_once("->") {
        Some((_, results)) => {
            let results = results.trim();
            if results == "()" {
                0
            } else if let Some(inner) = results.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                split_top_level(inner).len()
            } else {
                1
            }
        }
        None => 0,
    }
}

/// Splits `text` at commas outside `<>`, `()` and `[]`.
pub(crate) fn split_top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(text[start..].trim());
    }
    parts
}
