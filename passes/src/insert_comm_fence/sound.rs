//! What `placement=minimal` needs beyond the rules, found before the
//! markers are placed (docs/passes/sink-comm-markers.md, "Beyond the
//! rules"): the checker's rules for plain-buffer writes other blocks read
//! and for launches the rules' Phase B does not see, asked of the program
//! as the rules will leave it. `ccl-find-post-collective-kernels
//! {sound-placement=true}` caches the answer for `ccl-sink-comm-markers`.

use crate::comm_order::{
    buffers::{Buffers, Markers, SoundPlacement},
    model::{self, Module},
};
use crate::verify_comm_order::{kernel, launches_beyond_phase_b};
use cclir_dialect::names::{FunctionKind, Interned};
use melior::ir::OperationRef;
use rustc_hash::FxHashSet;

/// Adds to `out` what program `program` (lowered as `module`, without
/// kernel bodies; `marked` the kernels Phase B gives the prologue) needs.
pub fn plan(program: OperationRef<'_, '_>, module: &Module, marked: &[usize], out: &mut SoundPlacement) {
    let names = Interned::new(crate::ir::context_of(program));
    let functions = model::function_ops(program, &names);
    let kinds = module.functions.iter().map(|f| f.kind).collect();
    let mut buffers = Buffers::of(&names, functions.clone(), kinds, Markers::ByTheRules);
    let published = buffers.published_plain_stores(&names);
    // The minimal placement writes each of them back before a return.
    buffers.assume_written_back(&names, &published.keys().copied().collect());
    for (store, reader) in published {
        out.published.insert(store, reader.concurrent);
    }
    let marked: FxHashSet<usize> = marked.iter().copied().collect();
    let reports: Vec<Option<kernel::KernelReport>> = module
        .functions
        .iter()
        .enumerate()
        .map(|(f, function)| {
            if function.kind != FunctionKind::InCore {
                return None;
            }
            out.aliases.insert(function.op, buffers.aliases(f));
            // A kernel the rules give the prologue reads nothing before an
            // invalidate.
            if marked.contains(&f) {
                return Some(kernel::KernelReport::default());
            }
            let lowered = model::lower_body(module, f, functions[f], &names);
            Some(kernel::check(&kernel::after_the_rules(&lowered)))
        })
        .collect();
    quiet_calls(module, &names, &functions, &buffers, out);
    let (sound, stale) = launches_beyond_phase_b(module, &names, &buffers, &reports);
    for v in sound.iter().chain(stale.iter().map(|(v, _)| v)) {
        out.prologues.insert(module.functions[v.kernel].op);
    }
}

/// Adds to `out` the kernels another kernel calls (with a body) and the
/// calls of them.
fn quiet_calls(
    module: &Module,
    names: &Interned,
    functions: &[OperationRef<'_, '_>],
    buffers: &Buffers<'_, '_>,
    out: &mut SoundPlacement,
) {
    let called: FxHashSet<usize> =
        buffers.kernel_callees().into_iter().filter(|&f| crate::ir::entry_block(functions[f]).is_some()).collect();
    if called.is_empty() {
        return;
    }
    out.called.extend(called.iter().map(|&f| module.functions[f].op));
    fn calls(region: &model::Region, called: &FxHashSet<usize>, out: &mut FxHashSet<crate::comm_order::model::OpKey>) {
        for node in region.blocks.iter().flat_map(|b| &b.nodes) {
            match node {
                model::Node::Event(event) => {
                    if let model::EventKind::Call { callee: Some(c), submit: false } = event.kind {
                        if called.contains(&c) {
                            out.insert(event.op);
                        }
                    }
                }
                model::Node::If { then, otherwise } => {
                    calls(then, called, out);
                    if let Some(o) = otherwise {
                        calls(o, called, out);
                    }
                }
                model::Node::Switch { cases: regions } | model::Node::Opaque { regions } => {
                    regions.iter().for_each(|r| calls(r, called, out));
                }
                model::Node::Loop { body, .. } | model::Node::Scope { body } => calls(body, called, out),
                model::Node::While { before, after } => {
                    calls(before, called, out);
                    calls(after, called, out);
                }
            }
        }
    }
    for f in buffers.kernel_callers() {
        if let Some(body) = &model::lower_body(module, f, functions[f], names).body {
            calls(body, &called, &mut out.quiet_calls);
        }
    }
}
