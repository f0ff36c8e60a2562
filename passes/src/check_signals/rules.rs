//! The rules of the signal discipline (docs/bugs.md, R1 to R8), as the
//! explanation of a witness: a race or a deadlock a schedule reached is
//! reported under the rule whose shape the skeleton and the schedule show,
//! at the op that breaks it, with notes at the other ends.

use super::machine::Outcome;
use super::order::Order;
use super::program::{At, ItemKind, Loc, Program, SiteId};
use super::search::{notify_of, Aim, Attempt};

/// A rule of docs/bugs.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    R1,
    R2,
    R3,
    R4,
    R5,
    R6,
    R7,
    R8,
}

impl Rule {
    pub fn title(self) -> &'static str {
        match self {
            Rule::R1 => "a set barrier reused without a new epoch",
            Rule::R2 => "a credit never taken back",
            Rule::R3 => "a reset that can erase a peer's signal",
            Rule::R4 => "a wait that precedes the send it depends on",
            Rule::R5 => "a release that is not monotone",
            Rule::R6 => "an access not covered by the signal that orders it",
            Rule::R7 => "a counter read as a sender's identity",
            Rule::R8 => "a wait no notify can satisfy",
        }
    }
}

/// A finding, before it becomes a diagnostic.
#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: Rule,
    /// Shown by a schedule; else a warning (a rule's shape, unconfirmed).
    pub confirmed: bool,
    pub at: At,
    pub message: String,
    pub notes: Vec<(At, String)>,
    /// The schedule that shows it (empty when unconfirmed), each step with
    /// its cell's value.
    pub schedule: Vec<(At, Option<i64>)>,
}

impl Finding {
    /// What makes two findings the same: the rule and the ops.
    pub fn key(&self, program: &Program) -> (Rule, SiteId, Vec<SiteId>) {
        let mut notes: Vec<SiteId> = self.notes.iter().map(|(at, _)| program.item(*at).site).collect();
        notes.sort_unstable();
        notes.dedup();
        (self.rule, program.item(self.at).site, notes)
    }
}

/// The rule a witness breaks, if the skeleton and the schedule show one.
pub fn explain(program: &Program, order: &Order, attempt: &Attempt) -> Option<Finding> {
    let run = &attempt.run;
    let mut finding = match &run.outcome {
        Outcome::Race { first, second, loc } => explain_race(program, order, attempt, *first, *second, *loc)?,
        Outcome::Deadlock { stuck } => explain_deadlock(program, order, attempt, stuck)?,
        Outcome::Finished | Outcome::Inconclusive => return None,
    };
    finding.schedule = run.trace.clone();
    Some(finding)
}

fn describe(program: &Program, at: At) -> String {
    program.threads[at.thread as usize].describe()
}

fn op(program: &Program, at: At) -> &str {
    &program.sites[program.item(at).site as usize].op_name
}

/// "the `set 1`", "the `atomic_add -2`".
fn notify_text(program: &Program, at: At) -> String {
    match notify_of(program, at) {
        Some((add, value)) => {
            let kind = if add { "atomic_add" } else { "set" };
            value.map_or(format!("the `{kind}`"), |v| format!("the `{kind} {v}`"))
        }
        None => "the notify".to_string(),
    }
}

/// "`ge 2`".
fn wait_text(program: &Program, at: At) -> String {
    match program.item(at).kind {
        ItemKind::Wait { eq, threshold, .. } => {
            let cmp = if eq { "eq" } else { "ge" };
            threshold.map_or(format!("`{cmp}`"), |t| format!("`{cmp} {t}`"))
        }
        _ => "wait".to_string(),
    }
}

fn wait_cell(program: &Program, at: At) -> Option<super::program::Cell> {
    match program.item(at).kind {
        ItemKind::Wait { cell, .. } => cell,
        _ => None,
    }
}

fn race_notes(program: &Program, x: At, y: At, loc: Loc) -> Vec<(At, String)> {
    let what = program.describe_loc(loc);
    vec![
        (x, format!("so '{}' by {} ...", op(program, x), describe(program, x))),
        (y, format!("... and '{}' by {} race on {what}", op(program, y), describe(program, y))),
    ]
}

fn explain_race(
    program: &Program,
    order: &Order,
    attempt: &Attempt,
    first: At,
    second: At,
    loc: Loc,
) -> Option<Finding> {
    for strict in [true, false] {
        for (x, y) in [(first, second), (second, first)] {
            if let Some(found) = early_pass(program, order, attempt, (x, y), loc, strict) {
                return Some(found);
            }
        }
        for (x, y) in [(first, second), (second, first)] {
            if let Some(found) = uncovered(program, order, (x, y), loc, strict) {
                return Some(found);
            }
        }
    }
    None
}

/// R1, R2, R7: a wait before `y` that would order `x` before it if it
/// waited for a notify after `x`; it passed without that notify.
fn early_pass(
    program: &Program,
    order: &Order,
    attempt: &Attempt,
    (x, y): (At, At),
    loc: Loc,
    strict: bool,
) -> Option<Finding> {
    let mut choice = None;
    program.for_each_item(|w, item| {
        let (ItemKind::Wait { cell: Some(cell), .. }, None) = (&item.kind, &choice) else { return };
        if !order.before(w, y) || !attempt.run.passes.contains_key(&w) {
            return;
        }
        let writers = order.notifies.get(cell).map(Vec::as_slice).unwrap_or(&[]);
        let meant = writers.iter().copied().find(|n| {
            order.before(x, *n)
                && !order.before(w, *n)
                && !order.wait_needs(w, *n)
                && (!strict || program.item(*n).ordinal == item.ordinal)
        });
        if let Some(n) = meant {
            choice = Some((w, n, *cell));
        }
    });
    let (w, n, cell) = choice?;
    let passed_on = &attempt.run.passes[&w];
    let all_sets = order.notifies[&cell].iter().all(|m| matches!(notify_of(program, *m), Some((false, _))));
    let other_writer = passed_on.iter().copied().find(|c| c.thread != n.thread && !order.before(*c, n));
    let (rule, detail, evidence) = match (other_writer, all_sets) {
        (Some(c), _) => (
            Rule::R7,
            format!(
                "it passed on an add of another writer ({}), before the notify it was meant to wait for",
                describe(program, c)
            ),
            vec![(c, format!("{} of {} it passed on", notify_text(program, c), describe(program, c)))],
        ),
        (None, true) => (
            Rule::R1,
            "it passed on the `set` an earlier execution left in the cell".to_string(),
            passed_on
                .first()
                .map(|c| vec![(*c, format!("{} of {} it passed on", notify_text(program, *c), describe(program, *c)))])
                .unwrap_or_default(),
        ),
        (None, false) => (
            Rule::R2,
            "it passed on credits an earlier execution left in the cell".to_string(),
            passed_on
                .iter()
                .take(4)
                .map(|c| (*c, format!("{} of {}, never taken back", notify_text(program, *c), describe(program, *c))))
                .collect(),
        ),
    };
    let message = format!(
        "{} ({rule:?}): this {} wait on {} by {} can pass without the notify it waits for: {detail}",
        rule.title(),
        wait_text(program, w),
        program.describe_loc(cell),
        describe(program, w)
    );
    let mut notes =
        vec![(n, format!("{} of {} it was meant to wait for", notify_text(program, n), describe(program, n)))];
    notes.extend(evidence);
    notes.extend(race_notes(program, x, y, loc));
    Some(Finding { rule, confirmed: true, at: w, message, notes, schedule: Vec::new() })
}

/// R6: a wait that needs a notify orders the two threads, but one access
/// is on the wrong side of it: after the notify, or before the wait. An
/// access after the notify is not misplaced when its thread waited for the
/// other access's thread in between: that later wait governs the pair.
fn uncovered(program: &Program, order: &Order, (x, y): (At, At), loc: Loc, strict: bool) -> Option<Finding> {
    let synced_between = |from: u32| {
        (from + 1..x.pos).any(|p| {
            let facts = order.waits.get(&At { thread: x.thread, pos: p });
            facts.is_some_and(|f| f.needs.iter().any(|(t, count)| *t == y.thread && *count > 0))
        })
    };
    let mut choice = None;
    program.for_each_item(|w, item| {
        let (ItemKind::Wait { cell: Some(cell), .. }, None) = (&item.kind, &choice) else { return };
        for &n in order.notifies.get(cell).map(Vec::as_slice).unwrap_or(&[]) {
            if !order.wait_needs(w, n) || (strict && program.item(n).ordinal != item.ordinal) {
                continue;
            }
            if n.thread == x.thread && n.pos < x.pos && !synced_between(n.pos) && order.before(w, y) {
                choice = Some((x, w, n, true));
                return;
            }
            if order.before(x, n) && w.thread == y.thread && y.pos < w.pos {
                choice = Some((y, w, n, false));
                return;
            }
        }
    });
    let (misplaced, w, n, after_notify) = choice?;
    let other = if misplaced == x { y } else { x };
    let place = if after_notify {
        format!(
            "it runs after {} ({}) that lets {} go on",
            notify_text(program, n),
            describe(program, n),
            describe(program, w)
        )
    } else {
        format!(
            "it runs before the {} wait ({}) for the notify that orders it",
            wait_text(program, w),
            describe(program, w)
        )
    };
    let message = format!(
        "{} (R6): this '{}' by {} is not covered by the signal that orders it: {place}",
        Rule::R6.title(),
        op(program, misplaced),
        describe(program, misplaced)
    );
    let mut notes = vec![
        (n, format!("{} of {}", notify_text(program, n), describe(program, n))),
        (w, format!("the {} wait of {} that needs it", wait_text(program, w), describe(program, w))),
    ];
    notes.push((
        other,
        format!(
            "'{}' by {} races with it on {}",
            op(program, other),
            describe(program, other),
            program.describe_loc(loc)
        ),
    ));
    Some(Finding { rule: Rule::R6, confirmed: true, at: misplaced, message, notes, schedule: Vec::new() })
}

/// R8, R4, R3, R5: why no thread can step.
fn explain_deadlock(program: &Program, order: &Order, attempt: &Attempt, stuck: &[At]) -> Option<Finding> {
    let run = &attempt.run;
    let value_of = |w: At| wait_cell(program, w).and_then(|c| run.cells.get(&c)).and_then(|s| s.value);
    let stuck_notes = |primary: At| -> Vec<(At, String)> {
        stuck
            .iter()
            .filter(|w| **w != primary)
            .map(|w| {
                let held = value_of(*w).map_or(String::new(), |v| format!(" (it holds {v})"));
                (*w, format!("{} waits here for ever too{held}", describe(program, *w)))
            })
            .collect()
    };
    let waiting = |w: At| {
        let cell = wait_cell(program, w).map_or("its cell".to_string(), |c| program.describe_loc(c));
        let held = value_of(w).map_or(String::new(), |v| format!(", which holds {v}"));
        format!("{} waits for {cell} to be {}{held}", describe(program, w), wait_text(program, w).trim_matches('`'))
    };
    for &w in stuck {
        let Some(facts) = order.waits.get(&w) else { continue };
        if facts.impossible {
            let message = format!("{} (R8): {}, and no notify of the run can make it so", Rule::R8.title(), waiting(w));
            return Some(Finding {
                rule: Rule::R8,
                confirmed: true,
                at: w,
                message,
                notes: stuck_notes(w),
                schedule: Vec::new(),
            });
        }
        if facts.dead {
            let cell = wait_cell(program, w)?;
            let later: Vec<At> =
                order.notifies.get(&cell).into_iter().flatten().copied().filter(|n| order.before(w, *n)).collect();
            let message = format!(
                "{} (R4): {}; every notify that could satisfy it runs only after it passes",
                Rule::R4.title(),
                waiting(w)
            );
            let mut notes: Vec<(At, String)> = later
                .iter()
                .take(4)
                .map(|n| {
                    (
                        *n,
                        format!(
                            "{} of {}, which needs this wait to pass first",
                            notify_text(program, *n),
                            describe(program, *n)
                        ),
                    )
                })
                .collect();
            notes.extend(stuck_notes(w));
            return Some(Finding { rule: Rule::R4, confirmed: true, at: w, message, notes, schedule: Vec::new() });
        }
    }
    if let Aim::Erase { reset, notify } = attempt.aim {
        let cell = match program.item(reset).kind {
            ItemKind::Notify { cell, .. } => cell,
            _ => None,
        };
        // The schedule erased: the notify ran, then the reset.
        let ran = |at: At| run.trace.iter().position(|(x, _)| *x == at);
        let erased = matches!((ran(notify), ran(reset)), (Some(n), Some(r)) if n < r);
        let victim = stuck.iter().copied().find(|w| wait_cell(program, *w) == cell && cell.is_some());
        if let (true, Some(w)) = (erased, victim) {
            let message = format!(
                "{} (R3): {} of {} can land after {} of {} on {}, which it erases",
                Rule::R3.title(),
                notify_text(program, reset),
                describe(program, reset),
                notify_text(program, notify),
                describe(program, notify),
                program.describe_loc(cell?)
            );
            let mut notes = vec![
                (notify, format!("{} it erases", notify_text(program, notify))),
                (w, format!("then {}, for ever", waiting(w))),
            ];
            notes.extend(stuck_notes(w));
            return Some(Finding { rule: Rule::R3, confirmed: true, at: reset, message, notes, schedule: Vec::new() });
        }
    }
    for &w in stuck {
        if let Some(&changed) = run.transient.get(&w) {
            let message = format!(
                "{} (R5): {}; the condition held while it waited, and {} of {} undid it",
                Rule::R5.title(),
                waiting(w),
                notify_text(program, changed),
                describe(program, changed)
            );
            let mut notes = vec![(changed, format!("{} that undid the release", notify_text(program, changed)))];
            notes.extend(stuck_notes(w));
            return Some(Finding { rule: Rule::R5, confirmed: true, at: w, message, notes, schedule: Vec::new() });
        }
    }
    None
}

/// The suspects no schedule confirmed, as warnings: resets (R3) and
/// releases (R5) of the rules' shape.
pub fn unconfirmed(program: &Program, attempts: &[Attempt], confirmed: &[Finding]) -> Vec<Finding> {
    let mut warnings = Vec::new();
    for attempt in attempts {
        if !matches!(attempt.run.outcome, Outcome::Finished | Outcome::Inconclusive) {
            continue;
        }
        let (rule, at, message, notes) = match attempt.aim {
            Aim::Erase { reset, notify } => (
                Rule::R3,
                reset,
                format!(
                    "{} (R3), unconfirmed: {} of {} has no order with {} of {}; no schedule tried erased it",
                    Rule::R3.title(),
                    notify_text(program, reset),
                    describe(program, reset),
                    notify_text(program, notify),
                    describe(program, notify)
                ),
                vec![(notify, format!("{} it could erase", notify_text(program, notify)))],
            ),
            Aim::Release(w) => (
                Rule::R5,
                w,
                format!(
                    "{} (R5), unconfirmed: this {} wait of {} can see its condition undone by a notify it has no order with; no schedule tried made it miss its release",
                    Rule::R5.title(),
                    wait_text(program, w),
                    describe(program, w)
                ),
                Vec::new(),
            ),
            _ => continue,
        };
        let site = program.item(at).site;
        let shown =
            confirmed.iter().chain(&warnings).any(|f: &Finding| f.rule == rule && program.item(f.at).site == site);
        if !shown {
            warnings.push(Finding { rule, confirmed: false, at, message, notes, schedule: Vec::new() });
        }
    }
    warnings
}
