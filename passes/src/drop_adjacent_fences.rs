//! `ccl-drop-adjacent-fences`: erases each `ccl.fence` that comes right
//! after another one in its block (docs/passes/drop-adjacent-fences.md).

use crate::{
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo},
    ir::{self, Walk},
    pass_statistics,
};
use cclir_dialect::names::Interned;
use melior::ir::OperationRef;

pass_statistics! {
    /// What one run dropped.
    pub struct DropStatistics {
        dropped: "fences-dropped", "Fences erased because the op right before them is a fence",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: "ccl-drop-adjacent-fences",
    name: "CclDropAdjacentFences",
    summary: "Erase each ccl.fence that comes right after another ccl.fence",
    description: "A fence waits until every write its block has in flight has landed. Right\n\
        after another fence nothing is in flight, so the second one waits for nothing:\n\
        this pass erases it, in every function, keeping the first fence of each run.",
    anchor: Anchor::Function,
    dependent_dialects: &[],
    options: &[],
    statistics: DropStatistics::SPECS,
    create,
};

fn create(_: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    Box::new(DropAdjacentFences { stats: DropStatistics::bind(counters), names: None })
}

struct DropAdjacentFences {
    stats: DropStatistics,
    names: Option<Interned>,
}

impl CclPass for DropAdjacentFences {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = Interned::cached(&mut self.names, func);
        let mut dropped = 0;
        // Erasing the op a visit is given is allowed: the walk goes on after
        // it, to a fence whose op before is now the first fence of the run.
        ir::walk_nested(func, |op| {
            if ir::is_fence(names, op) && ir::previous_in_block(op).is_some_and(|before| ir::is_fence(names, before)) {
                cx.erase(op);
                dropped += 1;
            }
            Walk::Advance
        });
        self.stats.dropped.add(dropped);
        if dropped == 0 {
            cx.preserve_all();
        }
        Ok(())
    }
}
