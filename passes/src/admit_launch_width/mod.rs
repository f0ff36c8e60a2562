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
    names::{self, FunctionKind},
};
use melior::ir::{attribute::StringAttribute, operation::OperationLike, OperationRef};

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
    })
}

struct AdmitLaunchWidth {
    /// `max-blocks`, when it sets a limit.
    max_blocks: Option<i128>,
    lower_dynamic: bool,
}

/// A function as this pass sees it.
struct Function {
    name: String,
    kind: String,
    in_core: bool,
}

/// One `ccl.cal_all_to_all_v_blocks`, and the function holding it (`None`
/// outside any function).
#[derive(Clone, Copy)]
struct CalSite<'c, 'a> {
    op: OperationRef<'c, 'a>,
    function: Option<usize>,
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
struct Scan<'c, 'a> {
    functions: Vec<Function>,
    cals: Vec<CalSite<'c, 'a>>,
    launches: Vec<Launch<'c, 'a>>,
}

impl<'c, 'a> Scan<'c, 'a> {
    fn of(module: OperationRef<'c, 'a>) -> Self {
        let mut ops = Vec::new();
        ir::preorder(module, &mut ops);
        let mut scan = Scan { functions: Vec::new(), cals: Vec::new(), launches: Vec::new() };
        // Pre-order meets a function right before its body, and a function
        // holds no function, so an op belongs to the function met last if
        // that one is among its ancestors (else it is outside any function).
        let mut current: Option<(OperationRef<'c, 'a>, usize)> = None;
        for op in ops {
            let name = ir::op_name(&op);
            if name == names::FUNC {
                scan.functions.push(function_of(op));
                current = Some((op, scan.functions.len() - 1));
                continue;
            }
            if name != names::CAL_ALL_TO_ALL_V_BLOCKS && name != names::ALL_TO_ALL_V {
                continue;
            }
            let enclosing = current.filter(|(func, _)| is_inside(op, *func));
            let function = enclosing.map(|(_, index)| index);
            let scope = scope_of(op, enclosing.map(|(func, _)| func));
            if name == names::CAL_ALL_TO_ALL_V_BLOCKS {
                scan.cals.push(CalSite { op, function, scope });
            } else {
                scan.launches.push(Launch { op, scope });
            }
        }
        scan
    }
}

fn function_of(func: OperationRef<'_, '_>) -> Function {
    let name = func
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .unwrap_or_default();
    let kind = func
        .attribute(names::ATTR_KIND)
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string());
    let in_core = kind.as_deref().and_then(FunctionKind::from_kind) == Some(FunctionKind::InCore);
    Function { name, kind: kind.unwrap_or_else(|| "opaque".to_string()), in_core }
}

/// What verify-each checks after `op` is rewritten: its function, or
/// outside any function the op holding it.
fn scope_of<'c, 'a>(op: OperationRef<'c, 'a>, function: Option<OperationRef<'c, 'a>>) -> OperationRef<'c, 'a> {
    function.or_else(|| op.parent_operation()).unwrap_or(op)
}

fn is_inside<'c, 'a>(op: OperationRef<'c, 'a>, ancestor: OperationRef<'c, 'a>) -> bool {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent == ancestor {
            return true;
        }
        current = parent.parent_operation();
    }
    false
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
        let scan = Scan::of(module);
        let mut errors = Errors::default();

        // Rule 5: a kernel never recomputes B. Such ops are only checked
        // further (rule 2), never rewritten.
        let mut sites = Vec::new();
        for site in scan.cals {
            match site.function.map(|index| &scan.functions[index]) {
                Some(function) if function.in_core => {
                    errors.at(
                        &site.op,
                        format!(
                            "'{}' in InCore function @{} (ccl.kind = \"{}\"): the launch width is computed once at \
                             the orchestration entry and passed in, never recomputed by a kernel",
                            names::CAL_ALL_TO_ALL_V_BLOCKS,
                            function.name,
                            function.kind
                        ),
                    );
                    fold::check_constant_operands(site.op, &mut errors);
                }
                _ => sites.push(site),
            }
        }

        // The scopes (functions) each step rewrote, for verify-each.
        let mut changed = Vec::new();

        // Rules 1, 2, 4.
        let folded = fold::fold(&mut sites, self.max_blocks, &mut errors, &mut changed);
        cx.stats.add(STAT_FOLDED, folded.count);

        // Rule 6.
        let merged = merge::merge(&mut sites, &mut changed);
        cx.stats.add(STAT_MERGED, merged);

        // Rules 3, 4.
        let stamped = stamp::stamp(&scan.launches, &folded.constants, self.max_blocks, &mut errors, &mut changed);
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
