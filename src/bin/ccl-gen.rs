//! `ccl-gen`: prints a seeded, deterministic random ccl program (valid MLIR
//! in generic form) to stdout.
//!
//! ```text
//! ccl-gen --seed 7 --ops 1000 --depth 6 [--functions N]
//! ```
use std::io::Write;

const USAGE: &str = "USAGE: ccl-gen [--seed N] [--ops N] [--depth N] [--functions N]\n\
       ccl-gen --all-to-all-v P,B[,ROWS[,CALLS]]\n\
       ccl-gen --exchange SEED\n\
\n\
Prints a random, valid ccl program to stdout. The same options give the same program.\n\
  --seed N       PRNG seed (default 0)\n\
  --ops N        about how many ops in total (default 200)\n\
  --depth N      deepest control-flow nesting (default 4)\n\
  --functions N  how many functions (default: one per ~100 ops, at least 3)\n\
  --all-to-all-v P,B[,ROWS[,CALLS]]\n\
                 print instead the fixed all_to_all_v protocol program: CALLS (default 2) rounds of\n\
                 restaging the send counts, then ccl.all_to_all_v on P ranks with B blocks and ROWS\n\
                 (default 1) rows per peer (what ccl-sim's protocol checks run, lowered)\n\
  --exchange SEED\n\
                 print instead a random message-passing program that is synchronized by construction, small\n\
                 enough for `ccl-sim --exhaustive` (its first line names the rank count to run it with)\n";

/// `P,B[,ROWS[,CALLS]]` of --all-to-all-v.
fn protocol_shape(text: &str) -> Result<[usize; 4], String> {
    let numbers: Vec<usize> = text
        .split(',')
        .map(|n| n.trim().parse().map_err(|_| format!("invalid --all-to-all-v '{text}': expected P,B[,ROWS[,CALLS]]")))
        .collect::<Result<_, _>>()?;
    match numbers.as_slice() {
        [p, b] => Ok([*p, *b, 1, 2]),
        [p, b, rows] => Ok([*p, *b, *rows, 2]),
        [p, b, rows, calls] => Ok([*p, *b, *rows, *calls]),
        _ => Err(format!("invalid --all-to-all-v '{text}': expected P,B[,ROWS[,CALLS]]")),
    }
    .and_then(|shape| {
        if shape.contains(&0) {
            Err("--all-to-all-v values must be at least 1".to_string())
        } else {
            Ok(shape)
        }
    })
}

fn parse(args: &[String]) -> Result<cclir::generator::Config, String> {
    let mut config = cclir::generator::Config::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if key == "--help" || key == "-h" {
            return Err(String::new());
        }
        if !matches!(key, "--seed" | "--ops" | "--depth" | "--functions") {
            return Err(format!("unknown option '{key}'"));
        }
        let value = match inline {
            Some(v) => v,
            None => iter.next().cloned().ok_or_else(|| format!("missing value for {key}"))?,
        };
        let number: u64 =
            value.parse().map_err(|_| format!("invalid value '{value}' for {key}: expected a non-negative integer"))?;
        match key {
            "--seed" => config.seed = number,
            "--ops" => config.ops = number as usize,
            "--depth" => config.depth = number as usize,
            "--functions" if number > 0 => config.functions = Some(number as usize),
            "--functions" => return Err("--functions must be at least 1".to_string()),
            _ => return Err(format!("unknown option '{key}'")),
        }
    }
    Ok(config)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let program = match args.as_slice() {
        [flag, shape] if flag == "--all-to-all-v" => protocol_shape(shape)
            .map(|[p, b, rows, calls]| cclir::generator::protocol::all_to_all_v_program(p, b, rows, calls)),
        [flag, seed] if flag == "--exchange" => seed
            .parse()
            .map(|seed| cclir::generator::exchange::exchange_program(seed).text)
            .map_err(|_| format!("invalid value '{seed}' for --exchange: expected a non-negative integer")),
        _ => parse(&args).map(|config| cclir::generator::generate(&config)),
    };
    match program {
        Ok(text) => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            if lock.write_all(text.as_bytes()).and_then(|_| lock.flush()).is_err() {
                std::process::exit(1);
            }
        }
        Err(message) if message.is_empty() => print!("{USAGE}"),
        Err(message) => {
            eprintln!("ccl-gen: {message}\n{USAGE}");
            std::process::exit(2);
        }
    }
}
