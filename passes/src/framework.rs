//! What a ccl pass is, independent of any driver: its description (name,
//! summary, typed options, statistics), the trait it implements, and the
//! diagnostics it reports as values.
//!
//! These types live in the passes crate so that the passes can describe
//! themselves and the `cclir` framework (registry, pipeline parser, driver)
//! can depend on the passes without a dependency cycle.

use melior::ir::{operation::OperationLike, Location, OperationRef};
use std::{
    fmt,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

// ---------------------------------------------------------------------------
// Diagnostics as values
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A source position, as MLIR's `FileLineColLoc` carries it (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceLoc {
    Unknown,
    File { file: String, line: u32, col: u32 },
}

impl SourceLoc {
    /// The first file position inside an MLIR location (through fused, name
    /// and call-site locations), or `Unknown`.
    pub fn from_mlir(location: Location<'_>) -> Self {
        unsafe { source_loc_from_raw(location.to_raw()) }
    }

    pub fn of(op: &OperationRef<'_, '_>) -> Self {
        Self::from_mlir(op.location())
    }
}

unsafe fn source_loc_from_raw(loc: mlir_sys::MlirLocation) -> SourceLoc {
    use mlir_sys::*;
    if loc.ptr.is_null() {
        return SourceLoc::Unknown;
    }
    if mlirLocationIsAFileLineColRange(loc) {
        let name = mlirLocationFileLineColRangeGetFilename(loc);
        let name = mlirIdentifierStr(name);
        let bytes = std::slice::from_raw_parts(name.data as *const u8, name.length);
        return SourceLoc::File {
            file: String::from_utf8_lossy(bytes).into_owned(),
            line: mlirLocationFileLineColRangeGetStartLine(loc).max(0) as u32,
            col: mlirLocationFileLineColRangeGetStartColumn(loc).max(0) as u32,
        };
    }
    if mlirLocationIsAName(loc) {
        return source_loc_from_raw(mlirLocationNameGetChildLoc(loc));
    }
    if mlirLocationIsACallSite(loc) {
        return source_loc_from_raw(mlirLocationCallSiteGetCaller(loc));
    }
    if mlirLocationIsAFused(loc) {
        let count = mlirLocationFusedGetNumLocations(loc);
        let mut locations = vec![MlirLocation { ptr: std::ptr::null() }; count as usize];
        mlirLocationFusedGetLocations(loc, locations.as_mut_ptr());
        for inner in locations {
            let found = source_loc_from_raw(inner);
            if found != SourceLoc::Unknown {
                return found;
            }
        }
    }
    SourceLoc::Unknown
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceLoc::Unknown => f.write_str("<unknown>:0"),
            SourceLoc::File { file, line, col } => write!(f, "{file}:{line}:{col}"),
        }
    }
}

/// One diagnostic with its attached notes, as MLIR's diagnostic engine
/// models it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: SourceLoc,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    pub fn new(severity: Severity, loc: SourceLoc, message: impl Into<String>) -> Self {
        Self { severity, loc, message: message.into(), notes: Vec::new() }
    }

    pub fn error(loc: SourceLoc, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, loc, message)
    }

    pub fn with_note(mut self, loc: SourceLoc, message: impl Into<String>) -> Self {
        self.notes.push(Diagnostic::new(Severity::Note, loc, message));
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: severity: message`, one line per note after it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.loc, self.severity, self.message)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// Where diagnostics of one run go, in the order they were reported. MLIR's
/// own diagnostics (parser, verifier, upstream passes) and the Rust passes'
/// share one sink, so verify-diagnostics sees a single stream.
#[derive(Clone, Default, Debug)]
pub struct DiagnosticSink(Arc<Mutex<Vec<Diagnostic>>>);

impl DiagnosticSink {
    pub fn push(&self, diagnostic: Diagnostic) {
        self.0.lock().unwrap_or_else(|poison| poison.into_inner()).push(diagnostic);
    }

    pub fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|poison| poison.into_inner()))
    }

    pub fn has_errors(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionType {
    Bool,
    /// A signed integer no smaller than `min`.
    Int { min: i64 },
    /// One of the listed words.
    Enum(&'static [&'static str]),
}

impl OptionType {
    /// How `--help` shows the value (`<int>`, `<value>`), as llvm::cl does.
    pub fn value_hint(self) -> &'static str {
        match self {
            OptionType::Bool => "",
            OptionType::Int { .. } => "=<int>",
            OptionType::Enum(_) => "=<value>",
        }
    }

    fn accepted(self) -> String {
        match self {
            OptionType::Bool => "true, false, 1, 0".to_string(),
            OptionType::Int { min } => format!("an integer >= {min}"),
            OptionType::Enum(words) => words.join(", "),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub help: &'static str,
    pub ty: OptionType,
    /// The default, written as a user would write the value.
    pub default: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Word(&'static str),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Word(w) => f.write_str(w),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error("'{pass}' does not have an option named '{option}' (options: {accepted})")]
    Unknown { pass: String, option: String, accepted: String },
    #[error("invalid value '{value}' for option '{option}' of pass '{pass}': expected {expected}")]
    BadValue { pass: String, option: String, value: String, expected: String },
    #[error("option '{option}' of pass '{pass}' is given more than once")]
    Repeated { pass: String, option: String },
    #[error("malformed options for pass '{pass}': {detail}")]
    Malformed { pass: String, detail: String },
}

/// The parsed, typed options of one pass instance; every declared option is
/// present (given or default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOptions {
    values: Vec<(&'static str, OptionValue)>,
}

impl PassOptions {
    /// Parses `key=value key2=value2` (the inside of `{...}`) against the
    /// options `info` declares.
    pub fn parse(info: &PassInfo, text: &str) -> Result<Self, OptionError> {
        let pairs = split_option_pairs(text).map_err(|detail| OptionError::Malformed {
            pass: info.argument.to_string(),
            detail,
        })?;
        Self::from_pairs(info, pairs.iter().map(|(k, v)| (k.as_str(), v.as_deref())))
    }

    pub fn defaults(info: &PassInfo) -> Self {
        Self::from_pairs(info, std::iter::empty()).expect("declared defaults parse")
    }

    pub fn from_pairs<'a>(
        info: &PassInfo,
        pairs: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
    ) -> Result<Self, OptionError> {
        let mut given: Vec<(&'static str, OptionValue)> = Vec::new();
        for (key, value) in pairs {
            let spec = info.options.iter().find(|spec| spec.name == key).ok_or_else(|| {
                OptionError::Unknown {
                    pass: info.argument.to_string(),
                    option: key.to_string(),
                    accepted: if info.options.is_empty() {
                        "none".to_string()
                    } else {
                        info.options.iter().map(|spec| spec.name).collect::<Vec<_>>().join(", ")
                    },
                }
            })?;
            if given.iter().any(|(name, _)| *name == spec.name) {
                return Err(OptionError::Repeated {
                    pass: info.argument.to_string(),
                    option: key.to_string(),
                });
            }
            let value = match (spec.ty, value) {
                (OptionType::Bool, None) => OptionValue::Bool(true),
                (_, None) => {
                    return Err(bad_value(info, spec, ""));
                }
                (_, Some(text)) => parse_value(spec.ty, text).ok_or_else(|| bad_value(info, spec, text))?,
            };
            given.push((spec.name, value));
        }
        let values = info
            .options
            .iter()
            .map(|spec| {
                let value = given
                    .iter()
                    .find(|(name, _)| *name == spec.name)
                    .map(|(_, value)| value.clone())
                    .unwrap_or_else(|| parse_value(spec.ty, spec.default).expect("valid default"));
                (spec.name, value)
            })
            .collect();
        Ok(Self { values })
    }

    pub fn get(&self, name: &str) -> &OptionValue {
        &self.values.iter().find(|(n, _)| *n == name).expect("declared option").1
    }

    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), OptionValue::Bool(true))
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            OptionValue::Int(i) => *i,
            other => panic!("option {name} is not an integer: {other}"),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &OptionValue)> {
        self.values.iter().map(|(n, v)| (*n, v))
    }
}

fn bad_value(info: &PassInfo, spec: &OptionSpec, text: &str) -> OptionError {
    OptionError::BadValue {
        pass: info.argument.to_string(),
        option: spec.name.to_string(),
        value: text.to_string(),
        expected: spec.ty.accepted(),
    }
}

fn parse_value(ty: OptionType, text: &str) -> Option<OptionValue> {
    match ty {
        OptionType::Bool => match text {
            "true" | "1" | "TRUE" | "True" => Some(OptionValue::Bool(true)),
            "false" | "0" | "FALSE" | "False" => Some(OptionValue::Bool(false)),
            _ => None,
        },
        OptionType::Int { min } => text.parse::<i64>().ok().filter(|v| *v >= min).map(OptionValue::Int),
        OptionType::Enum(words) => words.iter().find(|w| **w == text).map(|w| OptionValue::Word(w)),
    }
}

/// Splits `a=1 b="x y" c={p=q} flag` into pairs, as MLIR's pass-option
/// grammar does: whitespace separates pairs; quotes and braces group.
pub fn split_option_pairs(text: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let mut pairs = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let key_start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' {
            i += 1;
        }
        let key: String = chars[key_start..i].iter().collect();
        if key.is_empty() {
            return Err(format!("expected an option name at offset {key_start}"));
        }
        if i < chars.len() && chars[i] == '=' {
            i += 1;
            let value_start = i;
            let mut depth = 0usize;
            let mut quote: Option<char> = None;
            while i < chars.len() {
                let c = chars[i];
                match quote {
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None => match c {
                        '"' | '\'' => quote = Some(c),
                        '{' | '[' | '(' => depth += 1,
                        '}' | ']' | ')' => {
                            depth = depth.checked_sub(1).ok_or_else(|| format!("unbalanced '{c}'"))?
                        }
                        c if c.is_whitespace() && depth == 0 => break,
                        _ => {}
                    },
                }
                i += 1;
            }
            if quote.is_some() || depth != 0 {
                return Err(format!("unterminated value for option '{key}'"));
            }
            let mut value: String = chars[value_start..i].iter().collect();
            if value.len() >= 2 && (value.starts_with('"') && value.ends_with('"')) {
                value = value[1..value.len() - 1].to_string();
            }
            pairs.push((key, Some(value)));
        } else {
            pairs.push((key, None));
        }
    }
    Ok(pairs)
}

// ---------------------------------------------------------------------------
// Statistics (Debian's MLIR compiles pass statistics out, so ours are Rust-side)
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
pub struct StatisticSpec {
    pub name: &'static str,
    pub description: &'static str,
}

/// Counters of one pass instance in a pipeline. Clones share the counters, so
/// the copies MLIR makes to run a function pass on several threads add up.
#[derive(Clone, Debug)]
pub struct Statistics {
    specs: &'static [StatisticSpec],
    values: Arc<[AtomicU64]>,
}

impl Statistics {
    pub fn new(specs: &'static [StatisticSpec]) -> Self {
        Self { specs, values: specs.iter().map(|_| AtomicU64::new(0)).collect() }
    }

    /// Adds `n` to the statistic called `name` (a declared one).
    pub fn add(&self, name: &str, n: u64) {
        if n == 0 {
            return;
        }
        let index = self.specs.iter().position(|s| s.name == name).expect("declared statistic");
        self.values[index].fetch_add(n, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> Vec<(StatisticSpec, u64)> {
        self.specs.iter().zip(self.values.iter()).map(|(s, v)| (*s, v.load(Ordering::Relaxed))).collect()
    }
}

// ---------------------------------------------------------------------------
// Passes
// ---------------------------------------------------------------------------

/// The operation a pass is anchored on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Module,
    Function,
}

impl Anchor {
    pub fn op_name(self) -> &'static str {
        match self {
            Anchor::Module => "builtin.module",
            Anchor::Function => "func.func",
        }
    }
}

/// Marker for a failed pass run; the reason was reported to the sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassFailed;

/// What a pass sees of the driver while it runs.
pub struct PassContext<'s> {
    pub stats: &'s Statistics,
    sink: &'s DiagnosticSink,
    changes: Changes,
}

/// What a run changed, for verify-each: MLIR skips verifying after a pass
/// that preserved everything, and the framework does the same for Rust
/// passes, verifying only the ops a pass says it changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Changes {
    /// The pass said nothing: assume the whole anchor op changed.
    #[default]
    Unknown,
    /// Only these ops (and what they contain) changed; none if empty. Each
    /// is an `MlirOperation` pointer, owned by MLIR, kept as an address.
    Ops(Vec<usize>),
}

impl<'s> PassContext<'s> {
    pub fn new(stats: &'s Statistics, sink: &'s DiagnosticSink) -> Self {
        Self { stats, sink, changes: Changes::Unknown }
    }

    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.sink.push(diagnostic);
    }

    pub fn error(&mut self, loc: SourceLoc, message: impl Into<String>) -> PassFailed {
        self.report(Diagnostic::error(loc, message));
        PassFailed
    }

    /// Declares that this run changed nothing (so nothing needs verifying).
    pub fn preserve_all(&mut self) {
        if self.changes == Changes::Unknown {
            self.changes = Changes::Ops(Vec::new());
        }
    }

    /// Declares that `op` (with everything nested in it) changed. Once a
    /// pass calls this or `preserve_all`, only the ops named here are
    /// verified after it.
    /// Declaring an op twice is allowed (it is verified once).
    pub fn changed(&mut self, op: OperationRef<'_, '_>) {
        let raw = op.to_raw().ptr as usize;
        match &mut self.changes {
            Changes::Unknown => self.changes = Changes::Ops(vec![raw]),
            // Duplicates are dropped once, in `take_changes`: a search here
            // would make declaring n functions cost O(n^2).
            Changes::Ops(ops) => ops.push(raw),
        }
    }

    /// What the run declared it changed, each op once, in declaration order.
    pub fn take_changes(&mut self) -> Changes {
        let mut changes = std::mem::take(&mut self.changes);
        if let Changes::Ops(ops) = &mut changes {
            if ops.len() > 1 {
                let mut seen = std::collections::HashSet::with_capacity(ops.len());
                ops.retain(|op| seen.insert(*op));
            }
        }
        changes
    }
}

/// A ccl pass. MLIR clones a pass for each thread it runs it on; the
/// framework makes those clones with `PassInfo::create` from the same options.
pub trait CclPass: Send {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed>;
}

/// One step of a registered pass: the pipeline builder adds the steps in
/// order, each nested under its anchor. Most passes have one step; a pass
/// whose first part is per-function (and so can run on MLIR's thread pool)
/// has a function step before its module step.
#[derive(Clone, Copy)]
pub struct PassStep {
    /// The name MLIR shows for the step (timing rows, IR dump headers).
    pub name: &'static str,
    pub anchor: Anchor,
    pub create: fn(&PassOptions) -> Box<dyn CclPass>,
}

/// The description of a registered pass.
pub struct PassInfo {
    /// The textual-pipeline name (`ccl-insert-comm-fence`).
    pub argument: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    pub options: &'static [OptionSpec],
    pub statistics: &'static [StatisticSpec],
    pub steps: &'static [PassStep],
}

impl PassInfo {
    /// The anchor a pipeline must give this pass: a module when any step is
    /// module-anchored, else a function.
    pub fn anchor(&self) -> Anchor {
        if self.steps.iter().any(|s| s.anchor == Anchor::Module) {
            Anchor::Module
        } else {
            Anchor::Function
        }
    }
}

impl fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PassInfo").field("argument", &self.argument).finish()
    }
}

/// A named pipeline: a list of registered pass names run in order.
#[derive(Debug)]
pub struct PipelineInfo {
    pub argument: &'static str,
    pub summary: &'static str,
    pub passes: &'static [&'static str],
}
