//! Rules of the source that reading it can check, over every Rust file of
//! the repository (not `target/`, where the generated code is):
//!
//! - every `unsafe fn` has a `# Safety` section, and every `unsafe` block
//!   and `unsafe impl` a `SAFETY:` comment before it;
//! - every library and binary of the workspace forbids `unsafe_code`, but
//!   for the two that need FFI (`cclir-dialect`, whose `ffi` module holds
//!   its unsafe code, and `cclir-process`), which deny undocumented unsafe
//!   code instead;
//! - no file has more than 1,000 lines and no function more than 150;
//! - the simulator core's modules (sim/src) depend one way: the machine on
//!   no search, a search on nothing that shows its result, none on the
//!   crate root, no circle; docs/architecture.md draws the graph.
//!
//! The files are read with comments and literals told apart from code (a
//! brace or `unsafe` in a string is not code).

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 1_000;
const MAX_FUNCTION_LINES: usize = 150;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A Rust file: its lines, and the same lines with comments and the
/// insides of string and character literals blanked (`code`).
struct Source {
    path: String,
    lines: Vec<String>,
    code: Vec<String>,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "node_modules" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn sources() -> Vec<Source> {
    let mut paths = Vec::new();
    rust_files(root(), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable");
            let relative = path.strip_prefix(root()).expect("under the root").to_string_lossy().into_owned();
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            let code = blank_comments_and_literals(&text).lines().map(str::to_string).collect();
            Source { path: relative, lines, code }
        })
        .collect()
}

/// `text` with comments and the contents of literals replaced by spaces
/// (line breaks kept, so line numbers stay).
fn blank_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            // r"..." or r#"..."#, with a `b` prefix or not.
            let open = chars[i..].iter().position(|&c| c == '"').expect("a raw string opens") + i;
            (i..=open).for_each(|_| out.push(' '));
            i = open + 1;
            let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while i < chars.len() && !chars[i..].starts_with(&close) {
                out.push(blank(chars[i]));
                i += 1;
            }
            (0..close.len()).for_each(|_| out.push(' '));
            i += close.len();
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                for k in 0..skip {
                    if let Some(&c) = chars.get(i + k) {
                        out.push(blank(c));
                    }
                }
                i += skip;
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            out.push('\'');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                (0..skip).for_each(|_| out.push(' '));
                i += skip;
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The number of `#` of a raw string starting at `i`, if one does.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// Whether the `'` at `i` opens a character literal (not a lifetime).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// Whether `code` (a blanked line) has the word `word` followed by one of
/// `then` (after spaces).
fn has_word_then(code: &str, word: &str, then: &[&str]) -> bool {
    let mut from = 0;
    while let Some(at) = code[from..].find(word).map(|at| at + from) {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].trim_start();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && then.iter().any(|t| after.starts_with(t)) {
            return true;
        }
        from = at + word.len();
    }
    false
}

/// The name of the function a blanked line declares (with a body or not).
fn declared_function(code: &str) -> Option<String> {
    let mut words = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
    while let Some(word) = words.next() {
        match word {
            "pub" | "crate" | "super" | "in" | "const" | "async" | "unsafe" | "extern" | "C" | "self" => continue,
            "fn" => return words.next().map(str::to_string),
            _ => return None,
        }
    }
    None
}

#[test]
fn every_unsafe_fn_has_a_safety_section() {
    let mut missing = Vec::new();
    for source in sources() {
        for (i, code) in source.code.iter().enumerate() {
            if !(has_word_then(code, "unsafe", &["fn "]) || has_word_then(code, "unsafe", &["extern \"C\" fn "])) {
                continue;
            }
            let docs = source.lines[..i]
                .iter()
                .rev()
                .take_while(|line| line.trim_start().starts_with("///") || line.trim_start().starts_with("#["));
            if !docs.into_iter().any(|line| line.contains("# Safety")) {
                missing.push(format!("{}:{}: {}", source.path, i + 1, source.lines[i].trim()));
            }
        }
    }
    assert!(missing.is_empty(), "unsafe fn without a `# Safety` section:\n{}", missing.join("\n"));
}

#[test]
fn every_unsafe_block_and_impl_says_why() {
    let mut missing = Vec::new();
    for source in sources() {
        for (i, code) in source.code.iter().enumerate() {
            if !(has_word_then(code, "unsafe", &["{"]) || has_word_then(code, "unsafe", &["impl"])) {
                continue;
            }
            // The comment is on the line, or above the statement the block
            // is in: the lines before it back to one that ends a statement.
            let mut said = source.lines[i].contains("SAFETY:");
            for (line, code) in source.lines[..i].iter().zip(&source.code[..i]).rev() {
                if said {
                    break;
                }
                if line.trim_start().starts_with("//") {
                    said = line.contains("SAFETY:");
                    continue;
                }
                let code = code.trim_end();
                if code.is_empty() || code.ends_with([';', '{', '}']) {
                    break;
                }
            }
            if !said {
                missing.push(format!("{}:{}: {}", source.path, i + 1, source.lines[i].trim()));
            }
        }
    }
    assert!(missing.is_empty(), "unsafe code without a `SAFETY:` comment:\n{}", missing.join("\n"));
}

#[test]
fn crates_without_ffi_forbid_unsafe_code() {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata is JSON");
    let mut wrong = Vec::new();
    let mut checked = 0;
    for package in metadata["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("a name");
        for target in package["targets"].as_array().expect("targets") {
            let kinds: Vec<&str> =
                target["kind"].as_array().expect("kinds").iter().filter_map(|k| k.as_str()).collect();
            if !kinds.iter().any(|kind| ["lib", "rlib", "cdylib", "bin", "proc-macro"].contains(kind)) {
                continue;
            }
            let path = target["src_path"].as_str().expect("a source path");
            let text = std::fs::read_to_string(path).expect("readable");
            checked += 1;
            let ffi = ["cclir-dialect", "cclir-process"].contains(&name) && kinds.contains(&"lib");
            let rule = if ffi {
                "clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc"
            } else {
                "#![forbid(unsafe_code)]"
            };
            let holds = match (ffi, name) {
                // The dialect crate denies unsafe code but in its `ffi`
                // module, which denies the undocumented kinds.
                (true, "cclir-dialect") => {
                    let ffi_module = Path::new(path).with_file_name("ffi/mod.rs");
                    text.contains("#![deny(unsafe_code)]")
                        && std::fs::read_to_string(ffi_module).expect("dialect/src/ffi/mod.rs").contains(rule)
                }
                _ => text.contains(rule),
            };
            if !holds {
                wrong.push(format!("{name} ({path}): expected {rule}"));
            }
        }
    }
    assert!(checked >= 15, "only {checked} targets checked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_file_over_1000_lines_and_no_function_over_150() {
    let mut long = Vec::new();
    for source in sources() {
        if source.lines.len() > MAX_FILE_LINES {
            long.push(format!("{}: {} lines", source.path, source.lines.len()));
        }
        for (i, code) in source.code.iter().enumerate() {
            let Some(name) = declared_function(code) else { continue };
            let Some(lines) = function_lines(&source.code[i..]) else { continue };
            if lines > MAX_FUNCTION_LINES {
                long.push(format!("{}:{}: fn {name}: {lines} lines", source.path, i + 1));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over the limits ({MAX_FILE_LINES} lines a file, {MAX_FUNCTION_LINES} a function):\n{}",
        long.join("\n")
    );
}

/// The lines of the function whose declaration starts `code`, to its
/// closing brace; `None` for a declaration without a body.
fn function_lines(code: &[String]) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    for (index, line) in code.iter().enumerate() {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth = depth.saturating_sub(1),
                ';' if !opened && depth == 0 => return None,
                _ => {}
            }
            if opened && depth == 0 {
                return Some(index + 1);
            }
        }
    }
    None
}

#[test]
fn the_blanking_tells_code_from_literals() {
    let text = "let s = \"unsafe { // }\"; // unsafe {\nlet r = r#\"{\"#; let c = '{'; fn f<'a>(x: &'a str) {}\n";
    let blanked = blank_comments_and_literals(text);
    assert!(!blanked.contains("unsafe"), "{blanked}");
    assert_eq!(blanked.matches('{').count(), 1, "{blanked}");
    assert_eq!(blanked.lines().count(), 2);
    assert_eq!(declared_function("    pub(crate) unsafe extern \"C\" fn run("), Some("run".to_string()));
    assert_eq!(function_lines(&["fn f() {".to_string(), "  x".to_string(), "}".to_string()]), Some(3));
    assert_eq!(function_lines(&["fn f();".to_string()]), None);
}

type ModuleGraph = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// The module path of a file under `sim/src` (`explore/por/mod.rs` is
/// `explore::por`; `lib.rs` the crate root, empty).
fn sim_module_path(relative: &Path) -> Vec<String> {
    let mut path: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let file = path.pop().expect("a file name");
    match file.as_str() {
        "lib.rs" | "mod.rs" => {}
        _ => path.push(file.trim_end_matches(".rs").to_string()),
    }
    path
}

/// The absolute module paths `code` (blanked) names through `crate::` and
/// `super::` (each item of a `use super::{a, b}` list on its own), in the
/// module `module`; an inline `mod name { ... }` is a module of its own.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let word_at = |i: usize| -> String { chars[i..].iter().take_while(|c| is_ident(**c)).collect() };
    let skip_space = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let mut paths = Vec::new();
    // Inline modules open, with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            depth += 1;
            if let Some(name) = pending_mod.take() {
                inline.push((name, depth));
            }
            i += 1;
            continue;
        }
        if c == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if c == ';' {
            pending_mod = None;
        }
        if !is_ident(c) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == '$')) {
            i += 1;
            continue;
        }
        let word = word_at(i);
        let after = i + word.len();
        if word == "mod" {
            let name_at = skip_space(after);
            let name = word_at(name_at);
            if !name.is_empty() {
                pending_mod = Some(name);
            }
            i = after;
            continue;
        }
        if (word != "crate" && word != "super") || chars.get(after..after + 2) != Some(&[':', ':'][..]) {
            i = after;
            continue;
        }
        let mut base: Vec<String> = module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
        let mut at = i;
        loop {
            let w = word_at(at);
            match w.as_str() {
                "crate" => base.clear(),
                "super" => {
                    base.pop();
                }
                _ => break,
            }
            at += w.len() + 2;
        }
        at = skip_space(at);
        if chars.get(at) == Some(&'{') {
            // `use super::{a, b::c, self}`: the first word of each item.
            let mut level = 0usize;
            let mut item_start = true;
            let mut j = at;
            while j < chars.len() {
                match chars[j] {
                    '{' => {
                        level += 1;
                        item_start = level == 1;
                    }
                    '}' => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    ',' if level == 1 => item_start = true,
                    c if item_start && level == 1 && is_ident(c) => {
                        let item = word_at(j);
                        let mut path = base.clone();
                        if item != "self" {
                            path.push(item.clone());
                        }
                        paths.push(path);
                        item_start = false;
                        j += item.len();
                        continue;
                    }
                    _ => {}
                }
                j += 1;
            }
            i = j + 1;
        } else {
            let item = word_at(at);
            let mut path = base;
            if !item.is_empty() {
                path.push(item.clone());
            }
            paths.push(path);
            i = at + item.len().max(1);
        }
    }
    paths
}

/// Which of the simulator core's top-level modules (a file or folder of
/// sim/src each; `lib` the crate root) use which, read from their code.
fn sim_module_graph() -> ModuleGraph {
    let sim = root().join("sim/src");
    let mut paths = Vec::new();
    rust_files(&sim, &mut paths);
    let modules: Vec<Vec<String>> =
        paths.iter().map(|path| sim_module_path(path.strip_prefix(&sim).expect("under sim/src"))).collect();
    let top = |path: &[String]| path.first().cloned().unwrap_or_else(|| "lib".to_string());
    let known: std::collections::BTreeSet<String> = modules.iter().map(|m| top(m)).collect();
    let mut graph = ModuleGraph::new();
    for (path, module) in paths.iter().zip(&modules) {
        let from = top(module);
        let edges = graph.entry(from.clone()).or_default();
        let code = blank_comments_and_literals(&std::fs::read_to_string(path).expect("readable"));
        for named in named_paths(&code, module) {
            // An item of the crate root itself (`crate::run`) is `lib`.
            let to = match named.first() {
                Some(first) if known.contains(first) && first != "lib" => first.clone(),
                _ => "lib".to_string(),
            };
            if to != from {
                edges.insert(to);
            }
        }
    }
    // The crate root declares every module: what it uses is not a layer.
    graph.remove("lib");
    graph
}

/// The block of docs/architecture.md between the simulator's module-graph
/// markers: `module -> a, b` lines.
fn documented_sim_module_graph() -> ModuleGraph {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let begin = "<!-- sim-module-graph-begin -->";
    let start = text.find(begin).expect("the begin marker") + begin.len();
    let end = text.find("<!-- sim-module-graph-end -->").expect("the end marker");
    let mut graph = ModuleGraph::new();
    for line in text[start..end].lines().filter(|line| line.contains("->")) {
        let (from, to) = line.split_once("->").expect("an arrow");
        let targets = graph.entry(from.trim().to_string()).or_default();
        targets.extend(to.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string));
    }
    graph
}

/// The simulator core is one-way (issue 37): the machine depends on no
/// search, a search on nothing that shows its result, no module on the
/// crate root, and the modules form no circle; docs/architecture.md draws
/// this graph.
#[test]
fn the_simulator_core_is_one_way() {
    let graph = sim_module_graph();
    let shows = ["report", "trace", "diagram", "sarif", "summary"];
    let mut wrong = Vec::new();
    for (from, to) in graph.iter().flat_map(|(from, edges)| edges.iter().map(move |to| (from.as_str(), to.as_str()))) {
        let backward = match from {
            "explore" => shows.contains(&to),
            "machine" => shows.contains(&to) || to == "explore",
            _ => false,
        };
        if backward {
            wrong.push(format!("{from} uses {to}"));
        }
    }
    for (from, edges) in &graph {
        if edges.contains("lib") {
            wrong.push(format!("{from} uses the crate root (lib.rs)"));
        }
    }
    // Kahn's algorithm: what is left has a circle.
    let mut left = graph.clone();
    while let Some(leaf) =
        left.iter().find(|(_, edges)| edges.iter().all(|e| !left.contains_key(e))).map(|(m, _)| m.clone())
    {
        left.remove(&leaf);
    }
    if !left.is_empty() {
        wrong.push(format!("a circle among {:?}", left.keys().collect::<Vec<_>>()));
    }
    assert!(wrong.is_empty(), "sim/src's modules:\n{}\n(graph: {graph:#?})", wrong.join("\n"));
    assert!(graph.len() >= 15, "every module of sim/src: {:?}", graph.keys());
    assert_eq!(documented_sim_module_graph(), graph, "docs/architecture.md's module graph of sim/src");
}

#[test]
fn module_paths_are_read_from_code() {
    let module = ["explore".to_string(), "por".to_string()];
    let code = "use super::{access, iset::ISet, self};\nuse crate::machine::State;\nfn f() { super::super::report::step(); }\n\
                mod tests { use super::*; }\npub(crate) fn g() {}\n";
    let named = named_paths(code, &module);
    let expect: Vec<Vec<&str>> = vec![
        vec!["explore", "access"],
        vec!["explore", "iset"],
        vec!["explore"],
        vec!["machine"],
        vec!["report"],
        vec!["explore", "por"],
    ];
    assert_eq!(named, expect.iter().map(|p| p.iter().map(|s| s.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>());
    assert_eq!(sim_module_path(Path::new("explore/por/mod.rs")), ["explore", "por"]);
    assert_eq!(sim_module_path(Path::new("lib.rs")), Vec::<String>::new());
}
