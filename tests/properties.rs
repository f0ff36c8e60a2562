//! Property tests of the two communication-order passes on generated
//! programs (ccl-gen's generator, in process, through the library API).
//!
//! For every program `p`:
//! (programs with `cf` regions of several blocks and with publishing
//! wrappers among them, counted and required):
//! 0. `ccl-pipeline` (admission, insertion, then the checker) accepts it,
//!    or rejects it only for races beyond the rules' discipline
//!    (`verify_comm_order::beyond_the_rules`: writes in flight together,
//!    plain-buffer writes other blocks read, launches Phase B does not
//!    see), which the generator's programs often have;
//! 1. `insert(p)` verifies, and `verify(insert(p))` reports nothing but
//!    those;
//! 2. `insert(insert(p)) == insert(p)`, byte for byte;
//! 3. the checker and the slow oracle (`verify_comm_order::oracle`, naive
//!    per-source fixpoints) agree exactly, pair for pair, on `p` itself
//!    (which is unfenced and full of violations); and Phase B (summaries,
//!    launches, marked kernels, the checker's launch violations) equals its
//!    naive oracle (`comm_order::oracle`: rounds over every function, no
//!    memo, a fresh walk of the call graph per launch);
//! 4. mutation (on every `MUTATE_EVERY`-th program): each marker the insert
//!    pass added is deleted, one at a time; the checker must reject the
//!    mutant for the rules' discipline exactly when the oracle finds an
//!    unprotected path (a write/opaque/remote publish reaching a notify or
//!    return, a wait reaching a GM read, or a launched kernel reading
//!    before invalidating).
//!    The counts are printed.
//!
//! Quick by default (`CCLIR_PROPERTY_CASES`, default 10000 small programs,
//! well under a minute in a debug build on two cores). The nightly run:
//! `CCLIR_PROPERTY_CASES=1000000 cargo test --release --test properties -- --nocapture`
//! (`CCLIR_PROPERTY_SEED` moves the window of seeds).

mod common;

use cclir::{
    dialect::names::FunctionKind,
    generator::{self, Config},
    passes::comm_order::{
        model::{self, Bodies, Event, OpKey},
        oracle as phase_b_oracle, scan,
    },
    passes::insert_comm_fence::prologue,
    passes::verify_comm_order::{beyond_the_rules, kernel, launches, oracle},
    Session,
};
use common::inserted_lines;
use std::{
    collections::BTreeSet,
    sync::atomic::{AtomicU64, Ordering},
    time::Instant,
};

const INSERT: &str = "ccl-insert-comm-fence";
const VERIFY: &str = "ccl-verify-comm-order";
const MUTATE_EVERY: u64 = 3;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The shape of case `n`: small programs of every shape.
fn config(seed: u64) -> Config {
    let mut rng = generator::Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    Config { seed, ops: 6 + rng.below(40), depth: rng.below(4), functions: Some(1 + rng.below(4)) }
}

#[derive(Default)]
struct Counts {
    programs: AtomicU64,
    markers: AtomicU64,
    mutants: AtomicU64,
    caught: AtomicU64,
    safe_deletions: AtomicU64,
    /// Per marker kind (fence, region invalidate, whole-GM invalidate):
    /// [deleted, caught].
    by_kind: [[AtomicU64; 2]; 3],
    oracle_pairs: AtomicU64,
    /// Programs with a region of several blocks (`cf.br` / `cf.cond_br`).
    with_cf: AtomicU64,
    /// Calls the insert pass found publishing through a wrapper.
    wrapper_publishes: AtomicU64,
    /// Programs whose summaries took the naive oracle more than one round
    /// (a wrapper called before it is summarised, or a cycle of them).
    summary_rounds: AtomicU64,
    /// Programs `ccl-pipeline` rejects for races beyond the rules only.
    beyond: AtomicU64,
}

/// What the oracle says about a lowered module: is any path unprotected?
fn oracle_violations(module: &model::Module) -> usize {
    let mut count = 0;
    let mut unprotected = vec![None; module.functions.len()];
    for (index, function) in module.functions.iter().enumerate() {
        if function.kind != FunctionKind::InCore {
            continue;
        }
        let report = oracle::check(function);
        count += report.pairs.len();
        // Phase B needs the read's op; the oracle gives its order, which
        // compare_with_oracle has already found equal to the checker's.
        unprotected[index] = report.unprotected_read.and(kernel::check(function).unprotected_read.map(|(_, op)| op));
    }
    // Phase B is the shared scan (comm_order::scan); ccl-sim is its
    // independent, dynamic check.
    count + launches::check(module, &unprotected).violations.len()
}

/// Property 3: the checker's kernel answers equal the oracle's.
fn compare_with_oracle(module: &model::Module, what: &str) -> usize {
    let mut pairs = 0;
    for function in module.functions.iter().filter(|f| f.kind == FunctionKind::InCore) {
        let fast = kernel::check(function);
        let slow = oracle::check(function);
        let fast_pairs: BTreeSet<(u32, u32)> = fast.violations.iter().map(|v| (v.source_order, v.sink_order)).collect();
        assert_eq!(fast_pairs, slow.pairs, "{what}: @{}: checker and oracle disagree on pairs", function.name);
        assert_eq!(
            fast.unprotected_read.map(|(order, _)| order),
            slow.unprotected_read,
            "{what}: @{}: checker and oracle disagree on the first unprotected read",
            function.name
        );
        pairs += slow.pairs.len();
    }
    pairs
}

/// Every launch the scan reports, as the oracle lists them.
#[derive(Default)]
struct Collect(BTreeSet<(usize, u32, Option<usize>)>);

impl scan::Launches for Collect {
    fn launch(&mut self, caller: usize, call: &Event, callee: Option<usize>, _publish: OpKey) {
        self.0.insert((caller, call.order, callee));
    }
}

/// Property 3, Phase B: the summaries, launches and marked kernels equal
/// the naive oracle's; whether the oracle needed more than one round.
fn compare_phase_b_with_oracle(module: &model::Module, what: &str) -> bool {
    let slow = phase_b_oracle::phase_b(module);
    assert_eq!(scan::summaries(module), slow.summaries, "{what}: summaries differ from the oracle's");
    let mut launches = Collect::default();
    scan::scan_module(module, &mut launches);
    assert_eq!(launches.0, slow.launches, "{what}: launches differ from the oracle's");
    assert_eq!(prologue::mark(module).marked, slow.marked, "{what}: marked kernels differ from the oracle's");
    // The checker's launch violations, with each kernel's first unprotected
    // read from the kernel checker (compare_with_oracle checks those).
    let unprotected: Vec<Option<OpKey>> = module
        .functions
        .iter()
        .map(|f| {
            (f.kind == FunctionKind::InCore).then(|| kernel::check(f).unprotected_read.map(|(_, op)| op)).flatten()
        })
        .collect();
    let fast: BTreeSet<(usize, u32, usize)> =
        launches::check(module, &unprotected).violations.iter().map(|v| (v.caller, v.call_order, v.kernel)).collect();
    let expected = phase_b_oracle::launch_violations(module, &slow, |k| unprotected[k].is_some());
    assert_eq!(fast, expected, "{what}: launch violations differ from the oracle's");
    slow.rounds > 1
}

/// 0: `ccl.fence`, 1: region `ccl.cacheinvalid %w`, 2: whole-GM.
fn marker_kind(line: &str) -> usize {
    match line.trim() {
        "ccl.fence" => 0,
        "ccl.cacheinvalid" => 2,
        other => {
            assert!(other.starts_with("ccl.cacheinvalid %"), "an inserted line that is no marker: {line}");
            1
        }
    }
}

/// The errors among `diagnostics` that break the rules' discipline (not
/// the races beyond it).
fn rules_violations(diagnostics: &[cclir::Diagnostic]) -> usize {
    diagnostics.iter().filter(|d| d.severity == cclir::Severity::Error && !beyond_the_rules(&d.message)).count()
}

struct Pipelines<'c> {
    insert: cclir::BuiltPipeline<'c>,
    verify: cclir::BuiltPipeline<'c>,
    /// `ccl-pipeline`: admission, insertion, then the checker.
    full: cclir::BuiltPipeline<'c>,
}

fn run_case(session: &Session, pipelines: &Pipelines<'_>, seed: u64, counts: &Counts) {
    let (insert, verify) = (&pipelines.insert, &pipelines.verify);
    let config = config(seed);
    let what = format!("seed {seed} ({config:?})");
    let text = generator::generate(&config);
    if text.contains("cf.br ") || text.contains("cf.cond_br ") {
        counts.with_cf.fetch_add(1, Ordering::Relaxed);
    }
    let mut program = session
        .parse(&text, "gen.mlir")
        .unwrap_or_else(|e| panic!("{what}: does not verify: {e:?} {:?}", e.diagnostics()));
    let original = program.to_text();

    // 3. Checker == oracle on the raw (unfenced) program.
    {
        let module = model::lower_module(program.operation_ref(), Bodies::All).expect("known kinds");
        counts.oracle_pairs.fetch_add(compare_with_oracle(&module, &what) as u64, Ordering::Relaxed);
        if compare_phase_b_with_oracle(&module, &what) {
            counts.summary_rounds.fetch_add(1, Ordering::Relaxed);
        }
    }

    // 0. The default pipeline (which ends with the checker) accepts p, or
    // reports only what the rules do not cover.
    {
        let mut copy = session.parse(&text, "gen.mlir").expect("parsed once already");
        if let Err(e) = session.run(&pipelines.full, &mut copy) {
            if rules_violations(e.diagnostics()) > 0 {
                panic!("{what}: ccl-pipeline failed:\n{}", session.render(e.diagnostics()));
            }
            counts.beyond.fetch_add(1, Ordering::Relaxed);
        }
    }

    // 1. insert(p) verifies and passes the checker.
    session.run(insert, &mut program).unwrap_or_else(|e| panic!("{what}: insert failed: {:?}", e.diagnostics()));
    let once = program.to_text();
    let mut reparsed = session
        .parse(&once, "inserted.mlir")
        .unwrap_or_else(|e| panic!("{what}: insert(p) does not verify: {:?}", e.diagnostics()));
    if let Err(e) = session.run(verify, &mut reparsed) {
        if rules_violations(e.diagnostics()) > 0 {
            panic!("{what}: verify(insert(p)) failed:\n{}\n{once}", session.render(e.diagnostics()));
        }
    }
    assert_eq!(reparsed.to_text(), once, "{what}: the checker changed the program");

    // 2. Idempotence.
    session
        .run(insert, &mut reparsed)
        .unwrap_or_else(|e| panic!("{what}: second insert failed: {:?}", e.diagnostics()));
    assert_eq!(reparsed.to_text(), once, "{what}: insert(insert(p)) != insert(p)");
    drop(reparsed);
    drop(program);

    counts.programs.fetch_add(1, Ordering::Relaxed);
    let markers = inserted_lines(&original, &once, &what);
    counts.markers.fetch_add(markers.len() as u64, Ordering::Relaxed);
    if !seed.is_multiple_of(MUTATE_EVERY) {
        return;
    }

    // 4. Mutation: delete each inserted marker, one at a time.
    let lines: Vec<&str> = once.lines().collect();
    for &victim in &markers {
        let mutant: String =
            lines.iter().enumerate().filter(|(j, _)| *j != victim).map(|(_, l)| format!("{l}\n")).collect();
        let mut program = session
            .parse(&mutant, "mutant.mlir")
            .unwrap_or_else(|e| panic!("{what}: mutant does not parse: {:?}", e.diagnostics()));
        let module = model::lower_module(program.operation_ref(), Bodies::All).expect("known kinds");
        compare_with_oracle(&module, &format!("{what} mutant -{victim}"));
        let expected = oracle_violations(&module);
        let caught = match session.run(verify, &mut program) {
            Ok(()) => false,
            Err(e) => rules_violations(e.diagnostics()) > 0,
        };
        assert_eq!(
            caught,
            expected > 0,
            "{what}: deleting line {} ({}) : checker {} but the oracle finds {expected} unprotected paths",
            victim + 1,
            lines[victim].trim(),
            if caught { "rejects" } else { "accepts" },
        );
        counts.mutants.fetch_add(1, Ordering::Relaxed);
        let kind = marker_kind(lines[victim]);
        counts.by_kind[kind][0].fetch_add(1, Ordering::Relaxed);
        counts.by_kind[kind][1].fetch_add(caught as u64, Ordering::Relaxed);
        if caught {
            counts.caught.fetch_add(1, Ordering::Relaxed);
        } else {
            counts.safe_deletions.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[test]
fn generated_programs_keep_their_properties() {
    let names = cclir::registered_pass_names();
    for pass in [INSERT, VERIFY] {
        assert!(names.iter().any(|n| n == pass), "{pass} is not registered: these properties need both passes");
    }
    let cases = env_u64("CCLIR_PROPERTY_CASES", 10_000);
    let base = env_u64("CCLIR_PROPERTY_SEED", 0);
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 4) as u64;
    let counts = Counts::default();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let counts = &counts;
            scope.spawn(move || {
                let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
                let pipelines = Pipelines {
                    insert: session.pipeline(&format!("builtin.module({INSERT})")).expect("insert pipeline"),
                    // The marker rules against their oracle: the synchronisation
                    // check has its own tests (markers_reference, sync.test).
                    verify: session
                        .pipeline(&format!("builtin.module({VERIFY}{{sync=false}})"))
                        .expect("verify pipeline"),
                    full: session.pipeline("builtin.module(ccl-pipeline{sync=false})").expect("ccl-pipeline"),
                };
                let mut case = worker;
                while case < cases {
                    run_case(&session, &pipelines, base + case, counts);
                    // Nothing is left over between cases.
                    let _ = session.take_diagnostics();
                    case += workers;
                }
                let wrapper_publishes: u64 = pipelines
                    .insert
                    .statistics()
                    .iter()
                    .flat_map(|pass| pass.counters.snapshot())
                    .filter(|(spec, _)| spec.name == "wrapper-publishes")
                    .map(|(_, value)| value)
                    .sum();
                counts.wrapper_publishes.fetch_add(wrapper_publishes, Ordering::Relaxed);
            });
        }
    });
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    println!(
        "properties: {} programs in {:.1?} ({} markers inserted, {} oracle-checked violation pairs in raw programs); \
         mutation: {} deletions, {} caught, {} harmless (the oracle finds every path still protected), 0 missed",
        get(&counts.programs),
        started.elapsed(),
        get(&counts.markers),
        get(&counts.oracle_pairs),
        get(&counts.mutants),
        get(&counts.caught),
        get(&counts.safe_deletions),
    );
    for (name, [deleted, caught]) in
        ["ccl.fence", "ccl.cacheinvalid %w", "ccl.cacheinvalid"].iter().zip(&counts.by_kind)
    {
        println!("  deleting {name}: {} deletions, {} caught", get(deleted), get(caught));
    }
    println!(
        "  coverage: {} programs with cf branches, {} calls publishing through a wrapper, \
         {} programs whose summaries took more than one naive round; {} programs rejected by ccl-pipeline \
         for races beyond the rules only",
        get(&counts.with_cf),
        get(&counts.wrapper_publishes),
        get(&counts.summary_rounds),
        get(&counts.beyond)
    );
    assert_eq!(get(&counts.programs), cases, "every case ran");
    assert!(get(&counts.with_cf) * 10 >= cases, "cf regions in fewer than 1 in 10 programs");
    assert!(get(&counts.wrapper_publishes) * 20 >= cases, "publishing wrappers in fewer than 1 in 20 programs");
    assert!(get(&counts.summary_rounds) > 0, "no program needed a second round of summaries");
    assert!(get(&counts.mutants) > 0, "the mutation test deleted nothing");
    assert!(get(&counts.caught) > 0, "no deletion was caught");
}
