//! `ccl-sim --diagram`: the SVG of a reported schedule. The old
//! all_to_all_v order's race (docs/images/old-order-race.svg, shown by
//! docs/ccl-sim.md and the README) is regenerated and compared, and its
//! structure read back: a lane per thread, notify -> wait, fork and join
//! edges, in-flight writes, the two racing accesses at their lines, the
//! missing edge between them, and the legend. Regenerate the picture with
//! `CCLIR_BLESS=1 cargo test --test sim_diagram`.

use cclir::sim::{self, summary::Summary, Options, Outcome};

mod tools;
use tools::{repository, scratch};

const INPUT: &str = "docs/images/old-order-race.mlir";
const PICTURE: &str = "docs/images/old-order-race.svg";
const LATE: &str =
    "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)";

/// The old order's race on 2 ranks of one block, every schedule: the
/// shortest schedule to it (stateright's breadth-first search finds it; the
/// default depth-first one finds a longer one), drawn.
fn old_order() -> (String, Summary) {
    let text = std::fs::read_to_string(repository().join(INPUT)).unwrap();
    let session = cclir::Session::new();
    let mut program = session.parse(&text, INPUT).unwrap();
    session.run(&session.pipeline(LATE).unwrap(), &mut program).unwrap();
    let search_config = sim::SearchConfig { engine: sim::Engine::Stateright, ..Options::default().search_config };
    let options = Options { ranks: 2, source: Some(text.as_str().into()), search_config, ..Options::default() };
    let (machine, outcome) = sim::simulate(program.operation_ref(), &options).unwrap();
    let Outcome::Found { schedule, .. } = &outcome else { panic!("the old order does not race: {outcome:?}") };
    let (trace, _) = sim::trace::replay(&machine, schedule);
    let summary = sim::summary::summarize(&machine, &outcome, Some(&trace));
    (sim::diagram::render(&machine, &outcome, &summary, &trace), summary)
}

#[test]
fn the_docs_picture_is_the_old_orders_race_as_drawn_now() {
    let (svg, _) = old_order();
    let committed = repository().join(PICTURE);
    if std::env::var_os("CCLIR_BLESS").is_some() {
        std::fs::write(&committed, &svg).unwrap();
    }
    let text = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(text == svg, "{PICTURE} is not what ccl-sim draws now; run `CCLIR_BLESS=1 cargo test --test sim_diagram`");
}

fn has_class(node: &roxmltree::Node, class: &str) -> bool {
    node.attribute("class").is_some_and(|c| c.split(' ').any(|c| c == class))
}

fn count(doc: &roxmltree::Document, class: &str) -> usize {
    doc.descendants().filter(|n| has_class(n, class)).count()
}

#[test]
fn the_old_orders_race_diagram_shows_the_lanes_the_edges_and_both_accesses() {
    let (svg, summary) = old_order();
    let doc = roxmltree::Document::parse(&svg).expect("the diagram is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let lanes: Vec<&str> =
        doc.descendants().filter(|n| has_class(n, "lane")).filter_map(|n| n.attribute("data-thread")).collect();
    assert_eq!(lanes, ["rank 0 host", "rank 0 block 0", "rank 1 host", "rank 1 block 0"]);
    // The barriers' notify -> wait edges, the launches' forks and joins.
    assert!(count(&doc, "sync") >= 2, "no notify -> wait edge");
    assert!(count(&doc, "fork") >= 2, "no launch fork");
    assert!(count(&doc, "join") >= 1, "no join");
    assert!(count(&doc, "inflight") >= 1, "no in-flight write");
    assert!(count(&doc, "legend") == 1);
    // Both racing accesses marked, on their threads and at their lines,
    // and the edge missing between them.
    let race = summary.race.expect("a race");
    let marks: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| has_class(n, "race-access"))
        .map(|n| (n.attribute("data-thread").unwrap().to_string(), n.attribute("data-loc").unwrap().to_string()))
        .collect();
    let expected: Vec<(String, String)> =
        [&race.first, &race.second].iter().map(|a| (a.thread.to_string(), a.loc.to_string())).collect();
    assert_eq!(marks, expected);
    assert_eq!(count(&doc, "missing-edge"), 1);
    let text: String = doc.descendants().filter(|n| n.is_text()).map(|n| n.text().unwrap()).collect();
    assert!(text.contains("missing: no happens-before edge"), "{text}");
    assert!(text.contains("remote_load [snapshot]"));
    // Every op in a lane, each with its tooltip.
    for op in doc.descendants().filter(|n| has_class(n, "op")) {
        assert!(lanes.contains(&op.attribute("data-thread").unwrap()));
        assert!(op.children().any(|c| c.tag_name().name() == "title"));
    }
}

fn ccl_sim(args: &[&str]) -> (i32, String) {
    tools::run(env!("CARGO_BIN_EXE_ccl-sim"), args)
}

/// ccl-sim's diagram of `input` on two ranks, where it finds a race (exit
/// 3): the picture's path (a scratch file `name`) and its text.
fn race_diagram(input: &str, name: &str) -> (std::path::PathBuf, String) {
    let path = scratch(name);
    let (code, stderr) = ccl_sim(&[input, "--ranks", "2", "--diagram", path.to_str().unwrap()]);
    assert_eq!(code, 3, "{stderr}");
    let svg = std::fs::read_to_string(&path).unwrap();
    (path, svg)
}

#[test]
fn ccl_sim_writes_the_diagram_of_the_race_it_reports() {
    let (path, svg) = race_diagram("lit-tests/Sim/put-without-fence.mlir", "race.svg");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(count(&doc, "race-access"), 2);
    assert_eq!(count(&doc, "sync"), 1, "the notify -> wait edge");
    let text: String = doc.descendants().filter(|n| n.is_text()).map(|n| n.text().unwrap()).collect();
    assert!(text.contains("the newer write is not visible to the read"), "a stale read says so");
    // A run with nothing to draw writes its verdict, replacing an old picture.
    let (code, _) = ccl_sim(&[
        "lit-tests/Sim/cost.mlir",
        "--ranks",
        "2",
        "--entry",
        "main_once",
        "--diagram",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.contains("no race"), "{svg}");
    roxmltree::Document::parse(&svg).unwrap();
    // A picture that cannot be written is an error, the verdict's code lost.
    let (code, stderr) =
        ccl_sim(&["lit-tests/Sim/put-without-fence.mlir", "--ranks", "2", "--diagram", "/nonexistent-dir/x.svg"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("ccl-sim: error: cannot open output file '/nonexistent-dir/x.svg'"), "{stderr}");
}

#[test]
fn a_collective_spans_the_hosts_and_its_racing_write_is_on_its_own_hosts_lane() {
    let (_, svg) = race_diagram("lit-tests/Sim/missing-prologue.mlir", "collective.svg");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(count(&doc, "collective"), 1);
    let threads: Vec<&str> = doc
        .descendants()
        .filter(|n| has_class(n, "race-access"))
        .map(|n| n.attribute("data-thread").unwrap())
        .collect();
    // The all_reduce's write is rank 1 host's, the stale read rank 1 block 0's.
    assert_eq!(threads, ["rank 1 host", "rank 1 block 0"]);
}
