//! Rules of the source that reading it can check, over every Rust file of
//! the repository (not `target/`, where the generated code is):
//!
//! - every `unsafe fn` has a `# Safety` section, and every `unsafe` block
//!   and `unsafe impl` a `SAFETY:` comment before it;
//! - every library and binary of the workspace forbids `unsafe_code`, but
//!   for the two that need FFI (`cclir-dialect`, whose `ffi` module holds
//!   its unsafe code, and `cclir-process`), which deny undocumented unsafe
//!   code instead;
//! - no file has more than 1,000 lines and no function more than 150,
//!   but for the simulator's functions [`LONG_FUNCTIONS`] names.
//!
//! The files are read with comments and literals told apart from code (a
//! brace or `unsafe` in a string is not code).

use std::path::{Path, PathBuf};

/// Functions over the limit, by file and name: the simulator's search and
/// machine, which are being rewritten to be one-way (issue 37); remove an
/// entry when its function is split.
const LONG_FUNCTIONS: &[(&str, &str)] = &[
    ("sim/src/explore/por/mod.rs", "closure"),
    ("sim/src/explore/por/future.rs", "transfer"),
    ("sim/src/machine/ccl.rs", "ccl_op"),
    ("sim/src/machine/step.rs", "execute"),
];

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
    let mut allowed_seen = Vec::new();
    for source in sources() {
        if source.lines.len() > MAX_FILE_LINES {
            long.push(format!("{}: {} lines", source.path, source.lines.len()));
        }
        for (i, code) in source.code.iter().enumerate() {
            let Some(name) = declared_function(code) else { continue };
            let Some(lines) = function_lines(&source.code[i..]) else { continue };
            if lines <= MAX_FUNCTION_LINES {
                continue;
            }
            if LONG_FUNCTIONS.contains(&(source.path.as_str(), name.as_str())) {
                allowed_seen.push((source.path.clone(), name));
            } else {
                long.push(format!("{}:{}: fn {name}: {lines} lines", source.path, i + 1));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over the limits ({MAX_FILE_LINES} lines a file, {MAX_FUNCTION_LINES} a function):\n{}",
        long.join("\n")
    );
    for (path, name) in LONG_FUNCTIONS {
        assert!(
            allowed_seen.iter().any(|(p, n)| p == path && n == name),
            "{path}: fn {name} is no longer over the limit: take it out of LONG_FUNCTIONS"
        );
    }
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
