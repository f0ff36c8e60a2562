//! `ccl-sim`: runs a ccl program over P ranks under the execution model of
//! docs/semantics.md and reports the data races a schedule can produce.
//!
//! ```text
//! ccl-sim FILE --ranks P [--entry NAME] [--arg NAME=VALUE]... [--exhaustive | --random N] [--seed S]
//!         [--max-states N] [--max-steps N] [--max-memory SIZE] [--threads N] [--exact | --fingerprint BITS]
//!         [--engine dfs|stateright] [--stats] [--trace] [--no-reduction] [--sarif FILE] [--diagram FILE]
//! ```
//! Exit 0: no race (the states or schedules explored and what they executed
//! are printed); 3: a race or deadlock, with both accesses and the schedule;
//! 1: bad input, a runtime error of the program, or a limit reached before
//! the search finished ("no conclusion").
//!
//! The entry point is C's `main`, not Rust's: Rust's runtime would reopen a
//! closed standard output on /dev/null, and the verdict would be lost
//! without an error.
#![no_main]

use cclir::sim::{self, memory, report, EntryArg, Options, Outcome, Search};
use clap::Parser;
use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{OsStr, OsString};
use std::io::Write;

const USAGE: &str = "USAGE: ccl-sim FILE --ranks P [--entry NAME] [--arg NAME=VALUE]... [--exhaustive | --random N] [--seed S]\n\
\x20              [--max-states N] [--max-steps N] [--max-memory SIZE] [--threads N] [--exact | --fingerprint BITS]\n\
\x20              [--engine dfs|stateright] [--stats] [--trace] [--no-reduction] [--sarif FILE] [--diagram FILE]\n\
\n\
Runs FILE (a ccl program; '-' reads stdin) on P ranks and searches the schedules for data races.\n\
\x20 --ranks P         ranks to simulate (required, at least 1)\n\
\x20 --entry NAME      the function every rank runs (default: @main, else the one orchestration function nobody calls)\n\
\x20 --arg NAME=VALUE  a scalar argument of the entry, by name (rows, %rows) or position (0, 1, ...); others are 0\n\
\x20 --exhaustive      explore every schedule (the default)\n\
\x20 --random N        run N random schedules instead\n\
\x20 --seed S          seed of the random schedules (default 0)\n\
\x20 --max-states N    stop after generating N states (default 2000000)\n\
\x20 --max-steps N     steps a thread may run without one another thread can observe (default 1000000)\n\
\x20 --max-memory SIZE memory the run may hold, in bytes or with K, M, G (default: half the machine's)\n\
\x20                   reaching a bound is exit 1 with \"no conclusion\", never \"no race\"\n\
\x20 --threads N       threads of the exhaustive search (default: every core)\n\
\x20 --fingerprint BITS store visited states as 64- or 128-bit fingerprints (default 128)\n\
\x20 --exact           store visited states whole (no hash compaction)\n\
\x20 --engine NAME     dfs (default: depth-first on every core) or stateright (stateright's\n\
\x20                   breadth-first checker, whole states, shortest schedules)\n\
\x20 --stats           print what the exhaustive search stored (bytes a state), its depth and time\n\
\x20 --trace           print every step of the schedule reported (else its last 40 steps), and of\n\x20                   every random schedule as it runs\n\
\x20 --no-reduction    make every ccl op a scheduling point (for measuring the local-step reduction)\n\
\x20 --sarif FILE      write the verdict as a SARIF 2.1.0 log too (a race's schedule as one thread flow per thread)\n\
\x20 --diagram FILE    draw the schedule reported as an SVG (lanes per thread, sync edges, writes in flight)\n";

/// The command line as clap reads it: option values stay raw, so a bad one
/// gets ccl-sim's own message, and none has to be UTF-8 until it is used.
#[derive(Parser, Debug)]
#[command(name = "ccl-sim", no_binary_name = true, disable_help_flag = true, disable_version_flag = true)]
#[command(args_override_self = true)]
struct Cli {
    #[arg(value_name = "FILE")]
    files: Vec<OsString>,
    #[arg(long, allow_hyphen_values = true)]
    ranks: Option<OsString>,
    #[arg(long, allow_hyphen_values = true)]
    entry: Option<OsString>,
    #[arg(long = "arg", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    args: Vec<OsString>,
    #[arg(long)]
    exhaustive: bool,
    #[arg(long, allow_hyphen_values = true)]
    random: Option<OsString>,
    #[arg(long, allow_hyphen_values = true)]
    seed: Option<OsString>,
    #[arg(long = "max-states", allow_hyphen_values = true)]
    max_states: Option<OsString>,
    #[arg(long = "max-steps", allow_hyphen_values = true)]
    max_steps: Option<OsString>,
    #[arg(long = "max-memory", allow_hyphen_values = true)]
    max_memory: Option<OsString>,
    #[arg(long, allow_hyphen_values = true)]
    threads: Option<OsString>,
    #[arg(long, allow_hyphen_values = true)]
    fingerprint: Option<OsString>,
    #[arg(long)]
    exact: bool,
    #[arg(long, allow_hyphen_values = true)]
    engine: Option<OsString>,
    #[arg(long)]
    stats: bool,
    #[arg(long)]
    trace: bool,
    #[arg(long = "no-reduction")]
    no_reduction: bool,
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    sarif: Option<OsString>,
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    diagram: Option<OsString>,
    #[arg(short = 'h', long = "help")]
    help: bool,
}

struct Args {
    file: OsString,
    options: Options,
    trace: bool,
    stats: bool,
    /// Where the SARIF log and the diagram go.
    sarif: Option<String>,
    diagram: Option<String>,
}

/// What the command line asks for: a run, or the usage.
enum Request {
    Run(Box<Args>),
    Help,
}

/// clap's error, in ccl-sim's words.
fn usage_error(error: clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let argument = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(text)) => text.clone(),
        _ => String::new(),
    };
    // clap names an option as `--entry <ENTRY>`: the option is the first word.
    let option = argument.split([' ', '=']).next().unwrap_or_default().to_string();
    match error.kind() {
        ErrorKind::UnknownArgument => format!("unknown option '{option}'"),
        ErrorKind::InvalidValue | ErrorKind::NoEquals => format!("missing value for {option}"),
        ErrorKind::InvalidUtf8 => "an argument is not valid UTF-8".to_string(),
        _ => error.kind().as_str().map_or_else(|| error.to_string(), str::to_string),
    }
}

/// `text` as UTF-8, or an error naming `what`.
fn utf8<'a>(text: &'a OsStr, what: &str) -> Result<&'a str, String> {
    text.to_str().ok_or_else(|| format!("invalid value '{}' for {what}: not valid UTF-8", text.to_string_lossy()))
}

fn number(key: &str, text: &OsStr) -> Result<u64, String> {
    let text = utf8(text, key)?;
    text.parse().map_err(|_| format!("invalid value '{text}' for {key}: expected a non-negative integer"))
}

fn parse(args: Vec<OsString>) -> Result<Request, String> {
    let cli = Cli::try_parse_from(args).map_err(usage_error)?;
    if cli.help {
        return Ok(Request::Help);
    }
    let mut options = Options::default();
    let ranks = cli.ranks.as_deref().map(|r| number("--ranks", r)).transpose()?;
    if let Some(entry) = &cli.entry {
        options.entry = Some(utf8(entry, "--entry")?.trim_start_matches('@').to_string());
    }
    let random = cli.random.as_deref().map(|r| number("--random", r)).transpose()?;
    let seed = cli.seed.as_deref().map(|s| number("--seed", s)).transpose()?.unwrap_or(0);
    if let Some(max) = &cli.max_states {
        options.max_states = usize::try_from(number("--max-states", max)?).unwrap_or(usize::MAX);
    }
    if let Some(max) = &cli.max_steps {
        options.limits.max_steps = number("--max-steps", max)?;
    }
    if let Some(max) = &cli.max_memory {
        let text = utf8(max, "--max-memory")?;
        options.limits.max_memory = memory::parse_size(text).ok_or_else(|| {
            format!("invalid value '{text}' for --max-memory: expected bytes, or a number with K, M, G or T")
        })?;
    }
    for arg in &cli.args {
        let text = utf8(arg, "--arg")?;
        let Some((key, value)) = text.split_once('=') else {
            return Err(format!("invalid value '{text}' for --arg: expected NAME=VALUE"));
        };
        options.args.push(EntryArg { key: key.trim().to_string(), value: value.trim().to_string() });
    }
    let file = match <[OsString; 1]>::try_from(cli.files) {
        Ok([file]) => file,
        Err(files) if files.is_empty() => return Err("no input file".to_string()),
        Err(_) => return Err("more than one input file".to_string()),
    };
    let ranks = ranks.ok_or("--ranks P is required")?;
    if ranks == 0 || ranks > 64 {
        return Err(format!("--ranks must be between 1 and 64, not {ranks}"));
    }
    options.ranks = ranks as u16;
    options.search = match (random, cli.exhaustive) {
        (Some(_), true) => return Err("--exhaustive and --random exclude each other".to_string()),
        (Some(0), _) => return Err("--random needs at least one schedule".to_string()),
        (Some(runs), false) => Search::Random { runs: usize::try_from(runs).unwrap_or(usize::MAX), seed },
        (None, _) => Search::Exhaustive,
    };
    if let Some(threads) = &cli.threads {
        let threads = number("--threads", threads)?;
        if threads == 0 || threads > 1024 {
            return Err(format!("--threads must be between 1 and 1024, not {threads}"));
        }
        options.search_config.threads = threads as usize;
    }
    options.search_config.store = match (&cli.fingerprint, cli.exact) {
        (Some(_), true) => return Err("--exact and --fingerprint exclude each other".to_string()),
        (None, true) => sim::Store::Exact,
        (Some(bits), false) => match number("--fingerprint", bits)? {
            bits @ (64 | 128) => sim::Store::Fingerprint { bits: bits as u32 },
            bits => return Err(format!("invalid value '{bits}' for --fingerprint: expected 64 or 128")),
        },
        (None, false) => sim::Store::default(),
    };
    if let Some(engine) = &cli.engine {
        options.search_config.engine = match utf8(engine, "--engine")? {
            "dfs" => sim::Engine::Dfs,
            "stateright" => sim::Engine::Stateright,
            other => return Err(format!("invalid value '{other}' for --engine: expected dfs or stateright")),
        };
    }
    options.no_reduction = cli.no_reduction;
    options.trace = cli.trace;
    let sarif = cli.sarif.as_deref().map(|path| utf8(path, "--sarif").map(str::to_string)).transpose()?;
    let diagram = cli.diagram.as_deref().map(|path| utf8(path, "--diagram").map(str::to_string)).transpose()?;
    Ok(Request::Run(Box::new(Args { file, options, trace: cli.trace, stats: cli.stats, sarif, diagram })))
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
    let parsed = if args.file == "-" {
        let mut bytes = Vec::new();
        if let Err(error) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes) {
            let message = format!("ccl-sim: cannot read stdin: {}", cclir::output::io_message(&error));
            return (fail(message), Reports::None);
        }
        String::from_utf8(bytes).map_err(|_| "ccl-sim: error: stdin is not valid UTF-8".to_string())
    } else {
        let path = std::path::Path::new(&args.file);
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
    let name = if args.file == "-" { "<stdin>".to_string() } else { args.file.to_string_lossy().into_owned() };
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

/// Whether file descriptor 1 is open (Rust's standard output reports a
/// closed one as written).
fn stdout_is_open() -> bool {
    // SAFETY: F_GETFD on a descriptor number only reads its flags; no
    // memory is passed.
    unsafe { libc::fcntl(1, libc::F_GETFD) != -1 }
}

fn main_with_exit_code() -> u8 {
    if !stdout_is_open() {
        eprintln!("ccl-sim: error: standard output is closed: the verdict would be lost");
        return 1;
    }
    let request = match parse(std::env::args_os().skip(1).collect()) {
        Ok(request) => request,
        Err(message) => {
            eprintln!("ccl-sim: error: {message}\n{USAGE}");
            return 1;
        }
    };
    let args = match request {
        Request::Help => {
            return match print_verdict(USAGE) {
                Ok(()) => 0,
                Err(message) => {
                    eprintln!("{message}");
                    1
                }
            }
        }
        Request::Run(args) => *args,
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
        Ok(()) => verdict.code,
        Err(message) => {
            eprintln!("{message}");
            1
        }
    }
}

#[no_mangle]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    main_with_exit_code() as std::ffi::c_int
}

/// The system allocator, reporting what it holds to `sim::memory` (the
/// `--max-memory` bound reads it on every state).
struct CountingAllocator;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments,
// which meet `System`'s contract because they meet `GlobalAlloc`'s; the
// count beside it is atomic bookkeeping and never touches the memory (nor
// allocates).
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            memory::allocated(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            memory::allocated(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is (see the impl).
        unsafe { System.dealloc(pointer, layout) };
        memory::freed(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            memory::allocated(new_size);
            memory::freed(layout.size());
        }
        moved
    }
}
