//! `ccl-sim`: runs a ccl program over P ranks under the execution model of
//! docs/semantics.md and reports the data races a schedule can produce.
//!
//! Its settings (`--help`, docs/ccl-sim.md) are made from their one
//! definition, `cclir_sim::options::SETTINGS`, as the library's defaults
//! and the Python binding's keywords are.
//!
//! Exit 0: no race (the states or schedules explored and what they executed
//! are printed); 3: a race or deadlock, with both accesses and the schedule;
//! 1: bad input, a runtime error of the program, or a limit reached before
//! the search finished ("no conclusion").
//!
//! Its entry point is C's `main` (`cclir_process::c_main!`, which says why):
//! a closed standard output must be seen, or the verdict would be lost
//! without an error.
#![no_main]
#![forbid(unsafe_code)]

use cclir::process::{allocator, streams};
use cclir::sim::options::{self, Setting, Syntax};
use cclir::sim::{self, memory, report, Options, Outcome};
use clap::builder::{OsStringValueParser, PathBufValueParser, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;

/// What ccl-sim is, for `--help`.
const ABOUT: &str =
    "Runs FILE (a ccl program; '-' reads stdin) on P ranks and searches the schedules for data races.\n\
                     Reaching a bound (--max-states, --max-steps, --max-memory) is exit 1 with \"no conclusion\", \
                     never \"no race\".";

/// The command line, made from the settings (`cclir_sim::options::SETTINGS`,
/// their one definition): each takes its value as text, which the setting
/// reads (`Options::from_settings`), so the errors are the setting's.
fn command() -> Command {
    let utf8 = || {
        OsStringValueParser::new().try_map(|value: std::ffi::OsString| match value.into_string() {
            Ok(text) => Ok(text),
            Err(_) => Err("not valid UTF-8".to_string()),
        })
    };
    let mut command = Command::new("ccl-sim")
        .about(ABOUT)
        .disable_version_flag(true)
        .args_override_self(true)
        .override_usage(options::usage("ccl-sim", 15, 110).join("\n"))
        .help_template("USAGE: {usage}\n\n{about}\n\n{all-args}")
        .arg(
            Arg::new("files")
                .value_name("FILE")
                .help("The ccl program ('-' reads stdin)")
                .num_args(0..)
                .action(ArgAction::Append)
                .value_parser(PathBufValueParser::new()),
        );
    for setting in options::SETTINGS {
        let arg = Arg::new(setting.name).long(setting.name).help(setting.help_with_default());
        command = command.arg(match setting.syntax {
            Syntax::Flag => arg.action(ArgAction::SetTrue),
            Syntax::Value { value, .. } => {
                arg.value_name(value).allow_hyphen_values(true).action(ArgAction::Set).value_parser(utf8())
            }
            Syntax::Pairs { value } => {
                arg.value_name(value).allow_hyphen_values(true).action(ArgAction::Append).value_parser(utf8())
            }
        });
    }
    command
}

/// The settings `matches` gives, each with its value as text.
fn given(matches: &ArgMatches) -> Vec<(&'static Setting, String)> {
    let mut given = Vec::new();
    for setting in options::SETTINGS {
        match setting.syntax {
            Syntax::Flag if matches.get_flag(setting.name) => given.push((setting, "true".to_string())),
            Syntax::Flag => {}
            Syntax::Value { .. } | Syntax::Pairs { .. } => {
                let values = matches.get_many::<String>(setting.name).into_iter().flatten();
                given.extend(values.map(|text| (setting, text.clone())));
            }
        }
    }
    given
}

struct Args {
    file: PathBuf,
    options: Options,
    trace: bool,
    stats: bool,
    /// Where the SARIF log and the diagram go.
    sarif: Option<String>,
    diagram: Option<String>,
}

/// What the command line asks for: a run, or the help.
enum Request {
    Run(Box<Args>),
    Help(String),
}

/// The help, which also follows every usage error.
fn help() -> String {
    command().render_help().to_string()
}

/// clap's error, in ccl-sim's words (`invalid value 'x' for --ranks:
/// expected a non-negative integer`).
fn usage_error(error: &clap::Error) -> String {
    let context = |kind| match error.get(kind) {
        Some(ContextValue::String(text)) => Some(text.clone()),
        _ => None,
    };
    // clap names an option with its value (`--entry <NAME>`): the option is
    // the first word.
    let option = context(ContextKind::InvalidArg)
        .map(|argument| argument.split([' ', '=']).next().unwrap_or_default().to_string())
        .unwrap_or_default();
    match error.kind() {
        ErrorKind::UnknownArgument => format!("unknown option '{option}'"),
        ErrorKind::ValueValidation => match (context(ContextKind::InvalidValue), std::error::Error::source(error)) {
            (Some(value), Some(reason)) => format!("invalid value '{value}' for {option}: {reason}"),
            _ => format!("invalid value for {option}"),
        },
        ErrorKind::InvalidValue | ErrorKind::NoEquals => format!("missing value for {option}"),
        ErrorKind::InvalidUtf8 => "an argument is not valid UTF-8".to_string(),
        _ => error.kind().as_str().map_or_else(|| error.to_string(), str::to_string),
    }
}

fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Request, String> {
    let matches = match command().try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) if error.kind() == ErrorKind::DisplayHelp => return Ok(Request::Help(help())),
        Err(error) => return Err(usage_error(&error)),
    };
    let files: Vec<PathBuf> = matches.get_many::<PathBuf>("files").into_iter().flatten().cloned().collect();
    let file = match <[PathBuf; 1]>::try_from(files) {
        Ok([file]) => file,
        Err(files) if files.is_empty() => return Err("no input file".to_string()),
        Err(_) => return Err("more than one input file".to_string()),
    };
    let options = Options::from_settings(&given(&matches), |setting| format!("--{}", setting.name))?;
    // What the reference's own report and its one search leave out.
    if options.reference {
        let mut search_only = ["threads", "sarif", "diagram"].into_iter();
        if let Some(name) = search_only.find(|name| matches.value_source(name) == Some(ValueSource::CommandLine)) {
            return Err(format!(
                "--reference explores every execution with its own search and report: it excludes --{name}"
            ));
        }
    }
    Ok(Request::Run(Box::new(Args {
        file,
        trace: options.trace,
        options,
        stats: matches.get_flag("stats"),
        sarif: matches.get_one::<String>("sarif").cloned(),
        diagram: matches.get_one::<String>("diagram").cloned(),
    })))
}

/// Steps of a reported schedule shown without --trace.
const SHOWN_STEPS: usize = 40;

/// What a run prints on standard output (the verdict) and its exit code;
/// diagnostics went to standard error as they came.
#[derive(Clone)]
struct Verdict {
    stdout: String,
    code: u8,
}

fn fail(message: impl std::fmt::Display) -> Verdict {
    eprintln!("{message}");
    Verdict { stdout: String::new(), code: 1 }
}

/// Runs the simulation, then writes the SARIF log and the diagram asked
/// for; a file that cannot be written is an error (exit 1).
fn run(args: Args) -> Verdict {
    let (sarif, diagram) = (args.sarif.clone(), args.diagram.clone());
    let (verdict, reports) = simulate(args);
    let mut verdict = verdict;
    let code = verdict.code as i32;
    let written = match reports {
        Reports::None => Ok(()),
        Reports::InputError(diagnostics) => match &sarif {
            Some(path) => write_sarif(path, &sim::sarif::input_error_log(&diagnostics)),
            None => Ok(()),
        },
        Reports::Outcome(machine, outcome, stdout) => {
            write_reports(&machine, &outcome, &stdout, code, sarif.as_deref(), diagram.as_deref())
        }
    };
    if let Err(message) = written {
        eprintln!("ccl-sim: error: {message}");
        verdict.code = 1;
    }
    verdict
}

/// What the SARIF log and the diagram are made from.
enum Reports {
    /// Nothing to report (the input could not be read).
    None,
    /// The input did not parse or compile: its diagnostics.
    InputError(Vec<cclir::Diagnostic>),
    /// The search's outcome, and the verdict printed for it.
    Outcome(Box<sim::Machine>, Box<Outcome>, String),
}

fn write_reports(
    machine: &sim::Machine,
    outcome: &Outcome,
    stdout: &str,
    code: i32,
    sarif: Option<&str>,
    diagram: Option<&str>,
) -> Result<(), String> {
    if sarif.is_none() && diagram.is_none() {
        return Ok(());
    }
    let trace = match outcome {
        Outcome::Found { schedule, .. } => Some(sim::trace::replay(machine, schedule).0),
        _ => None,
    };
    let summary = sim::summary::summarize(machine, outcome, trace.as_ref());
    if let Some(path) = sarif {
        write_sarif(path, &sim::sarif::log(&summary, code))?;
    }
    if let Some(path) = diagram {
        let svg = match &trace {
            Some(trace) => sim::diagram::render(machine, outcome, &summary, trace),
            None => {
                let text = summary
                    .diagnostic
                    .as_ref()
                    .map_or_else(|| stdout.lines().next().unwrap_or_default().to_string(), |d| d.to_string());
                sim::diagram::render_verdict(&text)
            }
        };
        cclir::output::write_whole(path, svg.as_bytes())?;
    }
    Ok(())
}

/// Writes `log` to `path` as `-o` writes (a failed write leaves no file).
fn write_sarif(path: &str, log: &cclir::sarif::Log) -> Result<(), String> {
    cclir::output::write_whole(path, log.to_json().as_bytes())
}

fn simulate(mut args: Args) -> (Verdict, Reports) {
    let session = cclir::Session::new();
    let stdin = args.file.as_os_str() == "-";
    let parsed = if stdin {
        let mut bytes = Vec::new();
        if let Err(error) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes) {
            let message = format!("ccl-sim: cannot read stdin: {}", cclir::output::io_message(&error));
            return (fail(message), Reports::None);
        }
        String::from_utf8(bytes).map_err(|_| "ccl-sim: error: stdin is not valid UTF-8".to_string())
    } else {
        let path = args.file.as_path();
        std::fs::read(path)
            .map_err(|error| {
                format!("ccl-sim: cannot open input file '{}': {}", path.display(), cclir::output::io_message(&error))
            })
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| format!("ccl-sim: error: '{}' is not valid UTF-8", path.display()))
            })
    };
    let text = match parsed {
        Ok(text) => text,
        Err(message) => return (fail(message), Reports::None),
    };
    let name = if stdin { "<stdin>".to_string() } else { args.file.to_string_lossy().into_owned() };
    let program = match session.parse(&text, &name) {
        Ok(program) => program,
        Err(cclir::Error::Parse { diagnostics, .. }) => {
            eprint!("{}", session.render(&diagnostics));
            return (Verdict { stdout: String::new(), code: 1 }, Reports::InputError(diagnostics));
        }
        Err(error) => return (fail(format_args!("ccl-sim: {error}")), Reports::None),
    };
    args.options.source = Some(text.into());
    if args.options.reference {
        return reference(&program, &args.options);
    }
    let (machine, outcome) = match sim::simulate(program.operation_ref(), &args.options) {
        Ok(result) => result,
        Err(error) => return input_error(&error),
    };
    if let Some(stats) = outcome.stats().filter(|_| args.stats) {
        eprintln!("{}", report::search(stats));
    }
    let verdict = verdict(&args, &machine, &outcome);
    (verdict.clone(), Reports::Outcome(Box::new(machine), Box::new(outcome), verdict.stdout))
}

/// A program the simulator cannot run: the located error, printed and
/// kept for the SARIF log.
fn input_error(error: &sim::InputError) -> (Verdict, Reports) {
    let diagnostic = cclir::Diagnostic {
        severity: cclir::Severity::Error,
        loc: error.loc.clone(),
        message: error.message.clone(),
        notes: Vec::new(),
    };
    (fail(error), Reports::InputError(vec![diagnostic]))
}

/// Explores every execution of `program` under the reference semantics
/// (`--reference`) and reports the first finding.
fn reference(program: &cclir::Program<'_>, options: &Options) -> (Verdict, Reports) {
    let explored = sim::compile(program.operation_ref(), options.entry.as_deref(), options.source.as_deref())
        .and_then(|compiled| sim::run_reference(compiled, options, true));
    let (reference, exploration) = match explored {
        Ok(result) => result,
        Err(error) => return input_error(&error),
    };
    let ranks = options.ranks;
    let verdict = match exploration.found.first() {
        Some(found) => {
            eprint!("{}", sim::reference::report::finding(&reference, found));
            eprintln!(
                "schedule ({} actions, found after {} states, reference semantics):",
                found.schedule.len(),
                exploration.states
            );
            eprint!("{}", sim::reference::report::schedule(&reference, &found.schedule));
            let code = match found.kind {
                sim::reference::Kind::Race | sim::reference::Kind::Deadlock => 3,
                sim::reference::Kind::Error | sim::reference::Kind::Limit => 1,
            };
            Verdict { stdout: String::new(), code }
        }
        None if !exploration.complete => {
            let entry = &reference.program.funcs[reference.program.entry as usize];
            fail(format_args!(
                "{}: error: --max-states {} reached before the reference semantics explored every execution: no \
                 conclusion",
                reference.program.site(entry.site).loc,
                options.max_states
            ))
        }
        None => Verdict {
            stdout: format!(
                "ccl-sim: no race: {} states explored, every execution of {ranks} ranks under the reference semantics\n",
                exploration.states
            ),
            code: 0,
        },
    };
    (verdict, Reports::None)
}

/// Which part of a sharded or swarm search this run is, as the verdict
/// line says it (nothing for a whole search).
fn shard_text(options: &sim::Options) -> String {
    let shard = options.shard;
    match (options.swarm, shard.count) {
        (true, _) => format!(", swarm member {}/{} of seed {}", shard.index, shard.count, options.seed),
        (false, 1) => String::new(),
        (false, _) => format!(", shard {}/{}", shard.index, shard.count),
    }
}

/// Prints the report of `outcome` on standard error and returns the verdict.
fn verdict(args: &Args, machine: &sim::Machine, outcome: &Outcome) -> Verdict {
    let ranks = args.options.ranks;
    let executed =
        |cost: &sim::RunCost| report::cost(cost).lines().map(|line| format!("ccl-sim: {line}\n")).collect::<String>();
    match outcome {
        Outcome::Clean { states, schedules: None, cost, .. } => Verdict {
            stdout: format!(
                "ccl-sim: no race: {states} states explored, every schedule of {ranks} ranks{}\n{}",
                shard_text(&args.options),
                executed(cost)
            ),
            code: 0,
        },
        Outcome::Clean { states, schedules: Some(sampled), cost, .. } => {
            let runs = sampled.runs.len();
            Verdict {
                stdout: format!(
                    "ccl-sim: no race: {runs} random schedules of {ranks} ranks ({states} states, seed {}{})\n{}",
                    args.options.seed,
                    shard_text(&args.options),
                    executed(cost)
                ),
                code: 0,
            }
        }
        // A bound of the whole search is the entry's: the run it started.
        Outcome::Limit { states, generated, bound, .. } => {
            fail(report::search_limit(machine, *bound, *states, *generated))
        }
        Outcome::Found { finding, schedule, last, states, run, .. } => {
            eprint!("{}", report::finding(machine, finding, last));
            let code = match **finding {
                sim::Finding::Error { .. } | sim::Finding::Limit { .. } => 1,
                _ => 3,
            };
            let shown = if args.trace { 0 } else { schedule.len().saturating_sub(SHOWN_STEPS) };
            let found_in = match run {
                Some(run) => format!(", in random schedule {} of seed {}", run + 1, args.options.seed),
                None => String::new(),
            };
            eprintln!(
                "schedule ({} steps, found after {states} states{found_in}{}):",
                schedule.len(),
                shard_text(&args.options)
            );
            if shown > 0 {
                eprintln!("  ... {shown} earlier steps (--trace prints them)");
            }
            eprint!("{}", report::schedule(machine, &schedule[shown..], shown + 1));
            Verdict { stdout: String::new(), code }
        }
    }
}

/// Writes the verdict; a verdict that cannot be written is an error.
fn print_verdict(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).map_err(|error| {
        format!("ccl-sim: error: cannot write the verdict to standard output: {}", cclir::output::io_message(&error))
    })
}

fn main_with_exit_code() -> i32 {
    if !streams::stdout_is_open() {
        eprintln!("ccl-sim: error: standard output is closed: the verdict would be lost");
        return 1;
    }
    let args = match parse(std::env::args_os()) {
        Ok(Request::Run(args)) => *args,
        Ok(Request::Help(help)) => {
            return match print_verdict(&help) {
                Ok(()) => 0,
                Err(message) => {
                    eprintln!("{message}");
                    1
                }
            }
        }
        Err(message) => {
            eprintln!("ccl-sim: error: {message}\n{}", help());
            return 1;
        }
    };
    // The interpreter is iterative, but compiling a deeply nested program
    // recurses over its regions: give it room.
    let worker = std::thread::Builder::new().stack_size(512 << 20).spawn(move || run(args));
    let verdict = match worker.map(|handle| handle.join()) {
        Ok(Ok(verdict)) => verdict,
        Ok(Err(payload)) => {
            eprintln!("ccl-sim: internal error: {}", cclir::panic::message(&payload));
            return 1;
        }
        Err(error) => {
            eprintln!("ccl-sim: cannot start the simulation thread: {error}");
            return 1;
        }
    };
    match print_verdict(&verdict.stdout) {
        Ok(()) => verdict.code.into(),
        Err(message) => {
            eprintln!("{message}");
            1
        }
    }
}

cclir::process::c_main!(main_with_exit_code);

/// mimalloc, reporting what it holds to `sim::memory` (the `--max-memory`
/// bound reads it on every state). The search allocates and frees parts of
/// states on every transition, most of them small: mimalloc's per-thread
/// free lists take a fifth or more off its time against the system's
/// malloc (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: allocator::Counting<SimMemory, mimalloc::MiMalloc> = allocator::Counting::over(mimalloc::MiMalloc);

/// Where the allocator's counts go.
struct SimMemory;

impl allocator::Meter for SimMemory {
    fn allocated(bytes: usize) {
        memory::allocated(bytes);
    }

    fn freed(bytes: usize) {
        memory::freed(bytes);
    }

    /// Past `--max-memory`'s checks (an address-space limit below it, or
    /// the machine out of memory), an allocation that fails ends the run
    /// as a bound does: exit 1, "no conclusion", never an abort.
    fn failed(bytes: usize) {
        cclir::process::allocator::exit_out_of_memory(
            b"ccl-sim: error: the system refused memory (lower --max-memory or raise the address-space limit): an allocation of ",
            bytes,
            1,
        )
    }
}
