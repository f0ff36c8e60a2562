//! docs/architecture.md against the code: the crate graph it draws is the
//! one `cargo metadata` reports (the workspace's own crates, normal and dev
//! dependencies), and every crate of the workspace is in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The dependencies among the workspace's crates: `(normal, dev)`.
fn metadata_graph() -> (Graph, Graph) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages.iter().map(|p| p["name"].as_str().expect("a name").to_string()).collect();
    let (mut normal, mut dev) = (Graph::new(), Graph::new());
    for package in packages {
        let name = package["name"].as_str().expect("a name").to_string();
        normal.entry(name.clone()).or_default();
        for dependency in package["dependencies"].as_array().expect("dependencies") {
            let target = dependency["name"].as_str().expect("a name");
            if !names.contains(target) {
                continue;
            }
            let graph = if dependency["kind"].as_str() == Some("dev") { &mut dev } else { &mut normal };
            graph.entry(name.clone()).or_default().insert(target.to_string());
        }
    }
    (normal, dev)
}

/// The graph of docs/architecture.md's block between the crate-graph
/// markers: `name -> a, b` (normal) and `dev: name -> a` lines.
fn documented_graph() -> (Graph, Graph) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md");
    let text = std::fs::read_to_string(path).expect("docs/architecture.md");
    let begin = "<!-- crate-graph-begin -->";
    let start = text.find(begin).expect("the begin marker") + begin.len();
    let end = text.find("<!-- crate-graph-end -->").expect("the end marker");
    let (mut normal, mut dev) = (Graph::new(), Graph::new());
    for line in text[start..end].lines().filter(|line| line.contains("->")) {
        let (from, to) = line.split_once("->").expect("an arrow");
        let (graph, from) = match from.trim().strip_prefix("dev:") {
            Some(from) => (&mut dev, from.trim()),
            None => (&mut normal, from.trim()),
        };
        let targets = graph.entry(from.to_string()).or_default();
        targets.extend(to.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string));
    }
    (normal, dev)
}

#[test]
fn the_documented_crate_graph_is_cargo_metadata_s() {
    let (normal, dev) = metadata_graph();
    let (documented_normal, documented_dev) = documented_graph();
    assert_eq!(documented_normal, normal, "docs/architecture.md's crate graph (dependencies)");
    assert_eq!(documented_dev, dev, "docs/architecture.md's crate graph (dev-dependencies)");
    assert!(normal.len() >= 11, "every crate of the workspace: {:?}", normal.keys());
}
