//! `--list-passes` and `--help`: every pass (Rust and upstream) with its
//! summary and options, laid out in llvm::cl's columns.

use super::cli::FLAGS;
use crate::registry::Registry;
use cclir_passes::framework::{OptionType, PassInfo};

/// The column where llvm::cl starts a pass description (`-   summary`).
const PASS_COLUMN: usize = 58;
/// The column of the description in `--help`'s option table.
const HELP_COLUMN: usize = 40;

fn padded(left: &str, column: usize) -> String {
    if left.len() + 1 >= column {
        format!("{left} ")
    } else {
        format!("{left:<column$}")
    }
}

fn rust_pass_lines(info: &PassInfo) -> Vec<String> {
    let mut lines = vec![format!("{}-   {}", padded(&format!("  --{}", info.argument), PASS_COLUMN), info.summary)];
    for option in info.options {
        let flag = format!("    --{}{}", option.name, option.ty.value_hint());
        lines.push(format!("{}- {} (default: {})", padded(&flag, PASS_COLUMN), option.help, option.default));
        if let OptionType::Enum(words) = option.ty {
            for word in words {
                lines.push(format!("{}-   {word}", padded(&format!("    ={word}"), PASS_COLUMN)));
            }
        }
    }
    lines
}

/// The `--list-passes` text: every pass, sorted by name, then the named
/// pipelines.
pub fn list_passes(registry: &Registry) -> String {
    let mut entries: Vec<(String, Vec<String>)> = registry
        .passes()
        .iter()
        .map(|info| (info.argument.to_string(), rust_pass_lines(info)))
        .chain(registry.upstream().iter().map(|p| (p.name.clone(), p.lines.clone())))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::from("Passes:\n");
    for (_, lines) in entries {
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
    }
    if !registry.pipelines().is_empty() {
        out.push_str("Pass Pipelines:\n");
        for pipeline in registry.pipelines() {
            out.push_str(&format!(
                "{}-   {} ({})\n",
                padded(&format!("  --{}", pipeline.argument), PASS_COLUMN),
                pipeline.summary,
                pipeline.passes.join(", ")
            ));
        }
    }
    out
}

/// The `--help` text: usage, the driver's own options, then every pass.
pub fn help(registry: &Registry) -> String {
    let mut out = String::from(
        "OVERVIEW: ccl-opt: the cclir optimizer driver (mlir-opt for the ccl dialect)\n\n\
         USAGE: ccl-opt [options] <input file>\n\n\
         OPTIONS:\n\n\
         General options:\n\n",
    );
    for flag in FLAGS {
        let dashes = if flag.name.len() == 1 { "-" } else { "--" };
        let hint = match flag.value_hint {
            "" => String::new(),
            h if h.starts_with('[') => h.to_string(),
            h => format!("={h}"),
        };
        out.push_str(&format!("{}- {}\n", padded(&format!("  {dashes}{}{hint}", flag.name), HELP_COLUMN), flag.help));
    }
    out.push_str("\nEvery pass is also a flag: --NAME or --NAME='option=value ...' (not together with --pass-pipeline).\n\n");
    out.push_str("Compiler passes to run\n");
    out.push_str(&list_passes(registry));
    out
}
