//! ccl-sim's settings, defined once: [`SETTINGS`] holds each one's name,
//! how it is written, its help, its default and how it sets [`Options`].
//! Everything else is made from it:
//!
//! - the library's [`Options::default`] applies each default of the table;
//! - `ccl-sim`'s command line (`src/bin/ccl-sim.rs`): its clap arguments, its
//!   usage line ([`usage`]) and `--help`;
//! - the Python binding's keyword arguments (`cclir.simulate(text, ranks,
//!   **settings)`, `python/src/simulate.rs`) and their stub
//!   (`python/cclir/_cclir.pyi`, [`python_stub`]);
//! - the usage in `docs/ccl-sim.md`.
//!
//! `tests/sim_options.rs` compares them. Adding a setting is one entry in
//! [`SETTINGS`] (and, for a new kind of value, a field of [`Options`] it
//! sets); `CCLIR_BLESS=1 cargo test --test sim_options` then rewrites the
//! stub and the docs' usage.

use crate::explore::{Engine, SearchConfig, Shard, Store};
use crate::machine::Limits;
use crate::memory;
use std::sync::Arc;

/// How to search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Search {
    Exhaustive,
    Random { runs: usize, seed: u64 },
}

/// A value for one scalar argument of the entry (`--arg rows=1024`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryArg {
    /// The argument's name as the source spells it (`rows` or `%rows`), or
    /// its position from 0 (`11`).
    pub key: String,
    /// An integer (`1024`, `-1`; `true`/`false` for i1) or a float.
    pub value: String,
}

/// Options of one simulation. [`Options::default`] is what [`SETTINGS`]
/// says when no setting is given.
#[derive(Clone, Debug)]
pub struct Options {
    pub ranks: u16,
    pub entry: Option<String>,
    pub search: Search,
    /// States generated (exhaustive) or steps taken (random) before the
    /// search stops with no conclusion.
    pub max_states: usize,
    /// Local steps, bytes: see [`Limits`].
    pub limits: Limits,
    /// The entry's scalar arguments that are not zero.
    pub args: Vec<EntryArg>,
    /// The text the module was parsed from: argument names come from it.
    pub source: Option<Arc<str>>,
    /// Every ccl op its own scheduling point (for measuring the reduction).
    pub no_reduction: bool,
    /// Run the reference semantics (`crate::reference`) instead of the
    /// machine: every execution, no reduction.
    pub reference: bool,
    /// Print each random schedule's steps as they run.
    pub trace: bool,
    /// How the exhaustive search runs (its `max_states` is the field
    /// above).
    pub search_config: SearchConfig,
    /// `--seed`: the random schedules', and a swarm's order.
    pub seed: u64,
    /// `--swarm`: the exhaustive search takes successors in an order drawn
    /// from the seed and the shard.
    pub swarm: bool,
    /// `--shard K/N`: this part of a random or swarm search.
    pub shard: Shard,
}

/// The cores the search may use (1 where they cannot be counted).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map(usize::from).unwrap_or(1)
}

impl Default for Options {
    fn default() -> Self {
        let mut options = Options {
            // Required by every front end; two ranks is the smallest
            // machine with a peer.
            ranks: 2,
            entry: None,
            search: Search::Exhaustive,
            max_states: 0,
            // Computed: half the machine's memory (`--max-memory`).
            limits: Limits::default(),
            args: Vec::new(),
            source: None,
            no_reduction: false,
            reference: false,
            trace: false,
            seed: 0,
            swarm: false,
            shard: Shard::default(),
            // Computed: every core (`--threads`).
            search_config: SearchConfig { threads: available_threads(), ..SearchConfig::default() },
        };
        for setting in SETTINGS {
            if let DefaultValue::Text(text) = setting.default {
                (setting.apply)(&mut options, text).unwrap_or_else(|_| panic!("the default of {}", setting.name));
            }
        }
        options
    }
}

/// How a setting is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `--name`: on, or off when absent (Python: a bool).
    Flag,
    /// `--name VALUE`, `value` naming it in the usage; the last one given
    /// counts.
    Value { value: &'static str, kind: Kind },
    /// `--name KEY=VALUE`, any number of times (Python: a mapping).
    Pairs { value: &'static str },
}

/// What a value is, for the Python stub.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Text,
}

/// A setting's value when it is not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// Every front end asks for it.
    Required,
    /// Off (a flag) or unset.
    None,
    /// This text, read as if it were given.
    Text(&'static str),
    /// Computed when the options are made, as this says (`every core`).
    Computed(&'static str),
}

/// Why a value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// It does not read: `invalid value 'x' for --name: <reason>`.
    Value(String),
    /// It reads but is out of range: the whole message, `{}` standing for
    /// the setting's name as the front end spells it.
    Range(String),
}

/// One setting of a simulation.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// `--name` on the command line; the Python keyword is
    /// [`Setting::keyword`].
    pub name: &'static str,
    pub syntax: Syntax,
    pub help: &'static str,
    pub default: DefaultValue,
    /// Whether `cclir.simulate` takes it (settings of the run itself); the
    /// others are the command line's (what it prints or writes).
    pub python: bool,
    /// Settings that must not be given with this one.
    pub excludes: &'static [&'static str],
    /// Sets this setting in the options from one value as text (`"true"`
    /// for a flag).
    pub apply: fn(&mut Options, &str) -> Result<(), Invalid>,
}

impl Setting {
    /// The Python keyword: the name with `_` for `-` (`max_states`), and a
    /// plural for pairs (`args`).
    pub fn keyword(&self) -> String {
        let keyword = self.name.replace('-', "_");
        match self.syntax {
            Syntax::Pairs { .. } => format!("{keyword}s"),
            _ => keyword,
        }
    }

    /// The setting as the usage writes it: `--ranks P`, `--stats`.
    pub fn usage(&self) -> String {
        match self.syntax {
            Syntax::Flag => format!("--{}", self.name),
            Syntax::Value { value, .. } | Syntax::Pairs { value } => format!("--{} {value}", self.name),
        }
    }

    /// The help with its default (`... [default: 2000000]`), as `--help`
    /// shows it.
    pub fn help_with_default(&self) -> String {
        match self.default {
            DefaultValue::Text(text) => format!("{} [default: {text}]", self.help),
            DefaultValue::Computed(text) => format!("{} [default: {text}]", self.help),
            DefaultValue::Required | DefaultValue::None => self.help.to_string(),
        }
    }
}

/// Sets `slot` to `value`, as a setting's `apply` does.
fn set<T>(slot: &mut T, value: T) -> Result<(), Invalid> {
    *slot = value;
    Ok(())
}

fn number(text: &str) -> Result<u64, Invalid> {
    text.parse().map_err(|_| Invalid::Value("expected a non-negative integer".to_string()))
}

fn count(text: &str) -> Result<usize, Invalid> {
    number(text).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Every setting, in the order the usage lists them (and they are applied).
pub static SETTINGS: &[Setting] = &[
    Setting {
        name: "ranks",
        syntax: Syntax::Value { value: "P", kind: Kind::Int },
        help: "Ranks to simulate (1 to 64)",
        default: DefaultValue::Required,
        python: true,
        excludes: &[],
        apply: |options, text| match number(text)? {
            ranks @ 1..=64 => set(&mut options.ranks, ranks as u16),
            ranks => Err(Invalid::Range(format!("{{}} must be between 1 and 64, not {ranks}"))),
        },
    },
    Setting {
        name: "entry",
        syntax: Syntax::Value { value: "NAME", kind: Kind::Text },
        help: "The function every rank runs (default: @main, else the one orchestration function nobody calls)",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, text| set(&mut options.entry, Some(text.trim_start_matches('@').to_string())),
    },
    Setting {
        name: "arg",
        syntax: Syntax::Pairs { value: "NAME=VALUE" },
        help: "A scalar argument of the entry, by name (rows, %rows) or position (0, 1, ...); others are 0",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, text| {
            let (key, value) = text.split_once('=').ok_or(Invalid::Value("expected NAME=VALUE".to_string()))?;
            options.args.push(EntryArg { key: key.trim().to_string(), value: value.trim().to_string() });
            Ok(())
        },
    },
    Setting {
        name: "exhaustive",
        syntax: Syntax::Flag,
        help: "Explore every schedule (what runs unless --random is given)",
        default: DefaultValue::None,
        python: true,
        excludes: &["random"],
        apply: |options, _| set(&mut options.search, Search::Exhaustive),
    },
    Setting {
        name: "random",
        syntax: Syntax::Value { value: "N", kind: Kind::Int },
        help: "Run N random schedules instead",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, text| match count(text)? {
            0 => Err(Invalid::Range("{} needs at least one schedule".to_string())),
            runs => {
                let seed = match options.search {
                    Search::Random { seed, .. } => seed,
                    Search::Exhaustive => 0,
                };
                set(&mut options.search, Search::Random { runs, seed })
            }
        },
    },
    Setting {
        name: "seed",
        syntax: Syntax::Value { value: "S", kind: Kind::Int },
        help: "Seed of the random schedules",
        default: DefaultValue::Text("0"),
        python: true,
        excludes: &[],
        apply: |options, text| {
            let value = number(text)?;
            if let Search::Random { seed, .. } = &mut options.search {
                *seed = value;
            }
            set(&mut options.seed, value)
        },
    },
    Setting {
        name: "max-states",
        syntax: Syntax::Value { value: "N", kind: Kind::Int },
        help: "Stop after generating N states (exhaustive) or when one schedule takes N steps (random)",
        default: DefaultValue::Text("2000000"),
        python: true,
        excludes: &[],
        apply: |options, text| set(&mut options.max_states, count(text)?),
    },
    Setting {
        name: "max-steps",
        syntax: Syntax::Value { value: "N", kind: Kind::Int },
        help: "Steps a thread may run without one another thread can observe",
        default: DefaultValue::Text("1000000"),
        python: true,
        excludes: &[],
        apply: |options, text| set(&mut options.limits.max_steps, number(text)?),
    },
    Setting {
        name: "max-memory",
        syntax: Syntax::Value { value: "SIZE", kind: Kind::Int },
        help: "Memory the run may hold, in bytes or with K, M, G",
        default: DefaultValue::Computed("the smaller of half the machine's and half the address-space limit"),
        python: true,
        excludes: &[],
        apply: |options, text| {
            let bytes = memory::parse_size(text)
                .ok_or_else(|| Invalid::Value("expected bytes, or a number with K, M, G or T".to_string()))?;
            set(&mut options.limits.max_memory, bytes)
        },
    },
    Setting {
        name: "threads",
        syntax: Syntax::Value { value: "N", kind: Kind::Int },
        help: "Threads of the search",
        default: DefaultValue::Computed("every core"),
        python: true,
        excludes: &[],
        apply: |options, text| match number(text)? {
            threads @ 1..=1024 => set(&mut options.search_config.threads, threads as usize),
            threads => Err(Invalid::Range(format!("{{}} must be between 1 and 1024, not {threads}"))),
        },
    },
    Setting {
        name: "exact",
        syntax: Syntax::Flag,
        help: "Store visited states whole (no hash compaction)",
        default: DefaultValue::None,
        python: true,
        excludes: &["fingerprint"],
        apply: |options, _| set(&mut options.search_config.store, Store::Exact),
    },
    Setting {
        name: "fingerprint",
        syntax: Syntax::Value { value: "BITS", kind: Kind::Int },
        help: "Store visited states as 64- or 128-bit fingerprints",
        default: DefaultValue::Text("128"),
        python: true,
        excludes: &[],
        apply: |options, text| match number(text)? {
            bits @ (64 | 128) => set(&mut options.search_config.store, Store::Fingerprint { bits: bits as u32 }),
            _ => Err(Invalid::Value("expected 64 or 128".to_string())),
        },
    },
    Setting {
        name: "engine",
        syntax: Syntax::Value { value: "dfs|stateright", kind: Kind::Text },
        help: "dfs (depth-first on every core) or stateright (stateright's breadth-first checker, whole states, \
               shortest schedules)",
        default: DefaultValue::Text("dfs"),
        python: true,
        excludes: &[],
        apply: |options, text| {
            options.search_config.engine = match text {
                "dfs" => Engine::Dfs,
                "stateright" => Engine::Stateright,
                _ => return Err(Invalid::Value("expected dfs or stateright".to_string())),
            };
            Ok(())
        },
    },
    Setting {
        name: "por",
        syntax: Syntax::Value { value: "on|off|dpor", kind: Kind::Text },
        help: "Partial-order reduction of the exhaustive search: on (persistent sets, stored states), off, or dpor \
               (dynamic: stateless, source sets and sleep sets)",
        default: DefaultValue::Text("on"),
        python: true,
        excludes: &[],
        apply: |options, text| {
            match text {
                "on" | "off" => options.search_config.por = text == "on",
                "dpor" if options.search_config.engine == Engine::Stateright => {
                    return Err(Invalid::Range(
                        "{} dpor is an engine of its own: it excludes the stateright engine".to_string(),
                    ))
                }
                "dpor" => options.search_config.engine = Engine::Dpor,
                _ => return Err(Invalid::Value("expected on, off or dpor".to_string())),
            }
            Ok(())
        },
    },
    Setting {
        name: "max-time",
        syntax: Syntax::Value { value: "SECONDS", kind: Kind::Float },
        help: "Seconds the exhaustive search may run before it stops with no conclusion",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, text| match text.parse::<f64>() {
            Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                set(&mut options.search_config.max_seconds, Some(seconds))
            }
            _ => Err(Invalid::Value("expected a non-negative number of seconds".to_string())),
        },
    },
    Setting {
        name: "swarm",
        syntax: Syntax::Flag,
        help: "Explore every schedule in an order of this run's own, drawn from --seed and --shard (a swarm: many \
               such runs, bounded, cover a space too large for one)",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, _| match (&options.search, options.search_config.engine) {
            (Search::Exhaustive, Engine::Dfs) => set(&mut options.swarm, true),
            (Search::Random { .. }, _) => {
                Err(Invalid::Range("{} orders the exhaustive search: it excludes --random".to_string()))
            }
            _ => Err(Invalid::Range(
                "{} orders the depth-first engine's search: it excludes --por dpor and --engine stateright".to_string(),
            )),
        },
    },
    Setting {
        name: "shard",
        syntax: Syntax::Value { value: "K/N", kind: Kind::Text },
        help: "Run part K (from 0) of N of the search: the random schedules numbered K modulo N, or swarm member K",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, text| {
            let shard = Shard::parse(text).map_err(Invalid::Value)?;
            if matches!(options.search, Search::Exhaustive) && !options.swarm {
                return Err(Invalid::Range("{} splits a --random or --swarm search: give one of them".to_string()));
            }
            set(&mut options.shard, shard)
        },
    },
    Setting {
        name: "stats",
        syntax: Syntax::Flag,
        help: "Print what the exhaustive search stored (bytes a state), its depth and time",
        default: DefaultValue::None,
        python: false,
        excludes: &[],
        apply: |_, _| Ok(()),
    },
    Setting {
        name: "trace",
        syntax: Syntax::Flag,
        help: "Print every step of the schedule reported (else its last 40 steps), and of every random schedule as \
               it runs",
        default: DefaultValue::None,
        python: false,
        excludes: &[],
        apply: |options, _| set(&mut options.trace, true),
    },
    Setting {
        name: "no-reduction",
        syntax: Syntax::Flag,
        help: "Make every ccl op a scheduling point (for measuring the local-step reduction)",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, _| set(&mut options.no_reduction, true),
    },
    // After every setting of the machine's search, which it refuses.
    Setting {
        name: "reference",
        syntax: Syntax::Flag,
        help: "Explore every execution under the reference semantics (every op a step, every write in flight \
               landing on its own, no reduction): slow, for small programs and for checking the searches",
        default: DefaultValue::None,
        python: true,
        excludes: &[],
        apply: |options, _| {
            let config = &options.search_config;
            let machine_only = [
                (matches!(options.search, Search::Random { .. }), "--random"),
                (config.engine != Engine::Dfs, "--engine and --por dpor"),
                (!config.por, "--por off"),
                (options.no_reduction, "--no-reduction"),
                (config.store != Store::default(), "--exact and --fingerprint"),
                (config.max_seconds.is_some(), "--max-time"),
                (options.swarm, "--swarm"),
                (options.shard != Shard::default(), "--shard"),
            ];
            match machine_only.iter().find(|(given, _)| *given) {
                Some((_, option)) => Err(Invalid::Range(format!(
                    "{{}} explores every execution with its own search: it excludes {option}"
                ))),
                None => set(&mut options.reference, true),
            }
        },
    },
    Setting {
        name: "sarif",
        syntax: Syntax::Value { value: "FILE", kind: Kind::Text },
        help: "Write the verdict as a SARIF 2.1.0 log too (a race's schedule as one thread flow per thread)",
        default: DefaultValue::None,
        python: false,
        excludes: &[],
        apply: |_, _| Ok(()),
    },
    Setting {
        name: "diagram",
        syntax: Syntax::Value { value: "FILE", kind: Kind::Text },
        help: "Draw the schedule reported as an SVG (lanes per thread, sync edges, writes in flight)",
        default: DefaultValue::None,
        python: false,
        excludes: &[],
        apply: |_, _| Ok(()),
    },
];

/// The setting called `name`.
pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|setting| setting.name == name)
}

impl Options {
    /// The options the given settings make, each with its value as text
    /// (`"true"` for a flag), in the order given. `spell` names a setting
    /// as the front end does (`--max-states`, `max_states`) in the
    /// messages.
    pub fn from_settings(given: &[(&Setting, String)], spell: impl Fn(&Setting) -> String) -> Result<Options, String> {
        let is_given = |name: &str| given.iter().any(|(setting, _)| setting.name == name);
        for (setting, _) in given {
            if let Some(other) = setting.excludes.iter().find(|other| is_given(other)) {
                let other = self::setting(other).expect("an excluded setting exists");
                return Err(format!("{} and {} exclude each other", spell(setting), spell(other)));
            }
        }
        if let Some(missing) = SETTINGS.iter().find(|s| s.default == DefaultValue::Required && !is_given(s.name)) {
            return Err(format!("{} is required", missing.usage()));
        }
        let mut options = Options::default();
        // In table order, so that one setting may read another's value
        // (a seed the random schedules, the engine dpor).
        for setting in SETTINGS {
            for (_, text) in given.iter().filter(|(given, _)| given.name == setting.name) {
                (setting.apply)(&mut options, text).map_err(|invalid| match invalid {
                    Invalid::Value(reason) => format!("invalid value '{text}' for {}: {reason}", spell(setting)),
                    Invalid::Range(message) => message.replace("{}", &spell(setting)),
                })?;
            }
        }
        Ok(options)
    }
}

/// The command line's usage: `tool FILE --ranks P [--entry NAME] ...`,
/// each setting as it is written (settings that exclude each other as one
/// choice), in lines of at most `width` columns, the lines after the first
/// indented by `indent` spaces.
pub fn usage(tool: &str, indent: usize, width: usize) -> Vec<String> {
    let mut items = vec!["FILE".to_string()];
    let excluded: Vec<&str> = SETTINGS.iter().flat_map(|s| s.excludes.iter().copied()).collect();
    for setting in SETTINGS.iter().filter(|s| !excluded.contains(&s.name)) {
        let mut text = setting.usage();
        for other in setting.excludes.iter().filter_map(|name| self::setting(name)) {
            text = format!("{text} | {}", other.usage());
        }
        items.push(match (setting.default, setting.syntax) {
            (DefaultValue::Required, _) => text,
            (_, Syntax::Pairs { .. }) => format!("[{text}]..."),
            _ => format!("[{text}]"),
        });
    }
    let mut lines = vec![tool.to_string()];
    for item in items {
        if lines.last().is_some_and(|line| line.len() + 1 + item.len() > width) {
            lines.push(" ".repeat(indent.saturating_sub(1)));
        }
        let line = lines.last_mut().expect("a line");
        line.push(' ');
        line.push_str(&item);
    }
    lines
}

/// The keywords of `cclir.simulate` after `text` and `ranks`, as the
/// Python stub declares them: `name: type = default`, one a line.
pub fn python_stub() -> Vec<String> {
    SETTINGS
        .iter()
        .filter(|setting| setting.python && setting.default != DefaultValue::Required)
        .map(|setting| {
            let (ty, default) = match (setting.syntax, setting.default) {
                (Syntax::Flag, _) => ("bool".to_string(), "False".to_string()),
                (Syntax::Pairs { .. }, _) => {
                    ("Optional[Mapping[str, Union[int, float, bool, str]]]".to_string(), "None".to_string())
                }
                (Syntax::Value { kind, .. }, default) => {
                    let ty = match kind {
                        Kind::Int => "int",
                        Kind::Float => "float",
                        Kind::Text => "str",
                    };
                    match default {
                        DefaultValue::Text(text) if kind == Kind::Text => (ty.to_string(), format!("\"{text}\"")),
                        DefaultValue::Text(text) => (ty.to_string(), text.to_string()),
                        _ => (format!("Optional[{ty}]"), "None".to_string()),
                    }
                }
            };
            format!("{}: {ty} = {default}", setting.keyword())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(setting: &Setting) -> String {
        format!("--{}", setting.name)
    }

    fn given(pairs: &[(&str, &str)]) -> Vec<(&'static Setting, String)> {
        pairs.iter().map(|(name, text)| (setting(name).expect("a setting"), text.to_string())).collect()
    }

    #[test]
    fn each_default_is_what_the_library_does_without_it() {
        let defaults = format!("{:?}", Options::default());
        for setting in SETTINGS {
            if let DefaultValue::Text(text) = setting.default {
                let mut options = Options::default();
                (setting.apply)(&mut options, text).expect("the default applies");
                assert_eq!(format!("{options:?}"), defaults, "{}", setting.name);
            }
        }
    }

    #[test]
    fn settings_read_check_and_exclude() {
        let options = Options::from_settings(&given(&[("ranks", "3"), ("random", "5"), ("seed", "9")]), cli).unwrap();
        assert!(matches!(options.search, Search::Random { runs: 5, seed: 9 }));
        assert_eq!(options.ranks, 3);
        let error = |pairs: &[(&str, &str)]| Options::from_settings(&given(pairs), cli).unwrap_err();
        assert_eq!(error(&[]), "--ranks P is required");
        assert_eq!(error(&[("ranks", "two")]), "invalid value 'two' for --ranks: expected a non-negative integer");
        assert_eq!(error(&[("ranks", "65")]), "--ranks must be between 1 and 64, not 65");
        assert_eq!(
            error(&[("ranks", "2"), ("random", "1"), ("exhaustive", "true")]),
            "--exhaustive and --random exclude each other"
        );
        assert_eq!(
            error(&[("ranks", "2"), ("por", "dpor"), ("engine", "stateright")]),
            "--por dpor is an engine of its own: it excludes the stateright engine"
        );
    }
}
