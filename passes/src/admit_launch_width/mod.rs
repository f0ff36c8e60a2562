//! `ccl-admit-launch-width`: admission of the `ccl.all_to_all_v` launch
//! width (SEMANTICS.md). A module pass: it needs every function's kind (rule
//! 5) and merges per function (rule 6).
//!
//! One run, in order, on the ops as found:
//! 1. scan: every `ccl.cal_all_to_all_v_blocks` with its function, and every
//!    `ccl.all_to_all_v`;
//! 2. reject cal ops in InCore functions (rule 5);
//! 3. fold both-constant cal ops, checking positivity and `max-blocks`
//!    (rules 1, 2, 4) — `fold.rs`;
//! 4. merge duplicate cal ops of a function (rule 6) — `merge.rs`;
//! 5. stamp launches with a constant width (rules 3, 4) — `stamp.rs`;
//! 6. with `lower-dynamic=true`, expand what is left (rule 7) — `lower.rs`.
//!
//! Every error of the run is reported (in source order), then the pass fails.
//! A second run on the output changes nothing.

pub mod formula;
pub mod lanes;

mod fold;
mod ir;
mod lower;
mod merge;
mod stamp;

#[cfg(test)]
mod tests;

use crate::{
    framework::{
        Anchor, CclPass, Diagnostic, OptionSpec, OptionType, PassContext, PassFailed, PassInfo, PassOptions, PassStep,
        SourceLoc, StatisticSpec,
    },
    ir::{is_in_core, symbol_name, walk_nested, Walk},
    names::{self, Interned, Name},
};
use melior::ir::{operation::OperationLike, OperationRef};

pub const ARGUMENT: &str = "ccl-admit-launch-width";

pub const OPT_MAX_BLOCKS: &str = "max-blocks";
pub const OPT_LOWER_DYNAMIC: &str = "lower-dynamic";

static OPTIONS: [OptionSpec; 2] = [
    OptionSpec {
        name: OPT_MAX_BLOCKS,
        help: "Reject an admitted launch width above N (0, the default, means no limit)",
        ty: OptionType::Int { min: 0 },
        default: "0",
    },
    OptionSpec {
        name: OPT_LOWER_DYNAMIC,
        help: "Expand each non-constant ccl.cal_all_to_all_v_blocks into the arith ops computing the same B",
        ty: OptionType::Bool,
        default: "false",
    },
];

pub const STAT_FOLDED: &str = "ops-folded";
pub const STAT_MERGED: &str = "ops-merged";
pub const STAT_LOWERED: &str = "ops-lowered";
pub const STAT_STAMPED: &str = "launches-stamped";

static STATISTICS: [StatisticSpec; 4] = [
    StatisticSpec { name: STAT_FOLDED, description: "cal ops folded into a constant" },
    StatisticSpec { name: STAT_MERGED, description: "duplicate cal ops merged into the first" },
    StatisticSpec { name: STAT_LOWERED, description: "cal ops lowered to arith" },
    StatisticSpec { name: STAT_STAMPED, description: "launches stamped with launch_width" },
];

static STEPS: [PassStep; 1] = [PassStep { name: "CclAdmitLaunchWidth", anchor: Anchor::Module, create }];

pub static INFO: PassInfo = PassInfo {
    argument: ARGUMENT,
    summary: "Admit the all_to_all_v launch width B = CalAllToAllVBlocks(P, L) once, at the orchestration entry",
    description: "Folds constant ccl.cal_all_to_all_v_blocks ops into arith.constant (rejecting P <= 0 and L <= 0), \
                  stamps launch_width on every ccl.all_to_all_v with a constant width (checking signal_stride and \
                  max-blocks), rejects the computation inside InCore kernels, merges duplicate computations in a \
                  function, and with lower-dynamic=true expands the rest into arith ops.",
    options: &OPTIONS,
    statistics: &STATISTICS,
    steps: &STEPS,
};

fn create(options: &PassOptions) -> Box<dyn CclPass> {
    let max_blocks = options.int(OPT_MAX_BLOCKS);
    Box::new(AdmitLaunchWidth {
        max_blocks: (max_blocks > 0).then_some(max_blocks as i128),
        lower_dynamic: options.bool(OPT_LOWER_DYNAMIC),
        names: None,
    })
}

struct AdmitLaunchWidth {
    /// `max-blocks`, when it sets a limit.
    max_blocks: Option<i128>,
    lower_dynamic: bool,
    names: Option<Interned>,
}

/// One `ccl.cal_all_to_all_v_blocks`, and the function holding it (`None`
/// outside any function).
#[derive(Clone, Copy)]
struct CalSite<'c, 'a> {
    op: OperationRef<'c, 'a>,
    function: Option<OperationRef<'c, 'a>>,
    /// What verify-each must check when this op is rewritten.
    scope: OperationRef<'c, 'a>,
}

/// One `ccl.all_to_all_v`, with the scope its stamp changes.
#[derive(Clone, Copy)]
struct Launch<'c, 'a> {
    op: OperationRef<'c, 'a>,
    scope: OperationRef<'c, 'a>,
}

/// What the scan found, in pre-order.
#[derive(Default)]
struct Scan<'c, 'a> {
    cals: Vec<CalSite<'c, 'a>>,
    launches: Vec<Launch<'c, 'a>>,
}

impl<'c, 'a> Scan<'c, 'a> {
    /// One pre-order walk of the module; only the two op kinds are kept.
    fn of(module: OperationRef<'c, 'a>, names: &Interned) -> Self {
        let mut scan = Scan::default();
        scan.walk(module, None, names);
        scan
    }

    /// Walks `root`'s regions, whose ops belong to `function`. A nested
    /// function is walked on its own, right where the walk meets it (so the
    /// order stays pre-order) and with itself as the function: an op's
    /// function is the nearest one around it, found without looking up its
    /// ancestors.
    fn walk(&mut self, root: OperationRef<'c, 'a>, function: Option<OperationRef<'c, 'a>>, names: &Interned) {
        walk_nested(root, |op| {
            let name = Name::of(op);
            if name == names.func {
                self.walk(op, Some(op), names);
                return Walk::Skip;
            }
            if name == names.cal_all_to_all_v_blocks {
                self.cals.push(CalSite { op, function, scope: scope_of(op, function) });
            } else if name == names.all_to_all_v {
                self.launches.push(Launch { op, scope: scope_of(op, function) });
            }
            Walk::Advance
        });
    }
}

/// What verify-each checks after `op` is rewritten: its function, or
/// outside any function the op holding it.
fn scope_of<'c, 'a>(op: OperationRef<'c, 'a>, function: Option<OperationRef<'c, 'a>>) -> OperationRef<'c, 'a> {
    function.or_else(|| op.parent_operation()).unwrap_or(op)
}

/// The rule-5 error for a cal op in InCore function `function`.
fn in_core_error(function: OperationRef<'_, '_>) -> String {
    let name = symbol_name(function).unwrap_or_default();
    let kind = crate::ir::discardable_string_attr(function, names::ATTR_KIND).unwrap_or("opaque");
    format!(
        "'{}' in InCore function @{name} (ccl.kind = \"{kind}\"): the launch width is computed once at the \
         orchestration entry and passed in, never recomputed by a kernel",
        names::CAL_ALL_TO_ALL_V_BLOCKS,
    )
}

/// The errors of one run, each at its op.
#[derive(Default)]
struct Errors(Vec<Diagnostic>);

impl Errors {
    fn at(&mut self, op: &OperationRef<'_, '_>, message: impl Into<String>) {
        self.0.push(Diagnostic::error(SourceLoc::of(op), message));
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl CclPass for AdmitLaunchWidth {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = Interned::cached(&mut self.names, module);
        let scan = Scan::of(module, names);
        let mut errors = Errors::default();

        // Rule 5: a kernel never recomputes B. Such ops are only checked
        // further (rule 2), never rewritten.
        let mut sites = Vec::new();
        for site in scan.cals {
            match site.function {
                Some(function) if is_in_core(function) => {
                    errors.at(&site.op, in_core_error(function));
                    fold::check_constant_operands(names, site.op, &mut errors);
                }
                _ => sites.push(site),
            }
        }

        // The scopes (functions) each step rewrote, for verify-each.
        let mut changed = Vec::new();

        // Rules 1, 2, 4.
        let folded = fold::fold(names, &mut sites, self.max_blocks, &mut errors, &mut changed);
        cx.stats.add(STAT_FOLDED, folded.count);

        // Rule 6.
        let merged = merge::merge(&mut sites, &mut changed);
        cx.stats.add(STAT_MERGED, merged);

        // Rules 3, 4.
        let stamped = stamp::stamp(names, &scan.launches, &folded.constants, self.max_blocks, &mut errors, &mut changed);
        cx.stats.add(STAT_STAMPED, stamped);

        if !errors.is_empty() {
            let mut diagnostics = errors.0;
            diagnostics.sort_by(|a, b| a.loc.cmp(&b.loc));
            for diagnostic in diagnostics {
                cx.report(diagnostic);
            }
            return Err(PassFailed);
        }

        // Rule 7.
        if self.lower_dynamic {
            let lowered = lower::lower(&sites, &mut changed);
            cx.stats.add(STAT_LOWERED, lowered);
        }
        cx.preserve_all();
        changed.into_iter().for_each(|scope| cx.changed(scope));
        Ok(())
    }
}
