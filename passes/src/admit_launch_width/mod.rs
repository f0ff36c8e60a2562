//! `ccl-admit-launch-width`: admission of the `ccl.all_to_all_v` launch
//! width (docs/semantics.md). A module pass: it needs every function's kind (rule
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

pub mod lanes;

/// The formula lives in `cclir-support`, where the simulator reaches it
/// without MLIR.
pub use cclir_support::formula;

mod fold;

mod lower;
mod merge;
mod stamp;

#[cfg(test)]
mod tests;

use crate::{
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report},
    ir::{is_in_core, symbol_name, walk_nested, Walk},
    pass_options, pass_statistics,
};
use cclir_dialect::{
    names::{self, Interned, Name},
    ods::{AllToAllV, CalAllToAllVBlocks, OpKind},
};
use melior::ir::{operation::OperationLike, Location, OperationRef};

pub const ARGUMENT: &str = "ccl-admit-launch-width";

pass_options! {
    /// The pass's options.
    pub struct AdmitOptions {
        max_blocks: int("max-blocks", "Reject an admitted launch width above N (0, the default, means no limit)", default = 0, min = 0),
        lower_dynamic: bool("lower-dynamic", "Expand each non-constant ccl.cal_all_to_all_v_blocks into the arith ops computing the same B", default = false),
    }
}

pass_statistics! {
    /// What one run did.
    pub struct AdmitStatistics {
        folded: "ops-folded", "cal ops folded into a constant",
        merged: "ops-merged", "duplicate cal ops merged into the first",
        lowered: "ops-lowered", "cal ops lowered to arith",
        stamped: "launches-stamped", "launches stamped with launch_width",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: ARGUMENT,
    name: "CclAdmitLaunchWidth",
    summary: "Admit the all_to_all_v launch width B = CalAllToAllVBlocks(P, L) once, at the orchestration entry",
    description: "Decides, once and at compile time where it can, how many blocks a\n\
        `ccl.all_to_all_v` launches, and rejects widths the runtime could not use.\n\
        An op-agnostic pass (`passes/src/admit_launch_width/`): every rule looks\n\
        at one function at a time, so it runs on a module (all its functions, and\n\
        any cal op outside a function) or on each function alone.",
    // Every rule looks at one function at a time, so the pass runs on a
    // module (every function in it) or on each function alone:
    // `ccl-pipeline` nests it under `func.func`, where MLIR runs it per
    // function in parallel and re-verifies only the functions it changed.
    anchor: Anchor::Any,
    dependent_dialects: &["arith", "ccl"],
    options: AdmitOptions::SPECS,
    statistics: AdmitStatistics::SPECS,
    create,
};

fn create(values: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    let options = AdmitOptions::from_values(values);
    Box::new(AdmitLaunchWidth {
        max_blocks: (options.max_blocks > 0).then_some(options.max_blocks as i128),
        lower_dynamic: options.lower_dynamic,
        stats: AdmitStatistics::bind(counters),
        names: None,
    })
}

struct AdmitLaunchWidth {
    /// `max-blocks`, when it sets a limit.
    max_blocks: Option<i128>,
    lower_dynamic: bool,
    stats: AdmitStatistics,
    names: Option<Interned>,
}

/// One `ccl.cal_all_to_all_v_blocks`, and the function holding it (`None`
/// outside any function).
#[derive(Clone, Copy)]
struct CalSite<'c, 'a> {
    cal: CalAllToAllVBlocks<'c, 'a>,
    function: Option<OperationRef<'c, 'a>>,
}

/// What the scan found, in pre-order.
#[derive(Default)]
struct Scan<'c, 'a> {
    cals: Vec<CalSite<'c, 'a>>,
    launches: Vec<AllToAllV<'c, 'a>>,
}

impl<'c, 'a> Scan<'c, 'a> {
    /// One pre-order walk of the module; only the two op kinds are kept.
    fn of(root: OperationRef<'c, 'a>, names: &Interned) -> Self {
        let mut scan = Scan::default();
        let function = (Name::of(root) == names.func).then_some(root);
        scan.walk(root, function, names);
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
            match names.kind(name) {
                Some(OpKind::CalAllToAllVBlocks) => {
                    if let Some(cal) = CalAllToAllVBlocks::of_kind(op) {
                        self.cals.push(CalSite { cal, function });
                    }
                }
                Some(OpKind::AllToAllV) => self.launches.extend(AllToAllV::of_kind(op)),
                _ => {}
            }
            Walk::Advance
        });
    }
}

/// The rule-5 error for a cal op in InCore function `function`.
fn in_core_error(function: OperationRef<'_, '_>) -> String {
    let name = symbol_name(function).unwrap_or_default();
    let kind = crate::ir::discardable_string_attr(function, names::ATTR_KIND).unwrap_or("opaque");
    format!(
        "'{}' in InCore function {} (ccl.kind = \"{kind}\"): the launch width is computed once at the \
         orchestration entry and passed in, never recomputed by a kernel",
        CalAllToAllVBlocks::NAME,
        cclir_dialect::names::symbol_ref(name),
    )
}

/// The errors of one run, each at its op, with the op's position in the
/// source (they are reported in source order, whichever rule found them).
#[derive(Default)]
struct Errors<'c>(Vec<(cclir_dialect::SourceLoc, Location<'c>, String)>);

impl<'c> Errors<'c> {
    fn at(&mut self, op: &OperationRef<'c, '_>, message: impl Into<String>) {
        self.0.push((crate::ir::source_loc_of(op.location()), op.location(), message.into()));
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl CclPass for AdmitLaunchWidth {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let stats = &self.stats;
        let names = Interned::cached(&mut self.names, module);
        let scan = Scan::of(module, names);
        let mut errors = Errors::default();

        // Rule 5: a kernel never recomputes B. Such ops are only checked
        // further (rule 2), never rewritten.
        let mut sites = Vec::new();
        for site in scan.cals {
            match site.function {
                Some(function) if is_in_core(function) => {
                    errors.at(&site.cal.operation(), in_core_error(function));
                    fold::check_constant_operands(names, site.cal, &mut errors);
                }
                _ => sites.push(site),
            }
        }

        // Rules 1, 2, 4.
        let folded = fold::fold(names, &mut sites, self.max_blocks, &mut errors, cx.eraser());
        stats.folded.add(folded.count);

        // Rule 6.
        let merged = merge::merge(&mut sites, cx.eraser());
        stats.merged.add(merged);

        // Rules 3, 4.
        let stamped = stamp::stamp(names, &scan.launches, &folded.constants, self.max_blocks, &mut errors);
        stats.stamped.add(stamped);

        if !errors.is_empty() {
            let mut diagnostics = errors.0;
            diagnostics.sort_by(|a, b| a.0.cmp(&b.0));
            for (_, location, message) in diagnostics {
                cx.report(Report::error(location, message));
            }
            return Err(PassFailed);
        }

        // Rule 7.
        let lowered = if self.lower_dynamic { lower::lower(&sites, cx.eraser()) } else { 0 };
        stats.lowered.add(lowered);
        if folded.count + merged + stamped + lowered == 0 {
            // Nothing rewritten: MLIR skips verify-each after the pass.
            cx.preserve_all();
        }
        Ok(())
    }
}
