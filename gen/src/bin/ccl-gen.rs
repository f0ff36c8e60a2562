//! `ccl-gen`: prints a seeded, deterministic random ccl program (valid MLIR
//! in generic form) to stdout.
//!
//! ```text
//! ccl-gen --seed 7 --ops 1000 --depth 6 [--functions N]
//! ccl-gen --all-to-all-v P,B[,ROWS[,CALLS]]
//! ccl-gen --exchange SEED
//! ccl-gen --litmus SEED
//! ccl-gen --litmus-coverage N
//! ```
//!
//! Every value is bounded (`cclir_gen::MAX_*`, `protocol::Shape`),
//! so every program printed parses and verifies under ccl-opt. A bad
//! argument is one line, `ccl-gen: ...` naming the flag (and the bound),
//! then the usage, on stderr, and exit status 1.
#![forbid(unsafe_code)]

use cclir_gen::{self as generator, protocol::Shape, Config, MAX_DEPTH, MAX_FUNCTIONS, MAX_OPS};
use clap::{
    error::{ContextKind, ContextValue, ErrorKind},
    Parser,
};
use std::io::Write;

/// The most programs `--litmus-coverage` generates (about a minute).
const MAX_COVERAGE: u64 = 1_000_000;

/// Prints a random, valid ccl program to stdout. The same options give the
/// same program.
#[derive(Parser, Debug)]
#[command(name = "ccl-gen", disable_version_flag = true, allow_negative_numbers = true)]
struct Cli {
    /// PRNG seed
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = seed)]
    seed: u64,

    /// About how many ops in total (at most 10000000)
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = ops)]
    ops: usize,

    /// Deepest control-flow nesting (at most 4000)
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = depth)]
    depth: usize,

    /// How many functions (1 to 100000; default: one per ~100 ops, at least 3)
    #[arg(long, value_name = "N", value_parser = functions)]
    functions: Option<usize>,

    /// Print instead the fixed all_to_all_v protocol program: CALLS (default
    /// 2) rounds of restaging the send counts, then ccl.all_to_all_v on P
    /// ranks with B blocks and ROWS (default 1) rows per peer (what ccl-sim's
    /// protocol checks run, lowered). B is at most 2147483647, P x ROWS below
    /// and P x B at most 2^63 - 1.
    #[arg(
        long = "all-to-all-v",
        value_name = "P,B[,ROWS[,CALLS]]",
        value_parser = protocol_shape,
        conflicts_with_all = ["seed", "ops", "depth", "functions", "exchange", "litmus", "litmus_coverage"]
    )]
    all_to_all_v: Option<Shape>,

    /// Print instead a random message-passing program that is synchronized by
    /// construction, small enough for `ccl-sim --exhaustive` (its first line
    /// names the rank count to run it with)
    #[arg(
        long,
        value_name = "SEED",
        value_parser = seed,
        conflicts_with_all = ["seed", "ops", "depth", "functions"]
    )]
    exchange: Option<u64>,

    /// Print instead a small program that reaches every rule of the
    /// execution model (signals that go up and down, writes of one element
    /// in flight together, launches and collectives), small enough for
    /// `ccl-sim --exhaustive --no-reduction --por off` (its first line names
    /// the rank count to run it with)
    #[arg(
        long,
        value_name = "SEED",
        value_parser = seed,
        conflicts_with_all = ["seed", "ops", "depth", "functions", "exchange"]
    )]
    litmus: Option<u64>,

    /// Print instead, for the litmus programs of seeds 0 to N - 1 (N from 1
    /// to 1000000), how many have each feature
    #[arg(
        long = "litmus-coverage",
        value_name = "N",
        value_parser = coverage_count,
        conflicts_with_all = ["seed", "ops", "depth", "functions", "exchange", "litmus"]
    )]
    litmus_coverage: Option<u64>,
}

/// A non-negative integer no larger than `max`.
fn bounded(text: &str, max: u64) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a non-negative integer".to_string());
    }
    match text.parse::<u64>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("must be at most {max}")),
    }
}

fn seed(text: &str) -> Result<u64, String> {
    bounded(text, u64::MAX)
}

fn ops(text: &str) -> Result<usize, String> {
    bounded(text, MAX_OPS).map(|n| n as usize)
}

fn depth(text: &str) -> Result<usize, String> {
    bounded(text, MAX_DEPTH).map(|n| n as usize)
}

fn coverage_count(text: &str) -> Result<u64, String> {
    match bounded(text, MAX_COVERAGE) {
        Ok(0) => Err("must be at least 1".to_string()),
        other => other,
    }
}

fn functions(text: &str) -> Result<usize, String> {
    match bounded(text, MAX_FUNCTIONS) {
        Ok(0) => Err("must be at least 1".to_string()),
        other => other.map(|n| n as usize),
    }
}

/// `P,B[,ROWS[,CALLS]]`, each value checked against what the program's
/// types hold.
fn protocol_shape(text: &str) -> Result<Shape, String> {
    let expected = "expected P,B[,ROWS[,CALLS]], each a positive integer";
    let numbers = text.split(',').map(|n| n.trim().parse::<u64>()).collect::<Result<Vec<u64>, _>>();
    match numbers.as_deref() {
        Ok([p, b]) => Shape::new(*p, *b, 1, 2),
        Ok([p, b, rows]) => Shape::new(*p, *b, *rows, 2),
        Ok([p, b, rows, calls]) => Shape::new(*p, *b, *rows, *calls),
        _ => Err(expected.to_string()),
    }
}

/// One line for a bad command line, in the words of the options' own
/// checks (`invalid value 'x' for --exchange: expected a non-negative
/// integer`).
fn message(error: &clap::Error) -> String {
    let context = |kind| match error.get(kind) {
        Some(ContextValue::String(text)) => Some(text.clone()),
        Some(ContextValue::Strings(texts)) => texts.first().cloned(),
        _ => None,
    };
    // Clap names an option with its value (`--ops <N>`); the flag is enough.
    let flag = || context(ContextKind::InvalidArg).map(|arg| arg.split(' ').next().unwrap_or_default().to_string());
    match error.kind() {
        ErrorKind::UnknownArgument => format!("unknown option '{}'", flag().unwrap_or_default()),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let flag = flag().unwrap_or_default();
            match (context(ContextKind::InvalidValue), std::error::Error::source(error)) {
                (Some(value), _) if value.is_empty() => format!("missing value for {flag}"),
                (Some(value), Some(reason)) => format!("invalid value '{value}' for {flag}: {reason}"),
                (Some(value), None) => format!("invalid value '{value}' for {flag}"),
                (None, _) => format!("missing value for {flag}"),
            }
        }
        ErrorKind::ArgumentConflict => match (flag(), context(ContextKind::PriorArg)) {
            (Some(flag), Some(prior)) => match prior.split(' ').next().unwrap_or_default() {
                prior if prior == flag => format!("{flag} given more than once"),
                prior => format!("{flag} cannot be used with {prior}"),
            },
            _ => first_line(error),
        },
        ErrorKind::InvalidUtf8 => "an argument is not valid UTF-8".to_string(),
        _ => first_line(error),
    }
}

/// Clap's own message, without its `error: ` and the lines after it.
fn first_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let line = rendered.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

fn main() {
    let cli = match Cli::try_parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(error) if matches!(error.kind(), ErrorKind::DisplayHelp) => {
            print!("{}", error.render());
            return;
        }
        Err(error) => {
            eprintln!(
                "ccl-gen: {}\nUsage: ccl-gen [OPTIONS]\nTry 'ccl-gen --help' for more information.",
                message(&error)
            );
            std::process::exit(1);
        }
    };
    let program = if let Some(shape) = cli.all_to_all_v {
        shape.program()
    } else if let Some(seed) = cli.exchange {
        generator::exchange::exchange_program(seed).text
    } else if let Some(seed) = cli.litmus {
        generator::litmus::litmus_program(seed).text
    } else if let Some(n) = cli.litmus_coverage {
        let coverage = generator::litmus::coverage(0..n);
        format!(
            "ccl-gen --litmus-coverage {n}: the features of the litmus programs of seeds 0..{n}\n{}",
            coverage.table()
        )
    } else {
        generator::generate(&Config { seed: cli.seed, ops: cli.ops, depth: cli.depth, functions: cli.functions })
    };
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Err(error) = lock.write_all(program.as_bytes()).and_then(|_| lock.flush()) {
        // A reader that stopped early (`| head`) ends the run quietly.
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("ccl-gen: cannot write the program: {error}");
        }
        std::process::exit(1);
    }
}
