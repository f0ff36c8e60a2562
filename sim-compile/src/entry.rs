//! Which function every rank runs, and the names of its arguments in the
//! source text (MLIR keeps no SSA names; `--arg rows=1024` needs them).

use crate::types::split_top_level;
use cclir_dialect::{ir, names::FunctionKind};
use melior::ir::OperationRef;
use rustc_hash::{FxHashMap, FxHashSet};

/// The argument names of `func.func @name` if it starts at `line`, `col`
/// (1-based) of `text`: `%rows: index` gives `rows`.
pub(crate) fn argument_names(text: &str, name: &str, line: usize, col: usize) -> Option<Vec<Option<String>>> {
    let start = text.split_inclusive('\n').take(line.checked_sub(1)?).map(str::len).sum::<usize>();
    let rest = text.get(start + col.checked_sub(1)?..)?;
    let header = rest.strip_prefix("func.func")?.trim_start();
    let header = header.strip_prefix("private").or(header.strip_prefix("public")).unwrap_or(header).trim_start();
    let after_name = header.strip_prefix('@')?.strip_prefix(name)?;
    if !after_name.starts_with('(') {
        return None;
    }
    let open = rest.len() - after_name.len();
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let list = &rest[open + 1..close?];
    Some(
        split_top_level(list)
            .into_iter()
            .map(|arg| {
                let name = arg.strip_prefix('%')?.split(':').next()?.trim();
                (!name.is_empty()).then(|| name.to_string())
            })
            .collect(),
    )
}

/// The entry when none is named: `@main`, else the one orchestration
/// function with a body that no function calls.
pub(crate) fn default_entry(
    order: &[String],
    functions: &FxHashMap<String, OperationRef<'_, '_>>,
) -> Result<String, String> {
    if functions.contains_key("main") {
        return Ok("main".to_string());
    }
    let mut called = FxHashSet::default();
    for func in functions.values() {
        ir::walk_nested(*func, |op| {
            if let Some(callee) = ir::flat_symbol_attr(op, "callee") {
                called.insert(callee.to_string());
            }
            ir::Walk::Advance
        });
    }
    let candidates: Vec<&String> = order
        .iter()
        .filter(|name| {
            let func = functions[*name];
            !called.contains(*name)
                && ir::entry_block(func).is_some()
                && ir::function_kind(func).is_ok_and(|k| k == FunctionKind::Orchestration)
        })
        .collect();
    match candidates.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err("no entry function: name one with --entry (no @main, no orchestration function nobody calls)".into()),
        many => Err(format!(
            "several functions could be the entry ({}): name one with --entry",
            many.iter().map(|n| format!("@{n}")).collect::<Vec<_>>().join(", ")
        )),
    }
}
