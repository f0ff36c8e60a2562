//! The command line, parsed the way LLVM's `cl` library parses mlir-opt's:
//! long options take one or two dashes, values follow `=` or the next
//! argument, and every registered pass is also a flag (`--cse`,
//! `--canonicalize=max-iterations=3`).

use crate::registry::Registry;

/// A pass given as its own flag, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassFlag {
    pub name: String,
    pub options: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub input: String,
    pub output: String,
    pub pass_pipeline: Option<String>,
    pub pass_flags: Vec<PassFlag>,
    pub split_input_file: Option<String>,
    pub output_split_marker: String,
    pub verify_diagnostics: bool,
    pub verify_only_expected: bool,
    /// A flag value the flag's own parser rejected (reported after parsing).
    pub bad_value: Option<String>,
    pub print_ir_before: Vec<String>,
    pub print_ir_after: Vec<String>,
    pub print_ir_before_all: bool,
    pub print_ir_after_all: bool,
    pub print_ir_after_change: bool,
    pub print_ir_after_failure: bool,
    pub print_ir_module_scope: bool,
    pub timing: bool,
    pub pass_statistics: bool,
    pub disable_threading: bool,
    pub verify_each: bool,
    pub dump_pass_pipeline: bool,
    pub list_passes: bool,
    pub help: bool,
    pub version: bool,
    pub print_op_generic: bool,
    pub print_debuginfo: bool,
    pub print_local_scope: bool,
    pub allow_unregistered_dialect: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            input: "-".to_string(),
            output: "-".to_string(),
            pass_pipeline: None,
            pass_flags: Vec::new(),
            split_input_file: None,
            output_split_marker: DEFAULT_SPLIT_MARKER.to_string(),
            verify_diagnostics: false,
            verify_only_expected: false,
            bad_value: None,
            print_ir_before: Vec::new(),
            print_ir_after: Vec::new(),
            print_ir_before_all: false,
            print_ir_after_all: false,
            print_ir_after_change: false,
            print_ir_after_failure: false,
            print_ir_module_scope: false,
            timing: false,
            pass_statistics: false,
            disable_threading: false,
            verify_each: true,
            dump_pass_pipeline: false,
            list_passes: false,
            help: false,
            version: false,
            print_op_generic: false,
            print_debuginfo: false,
            print_local_scope: false,
            allow_unregistered_dialect: false,
        }
    }
}

impl Options {
    /// Whether IR dumps are asked for by pass name (`--mlir-print-ir-before=`
    /// or `-after=`), which the driver selects from MLIR's full dumps.
    pub fn names_ir_dump_passes(&self) -> bool {
        !self.print_ir_before.is_empty() || !self.print_ir_after.is_empty()
    }
}

pub const DEFAULT_SPLIT_MARKER: &str = "// -----";

/// A command line that cannot be run, with the text llvm::cl would print.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// What a flag does, for the table below and for `--help`.
#[derive(Clone, Copy)]
enum Kind {
    /// `--flag` or `--flag=true|false`.
    Switch(fn(&mut Options, bool)),
    /// `--flag=value` or `--flag value`.
    Value(fn(&mut Options, String)),
    /// `--flag` or `--flag=value`.
    OptionalValue(fn(&mut Options, Option<String>)),
}

pub struct Flag {
    pub name: &'static str,
    pub value_hint: &'static str,
    pub help: &'static str,
    kind: Kind,
}

macro_rules! switch {
    ($name:literal, $help:literal, $field:ident) => {
        Flag { name: $name, value_hint: "", help: $help, kind: Kind::Switch(|o, v| o.$field = v) }
    };
}

/// Every flag besides the pass flags, in `--help` order.
pub static FLAGS: &[Flag] = &[
    Flag { name: "o", value_hint: "<filename>", help: "Output filename", kind: Kind::Value(|o, v| o.output = v) },
    Flag {
        name: "pass-pipeline",
        value_hint: "<string>",
        help: "Textual description of the pass pipeline to run",
        kind: Kind::Value(|o, v| o.pass_pipeline = Some(v)),
    },
    Flag {
        name: "p",
        value_hint: "<string>",
        help: "Alias for --pass-pipeline",
        kind: Kind::Value(|o, v| o.pass_pipeline = Some(v)),
    },
    Flag {
        name: "split-input-file",
        value_hint: "[=<marker>]",
        help: "Split the input file into chunks at the marker (default '// -----') and process each chunk independently",
        kind: Kind::OptionalValue(|o, v| {
            o.split_input_file = Some(v.filter(|m| !m.is_empty()).unwrap_or_else(|| DEFAULT_SPLIT_MARKER.to_string()))
        }),
    },
    Flag {
        name: "output-split-marker",
        value_hint: "<string>",
        help: "Split marker to put between the outputs of the chunks",
        kind: Kind::Value(|o, v| o.output_split_marker = v),
    },
    Flag {
        name: "verify-diagnostics",
        value_hint: "[=all|only-expected]",
        help: "Check that emitted diagnostics match expected-* lines on the corresponding line (only-expected: ignore diagnostics no line expects)",
        kind: Kind::OptionalValue(|o, v| {
            o.verify_diagnostics = true;
            o.verify_only_expected = v.as_deref() == Some("only-expected");
            if let Some(bad) = v.filter(|v| v != "all" && v != "only-expected") {
                o.bad_value = Some(format!(
                    "ccl-opt: for the --verify-diagnostics option: Cannot find option named '{bad}'!"
                ));
            }
        }),
    },
    Flag {
        name: "mlir-print-ir-before",
        value_hint: "<pass-arg>[,...]",
        help: "Print IR before the given passes",
        kind: Kind::Value(|o, v| o.print_ir_before.extend(v.split(',').map(str::to_string))),
    },
    Flag {
        name: "mlir-print-ir-after",
        value_hint: "<pass-arg>[,...]",
        help: "Print IR after the given passes",
        kind: Kind::Value(|o, v| o.print_ir_after.extend(v.split(',').map(str::to_string))),
    },
    switch!("mlir-print-ir-before-all", "Print IR before each pass", print_ir_before_all),
    switch!("mlir-print-ir-after-all", "Print IR after each pass", print_ir_after_all),
    switch!("mlir-print-ir-after-change", "When printing the IR after a pass, only print if the IR changed", print_ir_after_change),
    switch!("mlir-print-ir-after-failure", "When printing the IR after a pass, only print if the pass failed", print_ir_after_failure),
    switch!("mlir-print-ir-module-scope", "When printing IR for print-ir-[before|after]{-all} always print the top-level operation", print_ir_module_scope),
    switch!("mlir-timing", "Display execution times", timing),
    switch!("mlir-pass-statistics", "Display the statistics of each pass (ccl passes count what they inserted, folded or marked)", pass_statistics),
    switch!("mlir-disable-threading", "Disable multi-threading within MLIR", disable_threading),
    switch!("verify-each", "Run the verifier after each transformation pass (default on)", verify_each),
    switch!("dump-pass-pipeline", "Print the pipeline that will be run", dump_pass_pipeline),
    switch!("list-passes", "Print the list of registered passes and exit", list_passes),
    switch!("mlir-print-op-generic", "Print the generic op form", print_op_generic),
    switch!("mlir-print-debuginfo", "Print debug info in MLIR output", print_debuginfo),
    switch!("mlir-print-local-scope", "Print with local scope and inline information (eliding aliases for attributes, types, and locations)", print_local_scope),
    switch!("allow-unregistered-dialect", "Allow operation with no registered dialects", allow_unregistered_dialect),
    switch!("help", "Display available options", help),
    switch!("version", "Display the version of this program", version),
];

fn parse_bool(flag: &str, value: &str) -> Result<bool, UsageError> {
    match value {
        "" | "true" | "TRUE" | "True" | "1" => Ok(true),
        "false" | "FALSE" | "False" | "0" => Ok(false),
        _ => Err(UsageError(format!(
            "ccl-opt: for the --{flag} option: '{value}' is invalid value for boolean argument! Try 0 or 1"
        ))),
    }
}

/// Parses `args` (without the program name).
pub fn parse(args: &[String], registry: &Registry, is_pass: &dyn Fn(&str) -> bool) -> Result<Options, UsageError> {
    let mut options = Options::default();
    let mut positional: Vec<String> = Vec::new();
    let mut index = 0;
    let mut only_positional = false;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        if only_positional || arg == "-" || !arg.starts_with('-') {
            positional.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_positional = true;
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, inline_value) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (body, None),
        };
        if let Some(flag) = FLAGS.iter().find(|f| f.name == name) {
            match flag.kind {
                Kind::Switch(set) => set(&mut options, parse_bool(name, inline_value.as_deref().unwrap_or(""))?),
                Kind::OptionalValue(set) => set(&mut options, inline_value),
                Kind::Value(set) => {
                    let value = match inline_value {
                        Some(value) => value,
                        None if index < args.len() => {
                            index += 1;
                            args[index - 1].clone()
                        }
                        None => {
                            return Err(UsageError(format!(
                                "ccl-opt: for the -{name} option: requires a value!"
                            )))
                        }
                    };
                    set(&mut options, value)
                }
            }
            continue;
        }
        if name == "h" {
            options.help = true;
            continue;
        }
        if is_pass(name) {
            options.pass_flags.push(PassFlag { name: name.to_string(), options: inline_value });
            continue;
        }
        let mut message = format!("ccl-opt: Unknown command line argument '{arg}'.  Try: 'ccl-opt --help'");
        if let Some(best) = crate::registry::nearest(name, FLAGS.iter().map(|f| f.name).chain(registry.all_names())) {
            let dashes = if best.len() == 1 { "-" } else { "--" };
            message.push_str(&format!("\nccl-opt: Did you mean '{dashes}{best}'?"));
        }
        return Err(UsageError(message));
    }
    if let Some(message) = options.bad_value.take() {
        return Err(UsageError(message));
    }
    match positional.len() {
        0 => {}
        1 => options.input = positional.remove(0),
        _ => {
            return Err(UsageError(format!(
                "ccl-opt: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: ccl-opt --help"
            )))
        }
    }
    Ok(options)
}
