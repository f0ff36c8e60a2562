//! `ccl-sim --diagram FILE`: the reported schedule as an SVG picture. One
//! lane per thread that took part (each rank's host, then its blocks), time
//! running left to right one column per op, in the order the replay ran
//! them (`trace`); the schedule's steps as numbered bands (the ops a step
//! ran eagerly share its band). Drawn over it: notify -> the wait that
//! observed it, launch fork and join, collectives across the hosts, each
//! in-flight unit from the op that issued it to its landing, and a race's
//! two accesses ringed in red with the happens-before edge that is missing
//! between them. Every op has a tooltip with its place in the source.
//!
//! Classes name what each element is (`lane`, `op`, `edge sync`, `edge
//! fork`, `edge join`, `collective`, `inflight`, `race-access`,
//! `missing-edge`, `legend`), so tests and style sheets can find them.

use super::explore::Outcome;
use super::machine::{Finding, Machine, RaceKind, ThreadId};
use super::summary::{Summary, ThreadRef};
use super::trace::{EventKind, Trace};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Columns drawn at most: a longer trace is drawn from its last ones.
pub const MAX_COLUMNS: usize = 400;

const LEFT: f64 = 170.0;
const COLUMN: f64 = 26.0;
const LANE: f64 = 124.0;
const TOP: f64 = 128.0;
const RIGHT: f64 = 60.0;
const LEGEND: f64 = 120.0;
/// The legend's width.
const MIN_WIDTH: f64 = 1240.0;

const READ: &str = "#2563eb";
const WRITE: &str = "#d97706";
const SIGNAL: &str = "#059669";
const MARKER: &str = "#6b7280";
const CONTROL: &str = "#374151";
const COLLECTIVE: &str = "#7c3aed";
const INFLIGHT: &str = "#f59e0b";
const RACE: &str = "#dc2626";

/// What an op does, for its glyph and colour.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Glyph {
    Read,
    Write,
    Notify,
    Wait,
    Marker,
    Launch,
    Exit,
    Join,
    Land,
    Collective,
    Other,
}

fn glyph_of(op: &str, kind: &EventKind) -> Glyph {
    match kind {
        EventKind::Notify { .. } => Glyph::Notify,
        EventKind::Wait { .. } => Glyph::Wait,
        EventKind::Launch { .. } => Glyph::Launch,
        EventKind::Exit => Glyph::Exit,
        EventKind::Join { .. } => Glyph::Join,
        EventKind::Land { .. } => Glyph::Land,
        EventKind::Collective { .. } => Glyph::Collective,
        EventKind::Issue { .. } | EventKind::Memory => Glyph::Other,
        EventKind::Op => match op {
            "ccl.read" | "ccl.tile_load" | "ccl.remote_load" | "ccl.get" => Glyph::Read,
            "ccl.tensor_write" | "ccl.tile_store" | "ccl.remote_store" | "ccl.put" => Glyph::Write,
            "ccl.fence" | "ccl.cacheinvalid" => Glyph::Marker,
            _ => Glyph::Other,
        },
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Labels longer than this are cut (the tooltip has them whole).
const LABEL_CHARS: usize = 30;

fn shortened(label: String) -> String {
    if label.chars().count() <= LABEL_CHARS {
        return label;
    }
    let mut cut: String = label.chars().take(LABEL_CHARS - 1).collect();
    cut.push('\u{2026}');
    cut
}

/// A drawn event: where it is and what it shows.
struct Placed {
    event: usize,
    column: usize,
    lane: usize,
    glyph: Glyph,
    label: String,
    tooltip: String,
}

struct Layout<'a> {
    machine: &'a Machine,
    trace: &'a Trace,
    lanes: Vec<ThreadId>,
    lane_of: BTreeMap<ThreadId, usize>,
    placed: Vec<Placed>,
    /// Event index -> index in `placed`.
    by_event: BTreeMap<usize, usize>,
    /// A launch's fork column (the blocks' start), by event.
    starts: BTreeMap<usize, usize>,
    columns: usize,
    first_event: usize,
}

impl Layout<'_> {
    fn x(&self, column: usize) -> f64 {
        LEFT + COLUMN * (column as f64 + 0.5)
    }

    fn y(&self, lane: usize) -> f64 {
        TOP + LANE * lane as f64 + LANE - 24.0
    }

    fn at(&self, event: usize) -> Option<(f64, f64)> {
        let placed = &self.placed[*self.by_event.get(&event)?];
        Some((self.x(placed.column), self.y(placed.lane)))
    }

    fn width(&self) -> f64 {
        LEFT + COLUMN * self.columns as f64 + RIGHT
    }

    fn height(&self) -> f64 {
        TOP + LANE * self.lanes.len() as f64 + LEGEND
    }
}

fn thread_label(machine: &Machine, t: ThreadId) -> String {
    ThreadRef::of(machine, t).to_string()
}

/// Places the trace's events: one column each (an issue shares its op's,
/// a launch takes one more for its blocks' start), the last
/// [`MAX_COLUMNS`].
fn layout<'a>(machine: &'a Machine, trace: &'a Trace) -> Layout<'a> {
    // The columns each event needs, to keep the last MAX_COLUMNS.
    let needs = |kind: &EventKind| match kind {
        EventKind::Issue { .. } => 0,
        EventKind::Launch { .. } => 2,
        _ => 1,
    };
    let mut first_event = trace.events.len();
    let mut total = 0;
    while first_event > 0 && total + needs(&trace.events[first_event - 1].kind) <= MAX_COLUMNS {
        first_event -= 1;
        total += needs(&trace.events[first_event].kind);
    }
    // An issue needs the op before it.
    while first_event < trace.events.len() && matches!(trace.events[first_event].kind, EventKind::Issue { .. }) {
        first_event += 1;
    }
    let mut threads = std::collections::BTreeSet::new();
    for event in &trace.events[first_event..] {
        threads.insert(event.thread);
        match &event.kind {
            EventKind::Launch { first, count, .. } => threads.extend(*first..*first + *count),
            EventKind::Collective { hosts } => threads.extend(hosts.iter().map(|(h, _)| *h)),
            _ => {}
        }
    }
    let lanes: Vec<ThreadId> = threads.into_iter().collect();
    let lane_of: BTreeMap<ThreadId, usize> = lanes.iter().enumerate().map(|(n, t)| (*t, n)).collect();
    let mut layout = Layout {
        machine,
        trace,
        lanes,
        lane_of,
        placed: Vec::new(),
        by_event: BTreeMap::new(),
        starts: BTreeMap::new(),
        columns: 0,
        first_event,
    };
    // Each lane's next free column. An op goes to the first free column of
    // its lane after everything that happens before it on another lane:
    // the notifies a wait observed, the exits a join waits for, the hosts a
    // collective joins; a launch's blocks start one column after it. So
    // lanes run side by side and every edge points right.
    let mut next = vec![0usize; layout.lanes.len()];
    let column_of = |layout: &Layout, event: usize| layout.by_event.get(&event).map(|p| layout.placed[*p].column);
    for (n, event) in trace.events.iter().enumerate().skip(first_event) {
        if matches!(event.kind, EventKind::Issue { .. }) {
            continue;
        }
        let lane = layout.lane_of[&event.thread];
        let mut column = next[lane];
        match &event.kind {
            EventKind::Wait { .. } => {
                for notify in trace.observed_notifies(n) {
                    if let Some(c) = column_of(&layout, notify) {
                        column = column.max(c + 1);
                    }
                }
            }
            EventKind::Join { first, count } => {
                for e in first_event..n {
                    let other = &trace.events[e];
                    if (*first..*first + *count).contains(&other.thread) && other.kind == EventKind::Exit {
                        if let Some(c) = column_of(&layout, e) {
                            column = column.max(c + 1);
                        }
                    }
                }
            }
            EventKind::Collective { hosts } => {
                for (host, _) in hosts {
                    column = column.max(next[layout.lane_of[host]]);
                }
            }
            _ => {}
        }
        let site = event.site.map(|s| machine.program.site(s));
        let op = site.map_or("", |s| s.op.as_str());
        let glyph = glyph_of(op, &event.kind);
        let short = op.strip_prefix("ccl.").unwrap_or(op);
        // A lowered protocol's op by its step (`barrier-b.wait`, `put [push]`).
        let named = match site.and_then(|s| s.step.as_deref()) {
            Some(step) if step.rsplit('.').next() == Some(short) => step.to_string(),
            Some(step) => format!("{short} [{step}]"),
            None => short.to_string(),
        };
        let label = match &event.kind {
            EventKind::Launch { kernel, count, .. } => {
                let name = &machine.program.funcs[*kernel as usize].name;
                if *count == 1 {
                    format!("launch @{name}")
                } else {
                    format!("launch @{name} x{count}")
                }
            }
            EventKind::Exit => "end".to_string(),
            EventKind::Join { .. } => "join".to_string(),
            EventKind::Land { .. } => format!("lands: {named}"),
            _ => named,
        };
        let tooltip_label = label.clone();
        let label = shortened(label);
        let who = match &event.kind {
            EventKind::Collective { .. } => "every rank".to_string(),
            _ => thread_label(machine, event.thread),
        };
        let place = site.map(|s| format!(" at {}", s.loc)).unwrap_or_default();
        let when = if event.step == 0 { "start".to_string() } else { format!("step {}", event.step) };
        let tooltip = format!("{when}: {who}: {tooltip_label}{place}");
        layout.by_event.insert(n, layout.placed.len());
        layout.placed.push(Placed { event: n, column, lane, glyph, label, tooltip });
        next[lane] = column + 1;
        match &event.kind {
            EventKind::Collective { hosts } => {
                for (host, _) in hosts {
                    next[layout.lane_of[host]] = column + 1;
                }
            }
            EventKind::Launch { first, count, .. } => {
                let blocks: Vec<usize> =
                    (*first..*first + *count).filter_map(|b| layout.lane_of.get(&b).copied()).collect();
                let start = blocks.iter().map(|b| next[*b]).fold(column + 1, usize::max);
                for block in blocks {
                    next[block] = start + 1;
                }
                layout.starts.insert(n, start);
            }
            _ => {}
        }
    }
    let column = next.into_iter().max().unwrap_or(0);
    layout.columns = column.max(1);
    layout
}

/// The SVG of `outcome`'s schedule, as replayed in `trace`.
pub fn render(machine: &Machine, outcome: &Outcome, summary: &Summary, trace: &Trace) -> String {
    let layout = layout(machine, trace);
    let race = match outcome {
        Outcome::Found { finding, .. } => match &**finding {
            Finding::Race(race) => Some(race.clone()),
            _ => None,
        },
        _ => None,
    };
    // Each racing access: its op's event, and the thread that made it (a
    // collective's event is rank 0's; its access may be another host's).
    let racing: Vec<Racing> = race
        .iter()
        .flat_map(|race| [race.first, race.second])
        .filter_map(|access| {
            let event = trace.access_event(access.thread, access.site, access.epoch)?;
            let word = if access.write { "racing write" } else { "racing read" };
            Some(Racing { event, thread: access.thread, word })
        })
        .collect();

    // Wide enough for the title and the legend too.
    let headline = summary.diagnostic.as_ref().map_or(0, |d| d.message.len());
    let (width, height) = (layout.width().max(MIN_WIDTH).max(40.0 + 8.8 * headline as f64), layout.height());
    let mut svg = String::new();
    writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"#
    )
    .unwrap();
    svg.push_str(DEFS);
    writeln!(svg, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##).unwrap();
    title(&mut svg, summary, trace, &layout);
    lanes(&mut svg, &layout);
    inflight(&mut svg, &layout);
    collectives(&mut svg, &layout);
    edges(&mut svg, &layout);
    events(&mut svg, &layout);
    step_numbers(&mut svg, &layout);
    race_marks(&mut svg, &layout, &racing, race.as_ref().map(|r| r.kind));
    legend(&mut svg, &layout, height);
    svg.push_str("</svg>\n");
    svg
}

const DEFS: &str = r##"<defs>
<marker id="arrow-sync" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#059669"/></marker>
<marker id="arrow-control" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#374151"/></marker>
<marker id="arrow-inflight" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="12" markerHeight="12" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#f59e0b"/></marker>
</defs>
"##;

fn title(svg: &mut String, summary: &Summary, trace: &Trace, layout: &Layout) {
    let headline = summary.diagnostic.as_ref().map(|d| d.message.clone()).unwrap_or_else(|| "no finding".to_string());
    let steps = if trace.steps == 1 { "1 step".to_string() } else { format!("{} steps", trace.steps) };
    let mut lines = vec![format!(
        "ccl-sim on {} ranks: a schedule of {steps}, found after {} states",
        layout.machine.ranks, summary.states
    )];
    if let Some(race) = &summary.race {
        lines.push(format!("{}: {}", race.first.loc, race.first.text));
        lines.push(format!("{}: {}", race.second.loc, race.second.text));
    }
    let skipped = layout.first_event + trace.dropped;
    if skipped > 0 {
        lines.push(format!("{skipped} earlier ops are not drawn (the last {MAX_COLUMNS} columns are)"));
    }
    writeln!(
        svg,
        r##"<text class="title" x="16" y="26" font-size="16" font-weight="bold" fill="#111827">{}</text>"##,
        escape(&headline)
    )
    .unwrap();
    for (n, line) in lines.iter().enumerate() {
        writeln!(
            svg,
            r##"<text class="subtitle" x="16" y="{}" font-size="12" fill="#374151">{}</text>"##,
            46 + 17 * n,
            escape(line)
        )
        .unwrap();
    }
}

/// The schedule's order: each step's own op (the first it ran; the ops it
/// ran eagerly follow it) numbered below it.
fn step_numbers(svg: &mut String, layout: &Layout) {
    svg.push_str("<g class=\"steps\">\n");
    let mut numbered = std::collections::BTreeSet::new();
    for placed in &layout.placed {
        let step = layout.trace.events[placed.event].step;
        if step == 0 || !numbered.insert(step) {
            continue;
        }
        let (x, y) = (layout.x(placed.column), layout.y(placed.lane));
        let width = 8.0 + 6.5 * step.to_string().len() as f64;
        writeln!(
            svg,
            r##"<g class="step" data-step="{step}"><rect x="{:.1}" y="{:.1}" width="{width:.1}" height="14" rx="7" fill="#111827"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">{step}</text></g>"##,
            x - width / 2.0,
            y + 15.0,
            y + 25.5
        )
        .unwrap();
    }
    svg.push_str("</g>\n");
}

fn lanes(svg: &mut String, layout: &Layout) {
    let right = LEFT + COLUMN * layout.columns as f64;
    let mut previous_rank = None;
    for (lane, t) in layout.lanes.iter().enumerate() {
        let thread = ThreadRef::of(layout.machine, *t);
        let y = layout.y(lane);
        let top = TOP + LANE * lane as f64;
        if previous_rank.is_some_and(|rank| rank != thread.rank) {
            writeln!(
                svg,
                r##"<line x1="8" y1="{top:.1}" x2="{right:.1}" y2="{top:.1}" stroke="#9ca3af" stroke-width="1.5"/>"##
            )
            .unwrap();
        }
        previous_rank = Some(thread.rank);
        let (name, weight) = match thread.block {
            Some(block) => (format!("block {block}"), "normal"),
            None => ("host".to_string(), "bold"),
        };
        writeln!(
            svg,
            r##"<g class="lane" data-thread="{thread}" data-rank="{}" data-block="{}"><text x="16" y="{:.1}" font-weight="bold" fill="#111827">rank {}</text><text x="70" y="{:.1}" font-weight="{weight}" fill="#111827">{name}</text><line x1="{LEFT:.1}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="#d1d5db" stroke-width="2"/></g>"##,
            thread.rank,
            thread.block.map_or("host".to_string(), |b| b.to_string()),
            y + 4.0,
            thread.rank,
            y + 4.0,
        )
        .unwrap();
    }
}

/// Each in-flight unit: a band below its lane from the op that issued it
/// to its landing (or the end, still in flight).
fn inflight(svg: &mut String, layout: &Layout) {
    svg.push_str("<g class=\"inflights\">\n");
    let trace = layout.trace;
    for n in layout.first_event..trace.events.len() {
        let EventKind::Issue { writes, .. } = trace.events[n].kind else { continue };
        // The op that issued it is the event before it.
        let Some((x1, y)) = n.checked_sub(1).and_then(|op| layout.at(op)) else { continue };
        let landing = trace.landing(n);
        let (x2, landed) = match landing.and_then(|l| layout.at(l)) {
            Some((x, _)) => (x, true),
            None => (LEFT + COLUMN * layout.columns as f64 + 20.0, false),
        };
        let y = y + 9.0;
        let what = if landed { "lands" } else { "still in flight" };
        writeln!(
            svg,
            r##"<g class="inflight" data-landed="{landed}"><title>{writes} write{} in flight from {} until it {what}</title><line x1="{x1:.1}" y1="{y:.1}" x2="{x2:.1}" y2="{y:.1}" stroke="{INFLIGHT}" stroke-width="5" stroke-opacity="0.55" stroke-linecap="round"{}/></g>"##,
            if writes == 1 { "" } else { "s" },
            escape(&thread_label(layout.machine, trace.events[n].thread)),
            if landed { "" } else { r#" stroke-dasharray="6 4" marker-end="url(#arrow-inflight)""# },
        )
        .unwrap();
    }
    svg.push_str("</g>\n");
}

fn collectives(svg: &mut String, layout: &Layout) {
    for placed in layout.placed.iter().filter(|p| p.glyph == Glyph::Collective) {
        let EventKind::Collective { hosts } = &layout.trace.events[placed.event].kind else { continue };
        let ys: Vec<f64> = hosts.iter().filter_map(|(h, _)| layout.lane_of.get(h)).map(|l| layout.y(*l)).collect();
        let (Some(top), Some(bottom)) = (ys.iter().copied().reduce(f64::min), ys.iter().copied().reduce(f64::max))
        else {
            continue;
        };
        let x = layout.x(placed.column);
        writeln!(
            svg,
            r##"<g class="collective"><title>{}</title><line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{COLLECTIVE}" stroke-width="6" stroke-opacity="0.35" stroke-linecap="round"/>{}</g>"##,
            escape(&placed.tooltip),
            top - 10.0,
            bottom + 10.0,
            ys.iter().map(|y| format!(r##"<rect x="{:.1}" y="{:.1}" width="10" height="10" fill="{COLLECTIVE}"/>"##, x - 5.0, y - 5.0)).collect::<String>()
        )
        .unwrap();
    }
}

/// A curved arrow from one op to another, of `class` and `colour`.
fn arrow(svg: &mut String, class: &str, marker: &str, colour: &str, from: (f64, f64), to: (f64, f64), tip: &str) {
    let ((x1, y1), (x2, y2)) = (from, to);
    // Leave the glyphs clear at both ends.
    let (y1, y2) = if y2 > y1 {
        (y1 + 6.0, y2 - 7.0)
    } else if y2 < y1 {
        (y1 - 6.0, y2 + 7.0)
    } else {
        (y1, y2)
    };
    let bend = ((x2 - x1).abs() * 0.5).clamp(6.0, 60.0);
    writeln!(
        svg,
        r##"<path class="{class}" d="M{x1:.1},{y1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {x2:.1},{y2:.1}" fill="none" stroke="{colour}" stroke-width="1.6" marker-end="url(#{marker})"><title>{}</title></path>"##,
        x1 + bend,
        x2 - bend,
        escape(tip)
    )
    .unwrap();
}

/// Synchronisation: notify -> the waits that observed it, fork, join.
fn edges(svg: &mut String, layout: &Layout) {
    svg.push_str("<g class=\"edges\">\n");
    let trace = layout.trace;
    for placed in &layout.placed {
        let n = placed.event;
        let event = &trace.events[n];
        let Some(to) = layout.at(n) else { continue };
        match &event.kind {
            EventKind::Wait { .. } => {
                for notify in trace.observed_notifies(n) {
                    if let Some(from) = layout.at(notify) {
                        let tip = format!(
                            "{} notified; {} waited and observed it",
                            thread_label(layout.machine, trace.events[notify].thread),
                            thread_label(layout.machine, event.thread)
                        );
                        arrow(svg, "edge sync", "arrow-sync", SIGNAL, from, to, &tip);
                    }
                }
            }
            EventKind::Launch { first, count, .. } => {
                let start = layout.starts[&n];
                for block in *first..*first + *count {
                    let Some(lane) = layout.lane_of.get(&block) else { continue };
                    let (x, y) = (layout.x(start), layout.y(*lane));
                    arrow(svg, "edge fork", "arrow-control", CONTROL, to, (x, y), "launch: the block starts");
                    writeln!(svg, r##"<circle class="start" cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{CONTROL}"/>"##)
                        .unwrap();
                }
            }
            EventKind::Join { first, count } => {
                for block in *first..*first + *count {
                    let exit = (layout.first_event..n)
                        .rev()
                        .find(|e| trace.events[*e].thread == block && trace.events[*e].kind == EventKind::Exit);
                    if let Some(from) = exit.and_then(|e| layout.at(e)) {
                        arrow(
                            svg,
                            "edge join",
                            "arrow-control",
                            CONTROL,
                            from,
                            to,
                            "join: the host waits for the block",
                        );
                    }
                }
            }
            _ => {}
        }
    }
    svg.push_str("</g>\n");
}

fn glyph_svg(glyph: Glyph, x: f64, y: f64) -> String {
    match glyph {
        Glyph::Read => format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="6" fill="{READ}"/>"##),
        Glyph::Write => {
            format!(r##"<rect x="{:.1}" y="{:.1}" width="11" height="11" fill="{WRITE}"/>"##, x - 5.5, y - 5.5)
        }
        Glyph::Notify => {
            format!(
                r##"<path d="M{:.1},{:.1} L{:.1},{y:.1} L{:.1},{:.1} z" fill="{SIGNAL}"/>"##,
                x - 6.0,
                y - 6.0,
                x + 7.0,
                x - 6.0,
                y + 6.0
            )
        }
        Glyph::Wait => format!(
            r##"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="#ffffff" stroke="{SIGNAL}" stroke-width="2.5"/>"##,
            x - 6.0,
            y - 6.0
        ),
        Glyph::Marker => {
            format!(r##"<rect x="{:.1}" y="{:.1}" width="4" height="16" fill="{MARKER}"/>"##, x - 2.0, y - 8.0)
        }
        Glyph::Launch => {
            format!(r##"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="{CONTROL}"/>"##, x - 6.0, y - 6.0)
        }
        Glyph::Exit | Glyph::Join => {
            format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="#ffffff" stroke="{CONTROL}" stroke-width="2"/>"##)
        }
        Glyph::Land => format!(
            r##"<path d="M{x:.1},{:.1} L{:.1},{y:.1} L{x:.1},{:.1} L{:.1},{y:.1} z" fill="{INFLIGHT}"/>"##,
            y - 7.0,
            x + 7.0,
            y + 7.0,
            x - 7.0
        ),
        Glyph::Collective => String::new(),
        Glyph::Other => format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="{MARKER}"/>"##),
    }
}

fn glyph_class(glyph: Glyph) -> &'static str {
    match glyph {
        Glyph::Read => "read",
        Glyph::Write => "write",
        Glyph::Notify => "notify",
        Glyph::Wait => "wait",
        Glyph::Marker => "marker",
        Glyph::Launch => "launch",
        Glyph::Exit => "exit",
        Glyph::Join => "join",
        Glyph::Land => "land",
        Glyph::Collective => "collective-op",
        Glyph::Other => "other",
    }
}

fn events(svg: &mut String, layout: &Layout) {
    svg.push_str("<g class=\"ops\">\n");
    for placed in &layout.placed {
        let (x, y) = (layout.x(placed.column), layout.y(placed.lane));
        let event = &layout.trace.events[placed.event];
        let line = event
            .site
            .map(|s| match &layout.machine.program.site(s).loc {
                cclir_support::diagnostics::SourceLoc::File { line, .. } => line.to_string(),
                cclir_support::diagnostics::SourceLoc::Unknown => String::new(),
            })
            .unwrap_or_default();
        writeln!(
            svg,
            r##"<g class="op {}" data-thread="{}" data-step="{}" data-line="{line}"><title>{}</title>{}<text x="{:.1}" y="{:.1}" transform="rotate(-40 {:.1} {:.1})" font-size="10.5" fill="#1f2937">{}</text></g>"##,
            glyph_class(placed.glyph),
            thread_label(layout.machine, event.thread),
            event.step,
            escape(&placed.tooltip),
            glyph_svg(placed.glyph, x, y),
            x + 4.0,
            y - 12.0,
            x + 4.0,
            y - 12.0,
            escape(&placed.label)
        )
        .unwrap();
    }
    svg.push_str("</g>\n");
}

/// The race's two accesses ringed, and the edge missing between them.
/// A racing access as drawn.
struct Racing {
    event: usize,
    thread: ThreadId,
    word: &'static str,
}

/// Where `racing` is drawn: its op's column, on its own thread's lane.
fn racing_at(layout: &Layout, racing: &Racing) -> Option<(f64, f64)> {
    let placed = &layout.placed[*layout.by_event.get(&racing.event)?];
    Some((layout.x(placed.column), layout.y(*layout.lane_of.get(&racing.thread)?)))
}

fn race_marks(svg: &mut String, layout: &Layout, racing: &[Racing], kind: Option<RaceKind>) {
    let points: Vec<(f64, f64)> = racing.iter().filter_map(|r| racing_at(layout, r)).collect();
    if let [from, to] = points[..] {
        let why = match kind {
            Some(RaceKind::StaleRead) => "the newer write is not visible to the read",
            _ => "missing: no happens-before edge",
        };
        let ((x1, y1), (x2, y2)) = (from, to);
        // The words go under the caption of the access drawn first (left).
        let (cx, cy) = if x1 <= x2 { (x1, y1) } else { (x2, y2) };
        writeln!(
            svg,
            r##"<g class="missing-edge"><line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{RACE}" stroke-width="2.5" stroke-dasharray="7 5"/><text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="11.5" font-weight="bold" fill="{RACE}">{why}</text></g>"##,
            cy + 56.0
        )
        .unwrap();
    }
    for racing in racing {
        let Some((x, y)) = racing_at(layout, racing) else { continue };
        let e = &layout.trace.events[racing.event];
        let site = e.site.map(|s| layout.machine.program.site(s).loc.to_string()).unwrap_or_default();
        let word = racing.word;
        writeln!(
            svg,
            r##"<g class="race-access" data-thread="{}" data-loc="{}"><circle cx="{x:.1}" cy="{y:.1}" r="12" fill="none" stroke="{RACE}" stroke-width="3"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11.5" font-weight="bold" fill="{RACE}">{word}</text></g>"##,
            thread_label(layout.machine, racing.thread),
            escape(&site),
            y + 42.0
        )
        .unwrap();
    }
}

fn legend(svg: &mut String, layout: &Layout, height: f64) {
    let y = height - LEGEND + 40.0;
    writeln!(
        svg,
        r##"<g class="legend"><text x="16" y="{:.1}" font-weight="bold" fill="#111827">legend</text>"##,
        y - 4.0
    )
    .unwrap();
    let mut x = 16.0;
    let y = y + 20.0;
    let glyphs = [
        (Glyph::Read, "read"),
        (Glyph::Write, "write"),
        (Glyph::Notify, "notify"),
        (Glyph::Wait, "wait"),
        (Glyph::Marker, "fence / cacheinvalid"),
        (Glyph::Land, "in-flight write lands"),
        (Glyph::Launch, "launch"),
        (Glyph::Exit, "end / join"),
    ];
    for (glyph, text) in glyphs {
        write!(svg, "{}", glyph_svg(glyph, x + 6.0, y)).unwrap();
        write!(svg, r##"<text x="{:.1}" y="{:.1}" fill="#1f2937">{text}</text>"##, x + 18.0, y + 4.0).unwrap();
        x += 36.0 + text.len() as f64 * 6.6;
    }
    write!(
        svg,
        r##"<rect x="{x:.1}" y="{:.1}" width="14.5" height="14" rx="7" fill="#111827"/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">5</text><text x="{:.1}" y="{:.1}" fill="#1f2937">step 5 of the schedule (the ops after it ran eagerly in it)</text>"##,
        y - 7.0,
        x + 7.25,
        y + 3.5,
        x + 22.0,
        y + 4.0
    )
    .unwrap();
    let y = y + 28.0;
    let mut x = 16.0;
    let lines: [(&str, &str, &str); 5] = [
        (SIGNAL, r#" stroke-width="1.6" marker-end="url(#arrow-sync)""#, "notify -> the wait that observed it"),
        (CONTROL, r#" stroke-width="1.6" marker-end="url(#arrow-control)""#, "launch fork / join"),
        (INFLIGHT, r#" stroke-width="5" stroke-opacity="0.55""#, "write in flight, issue to landing"),
        (COLLECTIVE, r#" stroke-width="6" stroke-opacity="0.35""#, "collective (every host)"),
        (
            RACE,
            r#" stroke-dasharray="7 5" stroke-width="2.5""#,
            "racing accesses: no edge between them, or a stale read",
        ),
    ];
    for (colour, style, text) in lines {
        write!(svg, r##"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}"{style}/>"##, x + 34.0)
            .unwrap();
        write!(svg, r##"<text x="{:.1}" y="{:.1}" fill="#1f2937">{text}</text>"##, x + 42.0, y + 4.0).unwrap();
        x += 60.0 + text.len() as f64 * 6.4;
    }
    let _ = layout;
    svg.push_str("</g>\n");
}

/// The SVG of a run that reports no schedule: its verdict.
pub fn render_verdict(text: &str) -> String {
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="900" height="80" viewBox="0 0 900 80" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="14"><rect width="100%" height="100%" fill="#ffffff"/><text class="title" x="16" y="44" fill="#111827">{}</text></svg>
"##,
        escape(text)
    )
}
