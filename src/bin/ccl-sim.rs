//! `ccl-sim`: runs a ccl program over P ranks under the execution model of
//! docs/semantics.md and reports the data races a schedule can produce.
//!
//! ```text
//! ccl-sim FILE --ranks P [--entry NAME] [--arg NAME=VALUE]... [--exhaustive | --random N] [--seed S]
//!         [--max-states N] [--max-steps N] [--max-memory SIZE] [--threads N] [--exact | --fingerprint BITS]
//!         [--engine dfs|stateright] [--por on|off|dpor] [--max-time SECONDS] [--stats] [--trace] [--no-reduction] [--sarif FILE] [--diagram FILE]
//! ```
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
use cclir::sim::{self, memory, report, EntryArg, Options, Outcome, Search};
use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser};
use std::io::Write;
use std::path::PathBuf;

/// The command line. Option values are read by the parsers below, whose
/// errors are the reasons in ccl-sim's `invalid value` messages; what
/// involves several options is checked after (`parse`).
#[derive(Parser, Debug)]
#[command(
    name = "ccl-sim",
    about = "Runs FILE (a ccl program; '-' reads stdin) on P ranks and searches the schedules for data races.\n\
             Reaching a bound (--max-states, --max-steps, --max-memory) is exit 1 with \"no conclusion\", never \"no \
             race\".",
    disable_version_flag = true,
    args_override_self = true,
    override_usage = "ccl-sim FILE --ranks P [--entry NAME] [--arg NAME=VALUE]... [--exhaustive | --random N] [--seed S]\n\
\x20              [--max-states N] [--max-steps N] [--max-memory SIZE] [--threads N] [--exact | --fingerprint BITS]\n\
\x20              [--engine dfs|stateright] [--por on|off|dpor] [--max-time SECONDS] [--stats] [--trace] [--no-reduction] [--sarif FILE] [--diagram FILE]",
    help_template = "USAGE: {usage}\n\n{about}\n\n{all-args}"
)]
struct Cli {
    /// The ccl program ('-' reads stdin)
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,

    /// Ranks to simulate (required, at least 1)
    #[arg(long, value_name = "P", allow_hyphen_values = true, value_parser = text(number))]
    ranks: Option<u64>,

    /// The function every rank runs (default: @main, else the one
    /// orchestration function nobody calls)
    #[arg(long, value_name = "NAME", allow_hyphen_values = true, value_parser = text(entry))]
    entry: Option<String>,

    /// A scalar argument of the entry, by name (rows, %rows) or position (0,
    /// 1, ...); others are 0
    #[arg(long = "arg", value_name = "NAME=VALUE", allow_hyphen_values = true, value_parser = text(entry_arg))]
    args: Vec<EntryArg>,

    /// Explore every schedule (the default)
    #[arg(long)]
    exhaustive: bool,

    /// Run N random schedules instead
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = text(number))]
    random: Option<u64>,

    /// Seed of the random schedules [default: 0]
    #[arg(long, value_name = "S", allow_hyphen_values = true, value_parser = text(number))]
    seed: Option<u64>,

    /// Stop after generating N states [default: 2000000]
    #[arg(long = "max-states", value_name = "N", allow_hyphen_values = true, value_parser = text(number))]
    max_states: Option<u64>,

    /// Steps a thread may run without one another thread can observe
    /// [default: 1000000]
    #[arg(long = "max-steps", value_name = "N", allow_hyphen_values = true, value_parser = text(number))]
    max_steps: Option<u64>,

    /// Memory the run may hold, in bytes or with K, M, G [default: half the
    /// machine's]
    #[arg(long = "max-memory", value_name = "SIZE", allow_hyphen_values = true, value_parser = text(size))]
    max_memory: Option<u64>,

    /// Threads of the exhaustive search [default: every core]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = text(number))]
    threads: Option<u64>,

    /// Store visited states as 64- or 128-bit fingerprints [default: 128]
    #[arg(long, value_name = "BITS", allow_hyphen_values = true, value_parser = text(fingerprint_bits))]
    fingerprint: Option<u32>,

    /// Store visited states whole (no hash compaction)
    #[arg(long)]
    exact: bool,

    /// dfs (default: depth-first on every core) or stateright (stateright's
    /// breadth-first checker, whole states, shortest schedules)
    #[arg(long, value_name = "NAME", allow_hyphen_values = true, value_parser = text(engine))]
    engine: Option<sim::Engine>,

    /// Partial-order reduction of the exhaustive search: on (default:
    /// persistent sets, stored states), off, or dpor (dynamic: stateless,
    /// source sets and sleep sets)
    #[arg(long, value_name = "on|off|dpor", allow_hyphen_values = true, value_parser = text(por_mode))]
    por: Option<PorMode>,

    /// Seconds the exhaustive search may run before it stops with no
    /// conclusion
    #[arg(long = "max-time", value_name = "SECONDS", allow_hyphen_values = true, value_parser = text(seconds))]
    max_time: Option<f64>,

    /// Print what the exhaustive search stored (bytes a state), its depth
    /// and time
    #[arg(long)]
    stats: bool,

    /// Print every step of the schedule reported (else its last 40 steps),
    /// and of every random schedule as it runs
    #[arg(long)]
    trace: bool,

    /// Make every ccl op a scheduling point (for measuring the local-step
    /// reduction)
    #[arg(long = "no-reduction")]
    no_reduction: bool,

    /// Write the verdict as a SARIF 2.1.0 log too (a race's schedule as one
    /// thread flow per thread)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = text(path))]
    sarif: Option<String>,

    /// Draw the schedule reported as an SVG (lanes per thread, sync edges,
    /// writes in flight)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = text(path))]
    diagram: Option<String>,
}

/// The parser of an option's value: the value must be UTF-8, then `parse`
/// reads it; its error is the reason in `invalid value 'x' for --y: reason`.
fn text<T: Clone + Send + Sync + 'static>(parse: fn(&str) -> Result<T, String>) -> impl TypedValueParser<Value = T> {
    OsStringValueParser::new().try_map(move |value| match value.to_str() {
        Some(text) => parse(text),
        None => Err("not valid UTF-8".to_string()),
    })
}

fn number(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| "expected a non-negative integer".to_string())
}

fn entry(text: &str) -> Result<String, String> {
    Ok(text.trim_start_matches('@').to_string())
}

fn entry_arg(text: &str) -> Result<EntryArg, String> {
    let (key, value) = text.split_once('=').ok_or("expected NAME=VALUE")?;
    Ok(EntryArg { key: key.trim().to_string(), value: value.trim().to_string() })
}

fn size(text: &str) -> Result<u64, String> {
    memory::parse_size(text).ok_or_else(|| "expected bytes, or a number with K, M, G or T".to_string())
}

fn fingerprint_bits(text: &str) -> Result<u32, String> {
    match number(text)? {
        bits @ (64 | 128) => Ok(bits as u32),
        _ => Err("expected 64 or 128".to_string()),
    }
}

fn engine(text: &str) -> Result<sim::Engine, String> {
    match text {
        "dfs" => Ok(sim::Engine::Dfs),
        "stateright" => Ok(sim::Engine::Stateright),
        _ => Err("expected dfs or stateright".to_string()),
    }
}

/// `--por`: the persistent-set reduction on or off, or the dynamic one.
#[derive(Clone, Copy, Debug)]
enum PorMode {
    Persistent(bool),
    Dynamic,
}

fn por_mode(text: &str) -> Result<PorMode, String> {
    match text {
        "on" => Ok(PorMode::Persistent(true)),
        "off" => Ok(PorMode::Persistent(false)),
        "dpor" => Ok(PorMode::Dynamic),
        _ => Err("expected on, off or dpor".to_string()),
    }
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        _ => Err("expected a non-negative number of seconds".to_string()),
    }
}

fn path(text: &str) -> Result<String, String> {
    Ok(text.to_string())
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
    Cli::command().render_help().to_string()
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
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) if error.kind() == ErrorKind::DisplayHelp => return Ok(Request::Help(help())),
        Err(error) => return Err(usage_error(&error)),
    };
    let file = match <[PathBuf; 1]>::try_from(cli.files) {
        Ok([file]) => file,
        Err(files) if files.is_empty() => return Err("no input file".to_string()),
        Err(_) => return Err("more than one input file".to_string()),
    };
    let mut options = Options { entry: cli.entry, args: cli.args, ..Options::default() };
    if let Some(max) = cli.max_states {
        options.max_states = usize::try_from(max).unwrap_or(usize::MAX);
    }
    if let Some(max) = cli.max_steps {
        options.limits.max_steps = max;
    }
    if let Some(max) = cli.max_memory {
        options.limits.max_memory = max;
    }
    let ranks = cli.ranks.ok_or("--ranks P is required")?;
    if ranks == 0 || ranks > 64 {
        return Err(format!("--ranks must be between 1 and 64, not {ranks}"));
    }
    options.ranks = ranks as u16;
    options.search = match (cli.random, cli.exhaustive) {
        (Some(_), true) => return Err("--exhaustive and --random exclude each other".to_string()),
        (Some(0), _) => return Err("--random needs at least one schedule".to_string()),
        (Some(runs), false) => {
            Search::Random { runs: usize::try_from(runs).unwrap_or(usize::MAX), seed: cli.seed.unwrap_or(0) }
        }
        (None, _) => Search::Exhaustive,
    };
    if let Some(threads) = cli.threads {
        if threads == 0 || threads > 1024 {
            return Err(format!("--threads must be between 1 and 1024, not {threads}"));
        }
        options.search_config.threads = threads as usize;
    }
    options.search_config.store = match (cli.fingerprint, cli.exact) {
        (Some(_), true) => return Err("--exact and --fingerprint exclude each other".to_string()),
        (None, true) => sim::Store::Exact,
        (Some(bits), false) => sim::Store::Fingerprint { bits },
        (None, false) => sim::Store::default(),
    };
    if let Some(engine) = cli.engine {
        options.search_config.engine = engine;
    }
    match cli.por {
        Some(PorMode::Persistent(on)) => options.search_config.por = on,
        Some(PorMode::Dynamic) if cli.engine.is_some_and(|engine| engine != sim::Engine::Dfs) => {
            return Err("--por dpor is an engine of its own: it excludes --engine stateright".to_string())
        }
        Some(PorMode::Dynamic) => options.search_config.engine = sim::Engine::Dpor,
        None => {}
    }
    options.search_config.max_seconds = cli.max_time;
    options.no_reduction = cli.no_reduction;
    options.trace = cli.trace;
    Ok(Request::Run(Box::new(Args {
        file,
        options,
        trace: cli.trace,
        stats: cli.stats,
        sarif: cli.sarif,
        diagram: cli.diagram,
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
    let (machine, outcome) = match sim::simulate(program.operation_ref(), &args.options) {
        Ok(result) => result,
        Err(error) => {
            let diagnostic = cclir::Diagnostic {
                severity: cclir::Severity::Error,
                loc: error.loc.clone(),
                message: error.message.clone(),
                notes: Vec::new(),
            };
            return (fail(error), Reports::InputError(vec![diagnostic]));
        }
    };
    if let Some(stats) = outcome.stats().filter(|_| args.stats) {
        eprintln!("{}", report::search(stats));
    }
    let verdict = verdict(&args, &machine, &outcome);
    (verdict.clone(), Reports::Outcome(Box::new(machine), Box::new(outcome), verdict.stdout))
}

/// Prints the report of `outcome` on standard error and returns the verdict.
fn verdict(args: &Args, machine: &sim::Machine, outcome: &Outcome) -> Verdict {
    let ranks = args.options.ranks;
    let executed =
        |cost: &sim::RunCost| report::cost(cost).lines().map(|line| format!("ccl-sim: {line}\n")).collect::<String>();
    match outcome {
        Outcome::Clean { states, schedules: None, cost, .. } => Verdict {
            stdout: format!(
                "ccl-sim: no race: {states} states explored, every schedule of {ranks} ranks\n{}",
                executed(cost)
            ),
            code: 0,
        },
        Outcome::Clean { states, schedules: Some(runs), cost, .. } => {
            let seed = match args.options.search {
                Search::Random { seed, .. } => seed,
                Search::Exhaustive => 0,
            };
            Verdict {
                stdout: format!(
                    "ccl-sim: no race: {runs} random schedules of {ranks} ranks ({states} states, seed {seed})\n{}",
                    executed(cost)
                ),
                code: 0,
            }
        }
        // A bound of the whole search is the entry's: the run it started.
        Outcome::Limit { states, generated, bound, .. } => {
            fail(report::search_limit(machine, *bound, *states, *generated))
        }
        Outcome::Found { finding, schedule, last, states, .. } => {
            eprint!("{}", report::finding(machine, finding, last));
            let code = match **finding {
                sim::Finding::Error { .. } | sim::Finding::Limit { .. } => 1,
                _ => 3,
            };
            let shown = if args.trace { 0 } else { schedule.len().saturating_sub(SHOWN_STEPS) };
            eprintln!("schedule ({} steps, found after {states} states):", schedule.len());
            if shown > 0 {
                eprintln!("  ... {shown} earlier steps (--trace prints them)");
            }
            eprint!("{}", report::schedule(&schedule[shown..], shown + 1));
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
}
