//! The all_to_all_v protocol as a list of steps: the one description the
//! kernel builder interprets (`kernel.rs`), that tests and the docs read,
//! and that the synthesized kernel records (`ccl.protocol`). Every op of a
//! step carries the step's name in its location
//! (`loc("ccl-lower-all-to-all-v.snapshot"(...))`), so dumps, diagnostics and
//! the simulator's race reports say which step an op belongs to.

/// One step, run by every block of the kernel (`me` = `ccl.rank`, `blk` =
/// `ccl.block_id`; a cell `signal[r, c]` is row r = source rank, column c =
/// the sender's block id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `notify atomic_add +value` into `signal[me, blk]` of every peer p != me.
    NotifyPeers { value: i64 },
    /// `wait ge expected` on every `signal[p, blk]` (p != me) of this rank.
    WaitPeers { expected: i64 },
    /// For every peer q this block owns at lane 0: read q's
    /// `send_counts[me]` (a remote read), clamp it to `0..MR`, write it to
    /// this rank's `recv_counts[q]`.
    Snapshot,
    /// For every peer q this block owns: `rows = clamp(send_counts[q], 0,
    /// MR)`, this lane's slice of the `rows * row_size` elements, and if
    /// it is not empty, `put` it into q's `recv` at row `me * MR`.
    Push,
    /// `notify atomic_add value` into this rank's own cells `signal[p, blk]`
    /// (p != me): the reset without a reset.
    ResetOwn { value: i64 },
}

/// A named step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedStep {
    pub name: &'static str,
    pub step: Step,
}

const fn step(name: &'static str, step: Step) -> NamedStep {
    NamedStep { name, step }
}

/// The protocol the pass emits: Barrier A, the snapshot of the peers'
/// counts between the barriers, the push, Barrier B, the reset. Nothing
/// after Barrier B reads a peer's `send_counts`, so a peer that restages
/// them for its next call (it can, once it is past Barrier B) races with
/// nobody.
pub const PROTOCOL: &[NamedStep] = &[
    step("barrier-a.notify", Step::NotifyPeers { value: 1 }),
    step("barrier-a.wait", Step::WaitPeers { expected: 1 }),
    step("snapshot", Step::Snapshot),
    step("push", Step::Push),
    step("barrier-b.notify", Step::NotifyPeers { value: 1 }),
    step("barrier-b.wait", Step::WaitPeers { expected: 2 }),
    step("reset", Step::ResetOwn { value: -2 }),
];

/// The old order, for tests only (`late-snapshot=true`): the peers' counts
/// are read after Barrier B, when a fast peer may already be restaging them
/// for its next call. `ccl-sim` finds that race.
pub const LATE_SNAPSHOT: &[NamedStep] = &[
    step("barrier-a.notify", Step::NotifyPeers { value: 1 }),
    step("barrier-a.wait", Step::WaitPeers { expected: 1 }),
    step("push", Step::Push),
    step("barrier-b.notify", Step::NotifyPeers { value: 1 }),
    step("barrier-b.wait", Step::WaitPeers { expected: 2 }),
    step("snapshot", Step::Snapshot),
    step("reset", Step::ResetOwn { value: -2 }),
];

/// The step names of `protocol`, in order, as the kernel records them.
pub fn step_names(protocol: &[NamedStep]) -> Vec<&'static str> {
    protocol.iter().map(|s| s.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_sits_between_the_barriers_and_the_reset_undoes_them() {
        let names = step_names(PROTOCOL);
        let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
        assert!(at("barrier-a.wait") < at("snapshot") && at("snapshot") < at("barrier-b.notify"));
        // Each rank's cell of a block gets +1 from every peer at each
        // barrier; the reset takes both away.
        let added: i64 = PROTOCOL
            .iter()
            .filter_map(|s| match s.step {
                Step::NotifyPeers { value } => Some(value),
                _ => None,
            })
            .sum();
        assert!(PROTOCOL.iter().any(|s| s.step == Step::ResetOwn { value: -added }));
        let late = step_names(LATE_SNAPSHOT);
        assert!(late.iter().position(|n| *n == "snapshot") > late.iter().position(|n| *n == "barrier-b.wait"));
    }
}
