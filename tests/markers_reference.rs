//! The markers held against the reference semantics (SEMANTICS.md, the
//! checker's Soundness paragraph; `cclir::sim::run_reference`, exhaustive).
//!
//! For each litmus program of `ccl-gen --litmus` (which reaches every rule
//! of the execution model), the variants held: the raw program, the rules'
//! placement (`ccl-pipeline{placement=rules}` without its checker), the
//! minimal placement (`ccl-pipeline{placement=minimal}` without its
//! checker), each placement with one marker dropped at random, and the
//! rules' placement with one marker added at random. For each variant the
//! checker (`ccl-verify-comm-order`) gives its verdict and the reference
//! explores every execution at the program's rank count (P = 2 for most).
//! Counted:
//! (a) the checker accepts, and the reference finds a race: must be 0;
//! (b) the minimal placement races where the rules' placement does not:
//!     must be 0;
//! (c) a placement whose output is invalid IR or whose passes fail: must
//!     be 0;
//! (d) the minimal placement not a fixed point on its own output: must be 0;
//! (e) the checker's false alarms (it rejects, the reference finds no race):
//!     reported, its precision.
//! Programs the reference does not finish within its state bound are left
//! out and counted. The per-feature coverage of the programs held is
//! printed.
//!
//! In the suite: `CCLIR_MARKERS_LITMUS` seeds (default 2 in a debug build,
//! 40 optimized). The campaign (`bench/markers_campaign.sh`) is the ignored
//! test `markers_campaign`: `CCLIR_MARKERS_CAMPAIGN_SEEDS` seeds from
//! `CCLIR_MARKERS_CAMPAIGN_FIRST`, on `CCLIR_MARKERS_CAMPAIGN_THREADS` threads
//! (default every core), taking no new seed after
//! `CCLIR_MARKERS_CAMPAIGN_SECONDS` if set.

use cclir::generator::litmus::{litmus_program, Coverage};
use cclir::sim::{self, reference::Kind, Options, SearchConfig};
use cclir::Session;

/// States the reference may visit per program before it gives up (the
/// program is then left out, and counted).
const REFERENCE_STATES: usize = 300_000;

/// `ccl-pipeline{placement=rules}` without its checker.
const RULES: &str =
    "builtin.module(ccl-find-post-collective-kernels,func.func(ccl-admit-launch-width,ccl-insert-kernel-fence))";
/// `ccl-pipeline{placement=minimal}` without its checker.
const MINIMAL: &str = "builtin.module(ccl-find-post-collective-kernels{sound-placement=true},\
                       func.func(ccl-admit-launch-width,ccl-insert-kernel-fence,ccl-sink-comm-markers))";
/// The checker on the run at the program's rank count (2 or 3).
fn checker_text(ranks: u16) -> String {
    format!("builtin.module(ccl-verify-comm-order{{ranks={ranks}}})")
}

/// What the harness saw.
#[derive(Default)]
struct Tally {
    coverage: Coverage,
    /// Litmus programs generated.
    seeds: usize,
    /// Variants held (checker and reference both ran to a verdict).
    held: usize,
    /// Variants the reference did not finish (left out).
    unfinished: usize,
    /// Variants the reference finds racy.
    racy: usize,
    /// Variants the checker accepts.
    accepted: usize,
    /// (a) accepted by the checker, racy in the reference.
    unsound: Vec<String>,
    /// Litmus programs with a hazard of the generator's that no marker
    /// fixes (a cell or data shared by two episodes, a wait that can be
    /// skipped or missed, two launches with no collective between them):
    /// the checker's synchronisation check must reject them where they race.
    hazards: usize,
    /// (b) the minimal placement races, the rules' does not.
    minimal_worse: Vec<String>,
    /// (c) invalid outputs or failing placement passes.
    invalid: Vec<String>,
    /// (d) the minimal placement not a fixed point on its own output.
    not_fixed: Vec<String>,
    /// (e) rejected by the checker, race-free in the reference.
    false_alarms: usize,
    /// Per variant kind: held, racy, accepted, false alarms.
    per_variant: std::collections::BTreeMap<&'static str, [usize; 4]>,
    /// Where the rules' placement is race-free and accepted: markers (ops)
    /// in the rules' output and in the minimal one.
    markers_rules: usize,
    markers_minimal: usize,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.seeds += other.seeds;
        self.held += other.held;
        self.unfinished += other.unfinished;
        self.racy += other.racy;
        self.accepted += other.accepted;
        self.unsound.extend(other.unsound);
        self.hazards += other.hazards;
        self.minimal_worse.extend(other.minimal_worse);
        self.invalid.extend(other.invalid);
        self.not_fixed.extend(other.not_fixed);
        self.false_alarms += other.false_alarms;
        for (variant, counts) in other.per_variant {
            let mine = self.per_variant.entry(variant).or_default();
            for (m, o) in mine.iter_mut().zip(counts) {
                *m += o;
            }
        }
        self.markers_rules += other.markers_rules;
        self.markers_minimal += other.markers_minimal;
        self.coverage.programs += other.coverage.programs;
        for (feature, count) in other.coverage.counts {
            *self.coverage.counts.entry(feature).or_default() += count;
        }
    }

    fn print(&self, what: &str) {
        println!(
            "{what}: {} litmus programs, {} variants held ({} left out: the reference did not finish); \
             {} racy in the reference, {} accepted by the checker",
            self.seeds, self.held, self.unfinished, self.racy, self.accepted
        );
        println!(
            "  (a) accepted by the checker, racy in the reference: {} (the {} programs with a hazard that no marker \
             fixes included)",
            self.unsound.len(),
            self.hazards
        );
        println!("  (b) minimal placement racy where the rules' is not: {}", self.minimal_worse.len());
        println!("  (c) invalid outputs or failing placements: {}", self.invalid.len());
        println!("  (d) minimal placement not a fixed point: {}", self.not_fixed.len());
        println!("  (e) checker false alarms (rejected, race-free in the reference): {}", self.false_alarms);
        println!("  per variant: held, racy, accepted, false alarms");
        for (variant, [held, racy, accepted, alarms]) in &self.per_variant {
            println!("    {variant:>22}: {held:>6} {racy:>6} {accepted:>6} {alarms:>6}");
        }
        println!(
            "  where the rules' placement is race-free and accepted: marker ops {} (rules), {} (minimal)",
            self.markers_rules, self.markers_minimal
        );
        println!("  per-feature coverage of the litmus programs:");
        for line in self.coverage.table().lines() {
            println!("    {line}");
        }
        for (label, list) in [
            ("UNSOUND", &self.unsound),
            ("MINIMAL-WORSE", &self.minimal_worse),
            ("INVALID", &self.invalid),
            ("NOT-FIXED", &self.not_fixed),
        ] {
            for item in list {
                println!("{label} {item}");
            }
        }
    }

    fn assert_sound(&self, what: &str) {
        let failures = self.unsound.len() + self.minimal_worse.len() + self.invalid.len() + self.not_fixed.len();
        assert_eq!(
            failures, 0,
            "{what}: (a) {} unsound, (b) {} minimal worse, (c) {} invalid, (d) {} not fixed points (each printed above)",
            self.unsound.len(),
            self.minimal_worse.len(),
            self.invalid.len(),
            self.not_fixed.len()
        );
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The reference's verdict on `text`: `Some(true)` racy, `Some(false)`
/// race-free, `None` not finished (or not runnable).
fn reference_races(session: &Session, text: &str, ranks: u16) -> Option<bool> {
    let program = session.parse(text, "variant.mlir").ok()?;
    let compiled = sim::compile(program.operation_ref(), None, Some(text)).ok()?;
    let options = Options {
        ranks,
        max_states: REFERENCE_STATES,
        search_config: SearchConfig { threads: 1, ..Options::default().search_config },
        ..Options::default()
    };
    let (_, explored) = sim::run_reference(compiled, &options, false).ok()?;
    if explored.kinds().contains(&Kind::Race) {
        // A race found is a race, whether or not the rest was explored.
        return Some(true);
    }
    explored.complete.then_some(false)
}

/// Whether the checker accepts `text`.
fn checker_accepts(session: &Session, checker: &cclir::BuiltPipeline<'_>, text: &str) -> bool {
    let Ok(mut program) = session.parse(text, "variant.mlir") else { return false };
    let accepted = session.run(checker, &mut program).is_ok();
    let _ = session.take_diagnostics();
    accepted
}

/// `text` through `pipeline`, or why not.
fn place(session: &Session, pipeline: &cclir::BuiltPipeline<'_>, text: &str) -> Result<String, String> {
    let mut program = session.parse(text, "input.mlir").map_err(|e| session.render(e.diagnostics()))?;
    let result = session.run(pipeline, &mut program);
    let out = match result {
        Ok(()) => program.to_text(),
        Err(e) => return Err(session.render(e.diagnostics())),
    };
    let _ = session.take_diagnostics();
    // The output must parse and verify as it is printed.
    session
        .parse(&out, "output.mlir")
        .map_err(|e| format!("the output does not verify: {}", session.render(e.diagnostics())))?;
    Ok(out)
}

fn is_marker(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("ccl.fence") || t.starts_with("ccl.cacheinvalid")
}

fn markers(text: &str) -> usize {
    text.lines().filter(|l| is_marker(l)).count()
}

/// The lines of the kernels (functions with `ccl.kind` aiv, aic or incore)
/// of `text` that are ops inside a body: where a marker may go before.
fn kernel_op_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut in_kernel = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("func.func") {
            in_kernel = ["\"aiv\"", "\"aic\"", "\"incore\""].iter().any(|k| line.contains(&format!("ccl.kind = {k}")))
                && line.trim_end().ends_with('{');
            continue;
        }
        if in_kernel && line.starts_with("  }") && !line.starts_with("   ") {
            in_kernel = false;
            continue;
        }
        if in_kernel
            && (t.starts_with("ccl.") || t.starts_with("func.call") || t.starts_with("return") || t.starts_with('%'))
        {
            out.push(i);
        }
    }
    out
}

/// `text` with one marker line deleted (chosen by `rng`), if it has one.
fn drop_marker(text: &str, rng: &mut fastrand::Rng) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let candidates: Vec<usize> = (0..lines.len()).filter(|&i| is_marker(lines[i])).collect();
    if candidates.is_empty() {
        return None;
    }
    let victim = candidates[rng.usize(..candidates.len())];
    Some(lines.iter().enumerate().filter(|&(i, _)| i != victim).map(|(_, l)| *l).collect::<Vec<_>>().join("\n") + "\n")
}

/// `text` with a fence or a whole-GM invalidate added before a random op
/// of a kernel.
fn add_marker(text: &str, rng: &mut fastrand::Rng) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let candidates = kernel_op_lines(text);
    if candidates.is_empty() {
        return None;
    }
    let at = candidates[rng.usize(..candidates.len())];
    let indent: String = lines[at].chars().take_while(|c| c.is_whitespace()).collect();
    let marker = if rng.bool() { "ccl.fence" } else { "ccl.cacheinvalid" };
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i == at {
            out.push_str(&format!("{indent}{marker}\n"));
        }
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}

struct Pipelines<'s> {
    rules: cclir::BuiltPipeline<'s>,
    minimal: cclir::BuiltPipeline<'s>,
    /// The checker at 2 ranks, then at 3.
    checkers: [cclir::BuiltPipeline<'s>; 2],
}

/// Holds one variant: the checker's verdict against the reference's.
/// Returns the reference's verdict (`None`: not finished).
impl<'s> Pipelines<'s> {
    fn checker(&self, ranks: u16) -> &cclir::BuiltPipeline<'s> {
        assert!(ranks == 2 || ranks == 3, "litmus programs run on 2 or 3 ranks");
        &self.checkers[usize::from(ranks == 3)]
    }
}

fn hold(
    session: &Session,
    pipelines: &Pipelines<'_>,
    variant: &'static str,
    text: &str,
    (ranks, named): (u16, &[&str]),
    what: &str,
    tally: &mut Tally,
) -> Option<bool> {
    let accepted = checker_accepts(session, pipelines.checker(ranks), text);
    // A scan for (a) alone (CCLIR_MARKERS_ACCEPTED_ONLY=1) asks the
    // reference only about what the checker accepts; its other counts are
    // then of those variants only.
    if !accepted && std::env::var_os("CCLIR_MARKERS_ACCEPTED_ONLY").is_some() {
        return None;
    }
    let Some(racy) = reference_races(session, text, ranks) else {
        tally.unfinished += 1;
        return None;
    };
    tally.held += 1;
    tally.racy += racy as usize;
    tally.accepted += accepted as usize;
    let row = tally.per_variant.entry(variant).or_default();
    row[0] += 1;
    row[1] += racy as usize;
    row[2] += accepted as usize;
    if accepted && racy {
        let hazards = if named.is_empty() { String::new() } else { format!(" (hazards: {})", named.join("; ")) };
        tally.unsound.push(format!("{what}, {variant}{hazards}:\n{text}"));
    }
    if !accepted && !racy {
        tally.false_alarms += 1;
        row[3] += 1;
    }
    Some(racy)
}

fn hold_seed(session: &Session, pipelines: &Pipelines<'_>, seed: u64, tally: &mut Tally) {
    let litmus = litmus_program(seed);
    let what = format!("ccl-gen --litmus {seed} (P = {})", litmus.ranks);
    let mut rng = fastrand::Rng::with_seed(seed);
    tally.seeds += 1;
    tally.coverage.add(&litmus.features);
    // The generator names the hazards of a program that may race or
    // deadlock whatever the markers (counted for coverage; the checker's
    // synchronisation check must reject them where they race, so they are
    // held like the others). A plain buffer another block, launch or
    // collective reads is one only for the rules (which mark window writes
    // only).
    let named: Vec<&str> =
        hazards(&litmus.text).into_iter().filter(|h| !h.starts_with("a plain buffer read by")).collect();
    tally.hazards += !named.is_empty() as usize;
    let ranks = (litmus.ranks, named.as_slice());
    hold(session, pipelines, "raw", &litmus.text, ranks, &what, tally);
    let rules = match place(session, &pipelines.rules, &litmus.text) {
        Ok(text) => text,
        Err(why) => {
            tally.invalid.push(format!("{what}: the rules' placement: {why}"));
            return;
        }
    };
    let minimal = match place(session, &pipelines.minimal, &litmus.text) {
        Ok(text) => text,
        Err(why) => {
            tally.invalid.push(format!("{what}: the minimal placement: {why}"));
            return;
        }
    };
    match place(session, &pipelines.minimal, &minimal) {
        Ok(again) if again == minimal => {}
        Ok(again) => {
            let first = minimal.lines().zip(again.lines()).position(|(a, b)| a != b).unwrap_or_default();
            tally.not_fixed.push(format!("{what}: changes at line {}:\n{minimal}\n--- again:\n{again}", first + 1));
        }
        Err(why) => tally.invalid.push(format!("{what}: the minimal placement on its own output: {why}")),
    }
    let rules_racy = hold(session, pipelines, "rules", &rules, ranks, &what, tally);
    let minimal_racy = hold(session, pipelines, "minimal", &minimal, ranks, &what, tally);
    if rules_racy == Some(false) && minimal_racy == Some(true) {
        // (With a hazard too: the rules' placement is race-free there.)
        tally.minimal_worse.push(format!("{what}:\n--- rules:\n{rules}\n--- minimal:\n{minimal}"));
    }
    if rules_racy == Some(false) && checker_accepts(session, pipelines.checker(ranks.0), &rules) {
        tally.markers_rules += markers(&rules);
        tally.markers_minimal += markers(&minimal);
    }
    let mutants = [
        ("rules, one dropped", drop_marker(&rules, &mut rng)),
        ("minimal, one dropped", drop_marker(&minimal, &mut rng)),
        ("rules, one added", add_marker(&rules, &mut rng)),
    ];
    for (variant, mutant) in mutants {
        let Some(mutant) = mutant else { continue };
        // An added marker may land where the dialect does not allow one:
        // such a mutant is no program.
        if session.parse(&mutant, "mutant.mlir").is_err() {
            let _ = session.take_diagnostics();
            continue;
        }
        hold(session, pipelines, variant, &mutant, ranks, &what, tally);
    }
    let _ = session.take_diagnostics();
}

/// The hazards the generator names on `text`'s second line.
fn hazards(text: &str) -> Vec<&str> {
    text.lines()
        .find_map(|line| line.strip_prefix("// may race or deadlock whatever the markers: "))
        .map(|list| list.split("; ").collect())
        .unwrap_or_default()
}

fn run_seeds(seeds: impl Iterator<Item = u64>) -> Tally {
    run_seeds_until(seeds, None)
}

/// The same, taking no new seed once `deadline` has passed.
fn run_seeds_until(seeds: impl Iterator<Item = u64>, deadline: Option<std::time::Instant>) -> Tally {
    let session = Session::with_config(cclir::SessionConfig { threading: false, ..Default::default() });
    let pipelines = Pipelines {
        rules: session.pipeline(RULES).expect("the rules' pipeline"),
        minimal: session.pipeline(MINIMAL).expect("the minimal pipeline"),
        checkers: [2, 3].map(|ranks| session.pipeline(&checker_text(ranks)).expect("the checker")),
    };
    let mut tally = Tally::default();
    for seed in seeds {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        hold_seed(&session, &pipelines, seed, &mut tally);
    }
    tally
}

#[test]
#[cfg_attr(debug_assertions, ignore = "the optimized build runs it, on more cases (scripts/test.sh)")]
fn markers_hold_against_the_reference() {
    let seeds = env_usize("CCLIR_MARKERS_LITMUS", if cfg!(debug_assertions) { 2 } else { 40 }) as u64;
    let tally = run_seeds(0..seeds);
    tally.print("markers against the reference");
    assert!(tally.held > 0, "no variant held");
    tally.assert_sound("markers against the reference");
}

/// The campaign of bench/markers_campaign.sh.
#[test]
#[ignore]
fn markers_campaign() {
    let seeds = env_usize("CCLIR_MARKERS_CAMPAIGN_SEEDS", 3_400) as u64;
    let first = env_usize("CCLIR_MARKERS_CAMPAIGN_FIRST", 0) as u64;
    let workers = env_usize("CCLIR_MARKERS_CAMPAIGN_THREADS", sim::available_threads()) as u64;
    let started = std::time::Instant::now();
    // A time budget: each worker takes no new seed after it (the counts
    // cover the programs run, and say how many).
    let deadline = std::env::var("CCLIR_MARKERS_CAMPAIGN_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(|s| started + std::time::Duration::from_secs(s));
    let parts: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || run_seeds_until((first..first + seeds).filter(|s| s % workers == w), deadline))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a campaign worker")).collect()
    });
    let mut tally = Tally::default();
    for part in parts {
        tally.merge(part);
    }
    tally.print(&format!("markers campaign, litmus seeds {first}..{} on {workers} threads", first + seeds));
    println!("markers campaign time: {:.0} s", started.elapsed().as_secs_f64());
    tally.assert_sound("the markers campaign");
}
