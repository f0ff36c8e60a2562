//! `ccl-sim`: runs a ccl program over P ranks under the execution model of
//! docs/semantics.md and reports the data races a schedule can produce.
//!
//! ```text
//! ccl-sim FILE --ranks P [--entry NAME] [--exhaustive | --random N] [--seed S] [--max-states N] [--trace]
//! ```
//! Exit 0: no race (the states or schedules explored are printed); 3: a race
//! or deadlock, with both accesses and the schedule; 1: bad input, a runtime
//! error of the program, or a limit reached before the search finished.

use cclir::sim::{self, report, Options, Outcome, Search};
use std::process::ExitCode;

const USAGE: &str = "USAGE: ccl-sim FILE --ranks P [--entry NAME] [--exhaustive | --random N] [--seed S] [--max-states N] [--trace]\n\
\n\
Runs FILE (a ccl program; '-' reads stdin) on P ranks and searches the schedules for data races.\n\
\x20 --ranks P        ranks to simulate (required, at least 1)\n\
\x20 --entry NAME     the function every rank runs (default: @main, else the one orchestration function nobody calls)\n\
\x20 --exhaustive     explore every schedule (the default)\n\
\x20 --random N       run N random schedules instead\n\
\x20 --seed S         seed of the random schedules (default 0)\n\
\x20 --max-states N   stop after generating N states (default 2000000); reaching it is exit 1, never \"no race\"\n\
\x20 --trace          print every step of the schedule reported (else its last 40 steps), and of\n\x20                  every random schedule as it runs\n\
\x20 --no-reduction   make every ccl op a scheduling point (for measuring the local-step reduction)\n";

struct Args {
    file: String,
    options: Options,
    trace: bool,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut options = Options::default();
    let (mut file, mut ranks, mut trace, mut random, mut exhaustive, mut seed) = (None, None, false, None, false, 0);
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value =
            |key: &str| inline.clone().or_else(|| iter.next().cloned()).ok_or(format!("missing value for {key}"));
        let number = |key: &str, text: String| -> Result<u64, String> {
            text.parse().map_err(|_| format!("invalid value '{text}' for {key}: expected a non-negative integer"))
        };
        match key {
            "--help" | "-h" => return Err(String::new()),
            "--ranks" => ranks = Some(number(key, value(key)?)?),
            "--entry" => options.entry = Some(value(key)?.trim_start_matches('@').to_string()),
            "--exhaustive" => exhaustive = true,
            "--random" => random = Some(number(key, value(key)?)? as usize),
            "--seed" => seed = number(key, value(key)?)?,
            "--max-states" => options.max_states = number(key, value(key)?)? as usize,
            "--trace" => trace = true,
            "--no-reduction" => options.no_reduction = true,
            other if other.starts_with('-') && other != "-" => return Err(format!("unknown option '{other}'")),
            path => {
                if file.replace(path.to_string()).is_some() {
                    return Err("more than one input file".to_string());
                }
            }
        }
    }
    let file = file.ok_or("no input file")?;
    let ranks = ranks.ok_or("--ranks P is required")?;
    if ranks == 0 || ranks > 64 {
        return Err(format!("--ranks must be between 1 and 64, not {ranks}"));
    }
    options.ranks = ranks as u16;
    options.search = match (random, exhaustive) {
        (Some(_), true) => return Err("--exhaustive and --random exclude each other".to_string()),
        (Some(0), _) => return Err("--random needs at least one schedule".to_string()),
        (Some(runs), false) => Search::Random { runs, seed },
        (None, _) => Search::Exhaustive,
    };
    options.trace = trace;
    Ok(Args { file, options, trace })
}

/// Steps of a reported schedule shown without --trace.
const SHOWN_STEPS: usize = 40;

fn run(args: Args) -> u8 {
    let session = cclir::Session::new();
    let program = if args.file == "-" {
        let mut text = String::new();
        if let Err(error) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
            eprintln!("ccl-sim: cannot read stdin: {error}");
            return 1;
        }
        session.parse(&text, "<stdin>")
    } else {
        session.parse_file(&args.file)
    };
    let program = match program {
        Ok(program) => program,
        Err(cclir::Error::Parse { diagnostics, .. }) => {
            eprint!("{}", session.render(&diagnostics));
            return 1;
        }
        Err(error) => {
            eprintln!("ccl-sim: {error}");
            return 1;
        }
    };
    let (machine, outcome) = match sim::simulate(program.operation_ref(), &args.options) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("{error}");
            return 1;
        }
    };
    let ranks = args.options.ranks;
    match outcome {
        Outcome::Clean { states, schedules: None } => {
            println!("ccl-sim: no race: {states} states explored, every schedule of {ranks} ranks");
            0
        }
        Outcome::Clean { states, schedules: Some(runs) } => {
            let seed = match args.options.search {
                Search::Random { seed, .. } => seed,
                Search::Exhaustive => 0,
            };
            println!("ccl-sim: no race: {runs} random schedules of {ranks} ranks ({states} states, seed {seed})");
            0
        }
        Outcome::Limit { states, generated } => {
            eprintln!(
                "ccl-sim: error: --max-states {} reached ({generated} states generated, {states} distinct) before the search finished: no conclusion",
                args.options.max_states
            );
            1
        }
        Outcome::Found { finding, schedule, last, states } => {
            eprint!("{}", report::finding(&machine, &finding, &last));
            let code = match *finding {
                sim::Finding::Error { .. } => 1,
                _ => 3,
            };
            let shown = if args.trace { 0 } else { schedule.len().saturating_sub(SHOWN_STEPS) };
            eprintln!("schedule ({} steps, found after {states} states):", schedule.len());
            if shown > 0 {
                eprintln!("  ... {shown} earlier steps (--trace prints them)");
            }
            eprint!("{}", report::schedule(&machine, &schedule[shown..], shown + 1));
            code
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&args) {
        Ok(args) => args,
        Err(message) if message.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("ccl-sim: error: {message}\n{USAGE}");
            return ExitCode::from(1);
        }
    };
    // The interpreter is iterative, but compiling a deeply nested program
    // recurses over its regions: give it room.
    let worker = std::thread::Builder::new().stack_size(512 << 20).spawn(move || run(args));
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(payload)) => {
            eprintln!("ccl-sim: internal error: {}", cclir::panic::message(&payload));
            ExitCode::from(1)
        }
        Err(error) => {
            eprintln!("ccl-sim: cannot start the simulation thread: {error}");
            ExitCode::from(1)
        }
    }
}
