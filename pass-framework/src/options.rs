//! A pass's options: their types and defaults ([`OptionSpec`]), the values
//! MLIR parsed ([`OptionValues`]), their range check, and
//! [`pass_options!`](crate::pass_options), which declares them as a struct
//! with one typed field each.

/// The type and default of one option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool {
        default: bool,
    },
    /// A signed integer no smaller than `min`.
    Int {
        default: i64,
        min: i64,
    },
    /// One of `choices`, named in pipelines (`placement=minimal`); its
    /// value is the index of the choice. `helps` says what each means.
    Choice {
        default: usize,
        choices: &'static [&'static str],
        helps: &'static [&'static str],
    },
}

/// One option of a pass or named pipeline, as MLIR's `Pass::Option`
/// declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: OptionKind,
}

impl OptionSpec {
    /// `-name : help (type, default)`, the choices on lines of their own.
    pub(crate) fn reference(&self) -> String {
        match self.kind {
            OptionKind::Bool { default } => format!("-{} : {} (default: {default})\n", self.name, self.help),
            OptionKind::Int { default, min } => {
                format!("-{} : {} (an integer, at least {min}; default: {default})\n", self.name, self.help)
            }
            OptionKind::Choice { default, choices, helps } => {
                let mut text = format!("-{} : {} (default: {})\n", self.name, self.help, choices[default]);
                for (choice, help) in choices.iter().zip(helps) {
                    text.push_str(&format!("    {choice} : {help}\n"));
                }
                text
            }
        }
    }

    fn default_value(&self) -> i64 {
        match self.kind {
            OptionKind::Bool { default } => default as i64,
            OptionKind::Int { default, .. } => default,
            OptionKind::Choice { default, .. } => default as i64,
        }
    }
}

/// The index of `name` in `choices`, at compile time (a default that is
/// not one of the choices does not compile).
pub const fn choice_index(choices: &[&str], name: &str) -> usize {
    let mut index = 0;
    while index < choices.len() {
        let (a, b) = (choices[index].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut i = 0;
            while i < a.len() && a[i] == b[i] {
                i += 1;
            }
            if i == a.len() {
                return index;
            }
        }
        index += 1;
    }
    panic!("the default of a choice option must be one of its choices")
}

/// Option values as MLIR parsed them, one per declared option, in
/// declaration order (a bool is 0 or 1).
#[derive(Clone, Copy, Debug)]
pub struct OptionValues<'v>(pub &'v [i64]);

impl OptionValues<'_> {
    /// The defaults of `specs`.
    pub fn defaults(specs: &[OptionSpec]) -> Vec<i64> {
        specs.iter().map(OptionSpec::default_value).collect()
    }

    pub fn int(&self, index: usize) -> i64 {
        self.0[index]
    }

    pub fn bool(&self, index: usize) -> bool {
        self.0[index] != 0
    }

    /// The name of the chosen value of choice option `index` of `specs`.
    pub fn choice(&self, index: usize, specs: &[OptionSpec]) -> &'static str {
        match specs[index].kind {
            OptionKind::Choice { choices, default, .. } => {
                choices.get(self.0[index] as usize).copied().unwrap_or(choices[default])
            }
            _ => panic!("option {} is not a choice", specs[index].name),
        }
    }
}

/// Checks values MLIR parsed against what `specs` accept (MLIR checks the
/// type, this the range), with a message naming the pass and the option.
pub fn check_options(owner: &str, specs: &[OptionSpec], values: OptionValues<'_>) -> Result<(), String> {
    for (index, spec) in specs.iter().enumerate() {
        match spec.kind {
            OptionKind::Int { min, .. } => {
                let value = values.int(index);
                if value < min {
                    return Err(format!(
                        "invalid value {value} for option '{}' of '{owner}': expected an integer >= {min}",
                        spec.name
                    ));
                }
            }
            OptionKind::Choice { choices, .. } => {
                // MLIR's parser accepts only the names; the index is in range.
                let value = values.int(index);
                if usize::try_from(value).map_or(true, |v| v >= choices.len()) {
                    return Err(format!(
                        "invalid value {value} for option '{}' of '{owner}': expected one of {}",
                        spec.name,
                        choices.join(", ")
                    ));
                }
            }
            OptionKind::Bool { .. } => {}
        }
    }
    Ok(())
}

/// A pass's options as a struct with one typed field per option: a typo in
/// a field name fails to compile.
///
/// ```ignore
/// pass_options! {
///     pub struct AdmitOptions {
///         max_blocks: int("max-blocks", "Reject a launch width above N (0: no limit)", default = 0, min = 0),
///         lower_dynamic: bool("lower-dynamic", "Expand dynamic cal ops into arith", default = false),
///         placement: choice("placement", "Where markers go", choices = ["rules" => "...", "minimal" => "..."], default = "rules"),
///     }
/// }
/// ```
#[macro_export]
macro_rules! pass_options {
    (@ty int) => { i64 };
    (@ty bool) => { bool };
    (@ty choice) => { &'static str };
    (@kind int, $default:expr, $min:expr, []) => { $crate::OptionKind::Int { default: $default, min: $min } };
    (@kind bool, $default:expr, $min:expr, []) => { $crate::OptionKind::Bool { default: $default } };
    (@kind choice, $default:expr, $min:expr, [$($choice:literal => $choice_help:literal),*]) => {
        $crate::OptionKind::Choice {
            default: $crate::choice_index(&[$($choice),*], $default),
            choices: &[$($choice),*],
            helps: &[$($choice_help),*],
        }
    };
    (@get int, $values:expr, $index:expr) => { $values.int($index) };
    (@get bool, $values:expr, $index:expr) => { $values.bool($index) };
    (@get choice, $values:expr, $index:expr) => { $values.choice($index, Self::SPECS) };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $field:ident : $kind:ident ( $arg:literal, $help:literal $(, choices = [$($choice:literal => $choice_help:literal),* $(,)?])?, default = $default:expr $(, min = $min:expr)? ) ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis struct $name {
            $( pub $field: $crate::pass_options!(@ty $kind), )*
        }

        impl $name {
            /// The options, in declaration order.
            pub const SPECS: &'static [$crate::OptionSpec] = &[
                $( $crate::OptionSpec {
                    name: $arg,
                    help: $help,
                    kind: $crate::pass_options!(@kind $kind, $default, 0 $(+ $min)?, [$($($choice => $choice_help),*)?]),
                }, )*
            ];

            /// The typed values of MLIR's parse.
            #[allow(unused_assignments, unused_variables, unused_mut)]
            pub fn from_values(values: $crate::OptionValues<'_>) -> Self {
                let mut index = 0usize;
                $(
                    let $field = $crate::pass_options!(@get $kind, values, index);
                    index += 1;
                )*
                Self { $( $field, )* }
            }
        }
    };
}
