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
    let buffers = Buffers::of(&names, functions.clone(), kinds, Markers::ByTheRules);
    for (store, reader) in buffers.published_plain_stores(&names) {
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
    let (sound, stale) = launches_beyond_phase_b(module, &names, &buffers, &reports);
    for v in sound.iter().chain(stale.iter().map(|(v, _)| v)) {
        out.prologues.insert(module.functions[v.kernel].op);
    }
}
