//! SARIF 2.1.0 logs (the OASIS Static Analysis Results Interchange Format
//! that code-scanning services and editors read), for `ccl-opt --sarif` and
//! `ccl-sim --sarif`: the part of the format these tools write, as
//! serializable types, the conversion of a diagnostic (its notes become
//! related locations). The tools write a log with their atomic `-o` write
//! (`cclir::output::write_whole`).
//!
//! `tests/sarif.rs` validates what both tools write against the schema
//! (`tests/data/sarif-schema-2.1.0.json`).

use crate::diagnostics::{Diagnostic, Severity, SourceLoc};
use serde::Serialize;
use std::collections::BTreeMap;

/// The schema a log names.
pub const SCHEMA: &str = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// Where relative file paths are resolved from: the directory the tool ran
/// in (`originalUriBaseIds`).
pub const SOURCE_ROOT: &str = "SRCROOT";

#[derive(Clone, Debug, Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub tool: Tool,
    pub invocations: Vec<Invocation>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub original_uri_base_ids: BTreeMap<String, ArtifactLocation>,
    pub results: Vec<SarifResult>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Tool {
    pub driver: Driver,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    pub name: String,
    pub version: String,
    pub rules: Vec<Rule>,
}

/// A kind of result (SARIF's `reportingDescriptor`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: String,
    pub short_description: Message,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    pub execution_successful: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_execution_notifications: Vec<Notification>,
}

/// A problem of the run rather than of the program (a bound reached).
#[derive(Clone, Debug, Serialize)]
pub struct Notification {
    pub level: &'static str,
    pub message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Message {
    pub text: String,
}

impl Message {
    pub fn new(text: impl Into<String>) -> Message {
        Message { text: text.into() }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
    pub level: &'static str,
    pub message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub code_flows: Vec<CodeFlow>,
}

#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physical_location: Option<PhysicalLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    pub region: Region,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<String>,
}

/// A source position: MLIR's line and column, both 1-based.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: u32,
    pub start_column: u32,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeFlow {
    pub message: Message,
    pub thread_flows: Vec<ThreadFlow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ThreadFlow {
    pub id: String,
    pub message: Message,
    pub locations: Vec<ThreadFlowLocation>,
    /// What the id says, as values (`rank`, `block`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, serde_json::Value>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadFlowLocation {
    pub location: Location,
    /// The position in the whole schedule (shared by the thread flows).
    pub execution_order: i64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<&'static str>,
}

/// `path` as a URI reference: an absolute path as a `file:` URI, a relative
/// one percent-encoded (resolved from [`SOURCE_ROOT`]).
fn artifact(path: &str) -> ArtifactLocation {
    let encoded = percent_encode(path);
    if path.starts_with('/') {
        ArtifactLocation { uri: format!("file://{encoded}"), uri_base_id: None }
    } else {
        ArtifactLocation { uri: encoded, uri_base_id: Some(SOURCE_ROOT.to_string()) }
    }
}

/// Every byte outside RFC 3986's unreserved set and `/` as `%XX`.
fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A location at `loc` (none for an unknown one), with a message.
pub fn location(loc: &SourceLoc, message: Option<String>) -> Location {
    let physical_location = match loc {
        SourceLoc::File { file, line, col } => Some(PhysicalLocation {
            artifact_location: artifact(file),
            // SARIF's lines and columns start at 1; MLIR's 0 is "unknown".
            region: Region { start_line: (*line).max(1), start_column: (*col).max(1) },
        }),
        SourceLoc::Unknown => None,
    };
    Location { id: None, physical_location, message: message.map(Message::new) }
}

/// SARIF's level for a severity.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note | Severity::Remark => "note",
    }
}

/// A diagnostic as a result: its location (the first located note's when
/// it has none), its located notes as related locations (numbered from 1),
/// the others' text appended to its message.
pub fn result(diagnostic: &Diagnostic, rule_id: Option<&str>) -> SarifResult {
    let mut text = diagnostic.message.clone();
    let mut related_locations = Vec::new();
    for note in &diagnostic.notes {
        match &note.loc {
            SourceLoc::File { .. } => {
                let mut related = location(&note.loc, Some(note.message.clone()));
                related.id = Some(related_locations.len() as u64 + 1);
                related_locations.push(related);
            }
            SourceLoc::Unknown => text.push_str(&format!("\n{}: {}", note.severity, note.message)),
        }
    }
    let primary = match &diagnostic.loc {
        SourceLoc::File { .. } => Some(&diagnostic.loc),
        SourceLoc::Unknown => diagnostic.notes.iter().map(|n| &n.loc).find(|l| matches!(l, SourceLoc::File { .. })),
    };
    SarifResult {
        rule_id: rule_id.map(str::to_string),
        level: level(diagnostic.severity),
        message: Message::new(text),
        locations: primary.map(|loc| location(loc, None)).into_iter().collect(),
        related_locations,
        code_flows: Vec::new(),
    }
}

impl Log {
    /// A log of one run of `tool` (this crate's version), with its rules,
    /// results and how the run ended.
    pub fn new(tool: &str, rules: Vec<Rule>, results: Vec<SarifResult>, invocation: Invocation) -> Log {
        let mut original_uri_base_ids = BTreeMap::new();
        if let Ok(dir) = std::env::current_dir() {
            let mut uri = format!("file://{}", percent_encode(&dir.to_string_lossy()));
            if !uri.ends_with('/') {
                uri.push('/');
            }
            original_uri_base_ids.insert(SOURCE_ROOT.to_string(), ArtifactLocation { uri, uri_base_id: None });
        }
        Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs: vec![Run {
                tool: Tool {
                    driver: Driver { name: tool.to_string(), version: env!("CARGO_PKG_VERSION").to_string(), rules },
                },
                invocations: vec![invocation],
                original_uri_base_ids,
                results,
            }],
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a SARIF log serializes") + "\n"
    }
}

/// A rule with its one-line description.
pub fn rule(id: &str, description: &str) -> Rule {
    Rule { id: id.to_string(), short_description: Message::new(description) }
}
