//! The `ccl-opt` command line: mlir-opt's flags, messages and exit codes,
//! over the library's `Session`.
//!
//! One run: parse the command line -> assemble the pipeline text -> read the
//! input -> open the output -> for each chunk (one, or several with
//! `--split-input-file`): new session, build the pipeline, parse, run,
//! print -> write the output only if every chunk succeeded.

pub mod cli;
pub mod expected;
pub mod ir_dump;
pub mod listing;
pub mod output;
pub mod report;
pub mod split;

use crate::{
    ffi, pipeline::grammar::MISSING_ANCHOR, registry::Registry, Error, PipelineError, PipelineSpec, Session,
    SessionConfig,
};
use cli::Options;
use std::io::Read;

/// The message mlir-opt prints for an I/O error (LLVM's wording).
pub fn io_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "Is a directory".to_string(),
        _ => {
            let text = error.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_string()
        }
    }
}

/// Runs `ccl-opt` with `args` (program name first) and returns the exit code.
pub fn main(args: Vec<String>) -> i32 {
    crate::panic::install_quiet_hook();
    match crate::panic::catch_in_callback(|| run(&args[1.min(args.len())..])) {
        Ok(code) => code,
        Err(payload) => {
            eprintln!("ccl-opt: internal error: {}", crate::panic::message(&payload));
            1
        }
    }
}

fn run(args: &[String]) -> i32 {
    ffi::register_upstream_passes_once();
    let registry = Registry::global();
    let scratch = std::cell::OnceCell::new();
    let is_pass = |name: &str| registry.is_known(scratch.get_or_init(melior::Context::new), name);
    let options = match cli::parse(args, registry, &is_pass) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("{error}");
            return 1;
        }
    };
    if options.help {
        print!("{}", listing::help(registry));
        return 0;
    }
    if options.version {
        println!("ccl-opt {} (cclir), on MLIR 22", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    if options.list_passes {
        print!("{}", listing::list_passes(registry));
        return 0;
    }
    let spec = match pipeline_spec(&options) {
        Ok(spec) => spec,
        Err(message) => {
            eprintln!("<unknown>:0: error: {message}");
            return 1;
        }
    };
    let (buffer, text) = match read_input(&options.input) {
        Ok(read) => read,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    let mut output = match output::Output::open(&options.output) {
        Ok(output) => output,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    if options.print_ir_module_scope && !options.disable_threading {
        // MLIR aborts the process in this case; mlir-opt reports it.
        eprintln!(
            "<unknown>:0: error: IR print for module scope can't be setup on a pass-manager without disabling multi-threading first."
        );
        return 1;
    }
    let chunks = match &options.split_input_file {
        Some(marker) => split::split(&text, marker),
        None => vec![split::Chunk { text }],
    };
    let mut all_ok = true;
    let mut missing = Vec::new();
    let last = chunks.len() - 1;
    for (index, chunk) in chunks.into_iter().enumerate() {
        // The session keeps (and the parser reads) the chunk's own buffer.
        let shared = crate::diagnostics::SourceText::from(chunk.text);
        if index > 0 {
            let marker = format!("{}\n", options.output_split_marker);
            if let Err(error) = output.writer().write_all(marker.as_bytes()) {
                eprintln!("error writing output: {error}");
                return 1;
            }
        }
        let position = ChunkPosition { first: index == 0, last: index == last };
        match process_chunk(&options, spec.as_ref(), &shared, &buffer, position, output.writer(), &mut missing) {
            ChunkOutcome::Ok => {}
            ChunkOutcome::Failed => all_ok = false,
            ChunkOutcome::Fatal => return 1,
        }
    }
    // mlir-opt reports unmet expectations once, after the whole file.
    if !missing.is_empty() {
        all_ok = false;
        eprint!("{}", missing.concat());
    }
    if let Err(message) = output.finish(all_ok) {
        eprintln!("{message}");
        return 1;
    }
    if all_ok {
        0
    } else {
        1
    }
}

/// The pipeline to run: `--pass-pipeline`, or the pass flags in order
/// under `builtin.module`, or none.
fn pipeline_spec(options: &Options) -> Result<Option<PipelineSpec>, String> {
    let text = match (&options.pass_pipeline, options.pass_flags.is_empty()) {
        (Some(_), false) => return Err("'-pass-pipeline' option can't be used with individual pass options".into()),
        (Some(text), true) => text.clone(),
        (None, false) => {
            let elements: Vec<String> = options
                .pass_flags
                .iter()
                .map(|flag| match &flag.options {
                    Some(opts) => format!("{}{{{opts}}}", flag.name),
                    None => flag.name.clone(),
                })
                .collect();
            format!("builtin.module({})", elements.join(","))
        }
        (None, true) => return Ok(None),
    };
    PipelineSpec::parse(&text).map(Some).map_err(|error| {
        if error.message == MISSING_ANCHOR {
            error.message
        } else {
            error.to_string()
        }
    })
}

fn read_input(input: &str) -> Result<(String, String), String> {
    if input == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot open input file '-': {}", io_message(&e)))?;
        return Ok(("<stdin>".to_string(), text));
    }
    let bytes = std::fs::read(input).map_err(|e| format!("cannot open input file '{input}': {}", io_message(&e)))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{input}: error: input is not valid UTF-8"))?;
    Ok((input.to_string(), text))
}

/// Where a chunk stands among the chunks of the input.
#[derive(Clone, Copy)]
struct ChunkPosition {
    first: bool,
    last: bool,
}

enum ChunkOutcome {
    Ok,
    Failed,
    /// Nothing can run (a bad pipeline): stop before any other chunk.
    Fatal,
}

fn process_chunk(
    options: &Options,
    spec: Option<&PipelineSpec>,
    text: &crate::diagnostics::SourceText,
    buffer: &str,
    position: ChunkPosition,
    printed: &mut dyn std::io::Write,
    missing: &mut Vec<String>,
) -> ChunkOutcome {
    let session = Session::with_config(SessionConfig {
        threading: !options.disable_threading,
        allow_unregistered_dialects: options.allow_unregistered_dialect,
        verify_each: options.verify_each,
    });
    let built = match spec.map(|spec| session.build(spec)).transpose() {
        Ok(built) => built,
        Err(error) => {
            report_pipeline_error(&error);
            return ChunkOutcome::Fatal;
        }
    };
    if position.first && options.dump_pass_pipeline {
        let text = built
            .as_ref()
            .map(|b| ffi::print_pass_pipeline(b.manager.as_operation_pass_manager()))
            .unwrap_or_else(|| "builtin.module()".to_string());
        eprint!("{}", report::pipeline_dump(&text));
    }
    if let Some(built) = &built {
        configure_instrumentation(options, built);
    }

    let mut diagnostics = Vec::new();
    let mut succeeded = false;
    match session.parse_shared(text.clone(), buffer) {
        Ok(mut program) => match run_instrumented(options, &session, built.as_ref(), &mut program) {
            Ok(()) => {
                let print = ffi::PrintOptions {
                    generic: options.print_op_generic,
                    debug_info: options.print_debuginfo,
                    local_scope: options.print_local_scope,
                };
                if let Err(error) = program.write(printed, print) {
                    eprintln!("error writing output: {error}");
                    return ChunkOutcome::Fatal;
                }
                succeeded = true;
                if position.last {
                    // The process ends next: tearing down a large module
                    // costs time and frees nothing the exit would not.
                    std::mem::forget(program);
                }
            }
            Err(error) => diagnostics.extend(error.diagnostics().iter().cloned()),
        },
        Err(error) => diagnostics.extend(error.diagnostics().iter().cloned()),
    }
    diagnostics.extend(session.take_diagnostics());

    let outcome = if options.verify_diagnostics {
        verify_chunk(&session, text.text(), buffer, &diagnostics, options.verify_only_expected, missing)
    } else {
        eprint!("{}", session.render(&diagnostics));
        if succeeded {
            ChunkOutcome::Ok
        } else {
            ChunkOutcome::Failed
        }
    };
    // The pass manager goes (it prints the timing report as it goes); the
    // context of the last chunk is left to the process exit, like the module.
    drop(built);
    if position.last {
        std::mem::forget(session);
    }
    outcome
}

/// Runs the pipeline (if any) with the IR-dump filter and statistics report
/// the flags ask for.
fn run_instrumented(
    options: &Options,
    session: &Session,
    built: Option<&crate::BuiltPipeline<'_>>,
    program: &mut crate::Program<'_>,
) -> Result<(), Error> {
    let Some(built) = built else { return Ok(()) };
    let capture = if options.names_ir_dump_passes() {
        ir_dump::CapturedStderr::start()
    } else {
        None
    };
    let result = session.run(built, program);
    if let Some(captured) = capture {
        let filter = ir_dump::DumpFilter {
            before: options.print_ir_before.clone(),
            after: options.print_ir_after.clone(),
            before_all: options.print_ir_before_all,
            after_all: options.print_ir_after_all || options.print_ir_after_failure,
        };
        eprint!("{}", filter.filter(&captured.finish()));
    }
    if options.pass_statistics {
        eprint!("{}", report::statistics(&built.records));
    }
    result
}

fn verify_chunk(
    session: &Session,
    text: &str,
    buffer: &str,
    diagnostics: &[crate::Diagnostic],
    only_expected: bool,
    missing: &mut Vec<String>,
) -> ChunkOutcome {
    let expectations = match expected::parse(text) {
        Ok(expectations) => expectations,
        Err(bad) => {
            let loc = crate::SourceLoc::File { file: buffer.to_string(), line: bad.line, col: bad.col };
            eprint!("{}", session.render(&[crate::Diagnostic::error(loc, bad.message)]));
            return ChunkOutcome::Failed;
        }
    };
    let verdict = expected::check(expectations, diagnostics, buffer, only_expected);
    for (problem, range) in &verdict.problems {
        let rendered = session.render_with_range(problem, *range);
        match range {
            // An unmet expectation (it carries the caret range).
            Some(_) => missing.push(rendered),
            None => eprint!("{rendered}"),
        }
    }
    if verdict.ok() {
        ChunkOutcome::Ok
    } else {
        ChunkOutcome::Failed
    }
}

fn configure_instrumentation(options: &Options, built: &crate::BuiltPipeline<'_>) {
    // Named passes are printed by asking MLIR for every dump and filtering.
    let printing = ffi::IrPrinting {
        before_all: options.print_ir_before_all || !options.print_ir_before.is_empty(),
        after_all: options.print_ir_after_all || options.print_ir_after_failure || !options.print_ir_after.is_empty(),
        module_scope: options.print_ir_module_scope,
        after_only_on_change: options.print_ir_after_change,
        after_only_on_failure: options.print_ir_after_failure,
    };
    if printing.before_all || printing.after_all {
        let print = ffi::PrintOptions {
            generic: options.print_op_generic,
            debug_info: options.print_debuginfo,
            local_scope: false,
        };
        ffi::enable_ir_printing(&built.manager, printing, print);
    }
    if options.timing {
        ffi::enable_timing(&built.manager);
    }
}

fn report_pipeline_error(error: &Error) {
    match error {
        Error::Pipeline(PipelineError::Grammar(grammar)) if grammar.message == MISSING_ANCHOR => {
            eprintln!("<unknown>:0: error: {}", grammar.message)
        }
        Error::Pipeline(PipelineError::UnknownPass { error, suggestion }) => {
            eprintln!("<unknown>:0: error: {error}\n");
            if let Some(suggestion) = suggestion {
                eprintln!("<unknown>:0: note: did you mean '{suggestion}'?");
            }
        }
        Error::Pipeline(PipelineError::Upstream(message)) => eprint!("<unknown>:0: error: {message}\n"),
        other => eprintln!("<unknown>:0: error: {other}"),
    }
}
