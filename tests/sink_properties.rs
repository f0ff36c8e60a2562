//! Properties of `ccl-sink-comm-markers` on generated programs (ccl-gen's
//! generator, in process): for every program `p`,
//! 1. `ccl-pipeline{placement=minimal}` accepts it: the checker proves the
//!    moved markers sufficient, beyond the rules too (the minimal
//!    placement adds what the program needs that the rules leave out);
//! 2. `ccl-pipeline{placement=minimal}` run on its own output changes
//!    nothing, byte for byte (a fixed point), and neither does a second
//!    run of the sink pass alone on the rules' placement;
//! 3. where the rules' placement is enough (the checker accepts it), the
//!    minimal one leaves no more marker ops than the insert pass placed;
//! 4. without `placement=minimal` the pipeline's output is the one of the
//!    passes it always ran, byte for byte (or both reject the program with
//!    the same errors: the checker finds a race the rules miss).
//!
//! `CCLIR_SINK_CASES` programs (default 1000 optimized, 200 in a debug
//! build: small ones of every shape and some of a thousand ops or so; the
//! test command runs it optimized too); `CCLIR_SINK_SEED` moves the window. A
//! longer run: `CCLIR_SINK_CASES=100000 cargo test --release --test
//! sink_properties -- --nocapture`.

use cclir::generator::{self, Config};
use cclir::Session;

/// The markers' contract: the checker proves the markers (not the
/// synchronisation, which many generated programs leave unproven: a
/// recursion, a branch on memory).
const MINIMAL: &str = "builtin.module(ccl-pipeline{placement=minimal sync=false})";
const INSERTED: &str =
    "builtin.module(ccl-find-post-collective-kernels,func.func(ccl-admit-launch-width,ccl-insert-kernel-fence))";
const SINK: &str = "builtin.module(func.func(ccl-sink-comm-markers))";
const RULES: &str = "builtin.module(ccl-pipeline{placement=rules sync=false})";
const RULES_SPELLED_OUT: &str = "builtin.module(ccl-find-post-collective-kernels,func.func(ccl-admit-launch-width,\
                                 ccl-insert-kernel-fence),ccl-verify-comm-order{sync=false})";

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The shape of case `n`: mostly small programs, every twentieth a larger
/// one.
fn config(seed: u64) -> Config {
    let mut rng = generator::Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let ops = if seed.is_multiple_of(20) { 300 + rng.below(1200) } else { 6 + rng.below(200) };
    Config { seed, ops, depth: rng.below(7), functions: Some(1 + rng.below(6)) }
}

fn markers(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with("ccl.fence") || l.trim_start().starts_with("ccl.cacheinvalid"))
        .count()
}

fn run(session: &Session, pipeline: &cclir::BuiltPipeline<'_>, text: &str, what: &str) -> String {
    let mut program = session.parse(text, "input.mlir").unwrap_or_else(|e| panic!("{what}: {e:?}\n{text}"));
    if let Err(e) = session.run(pipeline, &mut program) {
        panic!("{what}:\n{}\n{text}", session.render(e.diagnostics()));
    }
    program.to_text()
}

/// Panics, showing the first difference, when `again` is not `first`.
fn assert_unchanged(first: &str, again: &str, what: &str) {
    if first == again {
        return;
    }
    let line = first.lines().zip(again.lines()).position(|(a, b)| a != b).unwrap_or_default();
    let show = |text: &str| text.lines().skip(line.saturating_sub(8)).take(16).collect::<Vec<_>>().join("\n");
    panic!("{what} changed it at line {}:\n{}\n--- run again:\n{}", line + 1, show(first), show(again));
}

/// The output of `pipeline` on `text`, or its diagnostics.
fn attempt(session: &Session, pipeline: &cclir::BuiltPipeline<'_>, text: &str) -> Result<String, String> {
    let mut program = session.parse(text, "input.mlir").map_err(|e| format!("{e:?}"))?;
    match session.run(pipeline, &mut program) {
        Ok(_) => Ok(program.to_text()),
        Err(e) => Err(session.render(e.diagnostics())),
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "the optimized build runs it, on more cases (scripts/test.sh)")]
fn the_sink_pass_keeps_its_contract_on_generated_programs() {
    let cases = env_u64("CCLIR_SINK_CASES", if cfg!(debug_assertions) { 200 } else { 1000 });
    let base = env_u64("CCLIR_SINK_SEED", 0);
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let minimal = session.pipeline(MINIMAL).expect("minimal pipeline");
    let inserted = session.pipeline(INSERTED).expect("insert pipeline");
    let sink = session.pipeline(SINK).expect("sink pipeline");
    let rules = session.pipeline(RULES).expect("rules pipeline");
    let spelled_out = session.pipeline(RULES_SPELLED_OUT).expect("the rules' passes");
    let verify = session.pipeline("builtin.module(ccl-verify-comm-order{sync=false})").expect("verify pipeline");
    let (mut before, mut after, mut changed, mut beyond) = (0, 0, 0, 0);
    for seed in base..base + cases {
        let config = config(seed);
        let what = format!(
            "ccl-gen --seed {} --ops {} --depth {} --functions {}",
            config.seed,
            config.ops,
            config.depth,
            config.functions.unwrap_or_default()
        );
        let source = generator::generate(&config);
        let optimized = run(&session, &minimal, &source, &format!("{what}: the minimal placement is rejected"));

        let fixed = run(&session, &minimal, &optimized, &format!("{what}: the minimal pipeline on its own output"));
        assert_unchanged(&optimized, &fixed, &format!("{what}: ccl-pipeline{{placement=minimal}} on its own output"));
        let placed = run(&session, &inserted, &source, &format!("{what}: the insertion"));
        // The walk alone (no scan before it: nothing known of the program)
        // is a fixed point too.
        let walked = run(&session, &sink, &placed, &format!("{what}: the sink pass alone"));
        let again = run(&session, &sink, &walked, &format!("{what}: a second run"));
        assert_unchanged(&walked, &again, &format!("{what}: a second run of the sink pass"));
        let rules_enough = {
            let mut program = session.parse(&placed, "placed.mlir").expect("the insertion's output parses");
            let enough = session.run(&verify, &mut program).is_ok();
            let _ = session.take_diagnostics();
            enough
        };
        if rules_enough {
            assert!(markers(&optimized) <= markers(&placed), "{what}: more markers than the insert pass placed");
            before += markers(&placed);
            after += markers(&optimized);
        } else {
            beyond += 1;
        }
        changed += (optimized != placed) as usize;
        if seed.is_multiple_of(10) {
            // The checker may reject the rules' placement (a race the rules
            // miss): then both reject it, with the same errors.
            let default = attempt(&session, &rules, &source);
            assert_eq!(default, attempt(&session, &spelled_out, &source), "{what}: placement=rules changed");
        }
        let _ = session.take_diagnostics();
    }
    println!(
        "sink_properties: {cases} programs, {changed} changed; where the rules are enough, marker ops {before} placed \
         by the rules, {after} left; {beyond} programs that need more than the rules"
    );
    assert!(
        changed * 2 > cases as usize,
        "the pass changed fewer than half the programs: the generator lost its point"
    );
}
